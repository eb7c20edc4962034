"""Neural-net builtins: dense, the activations, softmax and dropout (the math is in lamina.nn)."""
from __future__ import annotations

from ..errors import LaminaError
from ..nn import activations as A
from ..nn.dense import dense as dense_op
from ..nn.dropout import dropout as dropout_op
from ..values import LibObject, describe, is_numeric
from .registry import Const, GradCase, Shape, builtin

CATEGORY = "Neural nets"
S, V, M, R3, R4 = (), (4,), (3, 2), (2, 3, 4), (2, 1, 2, 3)


def _unary(domain="real"):
    return [GradCase((shape,), domain=domain) for shape in (S, V, M, R3, R4)]


def _elementwise(name, meaning, example, notes):
    return dict(category=CATEGORY, any_rank=True,
                shapes=[Shape(f"{name}(x)", "number or tensor", "same shape", meaning)],
                summary=meaning + " Works elementwise on tensors of any rank; differentiable.",
                examples=[example], notes=notes)


@builtin("dense", twice=True, pure="a value", any_rank=True, category=CATEGORY,
         shapes=[Shape("dense(x, w, b)", "x m x k, w k x n, b", "m x n matrix",
                       "x * w + b: the product, then b added under the broadcasting rule."),
                 Shape("dense(x, w)", "x m x k, w k x n", "m x n matrix", "x * w, no bias."),
                 Shape("dense(x, w, b)", "x ... x k array, w k x n, b number or 1 x n row", "... x n array",
                       "On an array of rank 3 or more (a batch of sequences): w multiplies along x's "
                       "last axis and b is added per unit, as Keras's Dense does."),
                 Shape("dense(spec, units, activation = \"relu\")", "model spec, units, activation",
                       "model spec", "The layer form: appends a dense layer to a model (see input, "
                       "compile); activation relu, sigmoid, tanh, softmax, leaky_relu, gelu, silu or none "
                       "(the default).")],
         summary="A fully connected layer as one expression: x * w + b, with the language's "
                 "matrix product and broadcasting. Rows of x are examples.",
         examples=["x = [1.0, 2.0; -0.5, 1.5]\nw = [0.5, -0.3; 0.2, 0.8]\n"
                   "print(round(dense(x, w, [0.1, -0.1]), 4))    # b[i] added to row i\n"
                   "print(round(dense(x, w, [0.1, -0.1]'), 4))   # a 1 x n row: added to every row",
                   "w = param([0.5, -0.3; 0.2, 0.8])\nb = param([0.0, 0.0]')\n"
                   "loss = sum(relu(dense([1.0, 2.0; -0.5, 1.5], w, b)))\n"
                   "print(grad(loss, wrt = b))\ntape_reset()"],
         notes="Exactly `x * w + b` as the language computes it, built from the `*` and `+` "
               "operators (so their gradients): `*` is the matrix product (a number on either side "
               "scales); then `b` is added under the one broadcasting rule. A vector `b` acts as a "
               "column, so `b[i]` is added to row `i` (to example `i`); to add a bias per unit "
               "(column), pass a 1 x n row such as `b'`; a number is added everywhere. Any other "
               "shape is a ShapeError naming both shapes. On an array x of rank 3 or more (b x t x k) "
               "there is no matrix product of x, and dense does what Keras's Dense does: w (k x n) "
               "multiplies along x's last axis, giving b x t x n, and b, a number or a 1 x n row, is "
               "added to each unit.",
         grad=[GradCase(((3, 2), (2, 4), (1, 4))), GradCase(((2, 2), (2, 2), (2,))),
               GradCase(((3, 2), (2,), (3,))), GradCase(((), (3, 2), ())), GradCase(((3, 2), (2, 4))),
               GradCase(((2, 3, 2), (2, 4), (1, 4))), GradCase(((2, 1, 3, 2), (2, 3), ())),
               GradCase(((2, 3, 2), (2, 4)))])
def dense(x, w=None, third=None, /, **options):
    # The third positional argument is b in the op form and the activation in the layer form,
    # so each form names its keywords itself and neither can land in the other's slot.
    if isinstance(x, LibObject) and x.type_name == "model spec":
        # The layer overload dense(model_spec, units, activation = ...) (lamina.models.layers.dense).
        from ..models.layers.dense import dense_layer
        if third is not None:
            if "activation" in options:
                raise LaminaError("TypeError", "The layer dense(spec, units, activation) got the "
                                  "activation twice, by position and by keyword.")
            options["activation"] = third
        if w is not None:
            if "units" in options:
                raise LaminaError("TypeError", "The layer dense(spec, units, ...) got units twice.")
            options["units"] = w
        return dense_layer(x, **options)
    w = options.pop("w", None) if w is None else w
    b = options.pop("b", None) if third is None else third
    if options:
        raise LaminaError("TypeError", f"dense(x, w, b) takes no keyword '{next(iter(options))}'; "
                          f"keywords such as activation belong to the layer form dense(spec, units, ...).")
    if w is None:
        raise LaminaError("TypeError", "dense(x, w, b) needs the weights w.")
    if not is_numeric(x):
        raise LaminaError("TypeError", f"dense's first argument must be a number or tensor (or a "
                          f"model spec, for the layer form), not {describe(x)}.")
    return dense_op(x, w=w, b=b)


@builtin("relu", twice=True, pure="a value", **_elementwise(
    "relu", "The rectified linear unit max(x, 0).",
    "print(relu([-1.0, 0.0, 2.5]))\nprint(relu([1.0, -2.0; -0.5, 1.25]))",
    "The slope is 1 where x > 0 and 0 elsewhere (0 at x = 0 itself, as in PyTorch)."),
    grad=_unary("away_from_zero"))
def relu(x):
    return A.relu(x)


@builtin("leaky_relu", twice=True, pure="a value", any_rank=True, category=CATEGORY,
         shapes=[Shape("leaky_relu(x)", "number or tensor", "same shape", "x where x > 0, else 0.01 * x."),
                 Shape("leaky_relu(x, alpha)", "number or tensor, slope", "same shape",
                       "x where x > 0, else alpha * x.")],
         summary="The leaky rectified linear unit: x where x > 0, alpha * x elsewhere (alpha = 0.01 "
                 "unless given). Elementwise on tensors of any rank; differentiable.",
         examples=["print(leaky_relu([-2.0, 3.0]))\nprint(leaky_relu([-2.0, 3.0], alpha = 0.1))"],
         notes="The slope is 1 where x > 0 and alpha elsewhere (alpha at x = 0 itself).",
         grad=_unary("away_from_zero") + [GradCase((M,), {"alpha": 0.2}, "away_from_zero"),
                                          GradCase((R3,), {"alpha": 0.3}, "away_from_zero")])
def leaky_relu(x, alpha=0.01):
    return A.leaky_relu(x, alpha=alpha)


@builtin("sigmoid", twice=True, pure="a value", **_elementwise(
    "sigmoid", "The logistic function 1 / (1 + exp(-x)).",
    "print(round(sigmoid([0.0, 2.0, -2.0]), 4))",
    "Computed as 1 / (1 + exp(-x)): where exp(-x) overflows to Inf (x below about -709) that is "
    "the right limit 0, so sigmoid(-1000) is 0 and sigmoid(1000) is 1, with no warning. "
    "The derivative s * (1 - s) reuses the forward value."), grad=_unary())
def sigmoid(x):
    return A.sigmoid(x)


@builtin("tanh", twice=True, pure="a value", **_elementwise(
    "tanh", "The hyperbolic tangent.",
    "print(round(tanh([0.0, 1.0, -1.0]), 4))",
    "The derivative 1 - tanh(x)^2 reuses the forward value."), grad=_unary())
def tanh(x):
    return A.tanh(x)


@builtin("gelu", twice=True, pure="a value", **_elementwise(
    "gelu", "The Gaussian error linear unit x * Phi(x), Phi the standard normal CDF.",
    "print(round(gelu([-1.0, 0.0, 1.0]), 4))",
    "The exact form with the error function, 0.5 * x * (1 + erf(x / sqrt(2))) (PyTorch's default), "
    "not the tanh approximation. The derivative is Phi(x) + x * phi(x), phi the normal density."),
    grad=_unary())
def gelu(x):
    return A.gelu(x)


@builtin("silu", twice=True, pure="a value", **_elementwise(
    "silu", "The sigmoid linear unit (swish) x * sigmoid(x).",
    "print(round(silu([-2.0, 0.0, 2.0]), 4))",
    "As torch.nn.functional.silu: x / (1 + exp(-x)), smooth, close to relu for large |x| and "
    "slightly negative below 0 (its least value, about -0.278, at x = -1.278). The derivative is "
    "s (1 + x (1 - s)) with s = sigmoid(x). Also a dense layer's activation = \"silu\"."),
    grad=_unary())
def silu(x):
    return A.silu(x)


AXIS_NOTE = ("axis = -1 (the default) is the last axis: each row of a matrix, the whole of a "
             "vector, each length-d vector of a b x t x d array (attention's scores); any axis "
             "counts from 0, a negative one from the end, and axis = [j, k] normalises over "
             "several axes at once.")


@builtin("softmax", twice=True, pure="a value", any_rank=True, category=CATEGORY,
         shapes=[Shape("softmax(x)", "number or tensor", "same shape", "The softmax along the last axis."),
                 Shape("softmax(x, axis = k)", "tensor, axis or list of axes", "same shape",
                       "The softmax along axis k (or axes [j, k]): each slice sums to 1.")],
         summary="Turns scores into probabilities along an axis: exp(x) divided by the sum of exp "
                 "over each slice. Numerically stable, any rank; differentiable.",
         examples=["scores = [2.0, 1.0, 0.1; 0.5, 0.5, 0.5]\nprint(round(softmax(scores), 4))\n"
                   "print(round(softmax(scores, axis = 0), 4))",
                   "print(softmax([1000.0, 0.0]))",
                   "x = reshape(range(0, 12), 2, 2, 3) / 4    # b x t x d scores\n"
                   "s = softmax(x)\nprint(round(s, 3))\nprint(sum(s, axis = -1))"],
         notes="Each slice is shifted by its maximum before exp, which changes nothing "
               "mathematically but keeps exp from overflowing, so scores like [1000, 0] are fine "
               "(a slice of -Inf only gives NaN, as in torch). " + AXIS_NOTE + " softmax(m) of a "
               "matrix is softmax_rows(m); a number is a one-element vector (its softmax is 1). "
               "The VJP is s .* (g - sum(g .* s)) per slice.",
         grad=[GradCase((S,)), GradCase((V,)), GradCase((M,)), GradCase((M,), {"axis": 0}), GradCase((R3,)),
               GradCase((R3,), {"axis": 1}), GradCase((R3,), {"axis": [0, 2]}), GradCase((R4,), {"axis": -2})])
def softmax(x, axis=-1.0):
    return A.softmax(x, axis=axis)


@builtin("log_softmax", twice=True, pure="a value", any_rank=True, category=CATEGORY,
         shapes=[Shape("log_softmax(x)", "number or tensor", "same shape", "log(softmax) along the last axis."),
                 Shape("log_softmax(x, axis = k)", "tensor, axis or list of axes", "same shape",
                       "log(softmax) along axis k (or axes [j, k]).")],
         summary="The logarithm of the softmax along an axis, computed without ever taking log of "
                 "0. Any rank; differentiable.",
         examples=["print(round(log_softmax([2.0, 1.0, 0.1]), 4))\nprint(log_softmax([1000.0, 0.0]))",
                   "print(round(log_softmax([2.0, 1.0; 0.5, 0.5], axis = 0), 4))"],
         notes="Computed as (x - max) - log(sum(exp(x - max))) per slice, so a very unlikely class "
               "gets a large negative number (here -1000) instead of log(0) = -Inf. " + AXIS_NOTE +
               " The VJP is g - softmax .* sum(g) per slice.",
         grad=[GradCase((S,)), GradCase((V,)), GradCase((M,)), GradCase((M,), {"axis": 0}), GradCase((R3,)),
               GradCase((R3,), {"axis": 0}), GradCase((R4,), {"axis": [1, 3]})])
def log_softmax(x, axis=-1.0):
    return A.log_softmax(x, axis=axis)


@builtin("softmax_rows", twice=True, pure="a value", category=CATEGORY,
         shapes=[Shape("softmax_rows(x)", "matrix", "matrix", "The softmax of each row."),
                 Shape("softmax_rows(v)", "vector", "vector", "The softmax of the whole vector.")],
         summary="Turns each row of scores into probabilities: exp(x) divided by its row's sum. "
                 "Numerically stable; differentiable.",
         examples=["scores = [2.0, 1.0, 0.1; 0.5, 0.5, 0.5]\nprint(round(softmax_rows(scores), 4))",
                   "print(softmax_rows([1000.0, 0.0]))"],
         notes="Each row is shifted by its maximum before exp, which changes nothing mathematically "
               "but keeps exp from overflowing, so scores like [1000, 0] are fine. A vector is "
               "treated as one row. The VJP is s .* (g - sum(g .* s)) per row.",
         grad=[GradCase((V,)), GradCase((M,))])
def softmax_rows(x):
    return A.softmax_rows(x)


@builtin("log_softmax_rows", twice=True, pure="a value", category=CATEGORY,
         shapes=[Shape("log_softmax_rows(x)", "matrix", "matrix", "log(softmax) of each row."),
                 Shape("log_softmax_rows(v)", "vector", "vector", "log(softmax) of the whole vector.")],
         summary="The logarithm of each row's softmax, computed without ever taking log of 0. "
                 "Differentiable.",
         examples=["print(round(log_softmax_rows([2.0, 1.0, 0.1]), 4))\n"
                   "print(log_softmax_rows([1000.0, 0.0]))"],
         notes="Computed as (x - max) - log(sum(exp(x - max))) per row, so a very unlikely class "
               "gets a large negative number (here -1000) instead of log(0) = -Inf. The VJP is "
               "g - softmax .* sum(g) per row.",
         grad=[GradCase((V,)), GradCase((M,))])
def log_softmax_rows(x):
    return A.log_softmax_rows(x)


@builtin("dropout", twice=True, pure="a value", any_rank=True, category=CATEGORY,
         shapes=[Shape("dropout(x, rate)", "number or tensor, rate in [0, 1)", "same shape",
                       "Zeroes each element with probability rate, scales the rest by 1/(1 - rate)."),
                 Shape("spec |> dropout(rate)", "model spec, rate in [0, 1)", "model spec",
                       "The layer form: appends a dropout layer, active only while fit trains.")],
         summary="Training-time dropout: keeps each element with probability 1 - rate and scales "
                 "the survivors by 1/(1 - rate), so the expected value is unchanged.",
         examples=["seed(3)\nkept = dropout(ones(1, 8), 0.5)\nprint(kept)\n"
                   "print(sum(kept > 0), \"of 8 survived\")",
                   "print(dropout([1.0, 2.0], 0))   # rate 0: unchanged"],
         notes="Draws one uniform number per element from the global generator (the one seed(n) "
               "resets) and keeps the element when it is at least rate. The gradient flows through "
               "the kept elements only, times the same 1/(1 - rate). Rate 0 returns x unchanged and "
               "draws nothing; a rate outside [0, 1) is a ValueError. Use it only while training.\n\n"
               "The layer form dropout(spec, rate) adds inverted dropout to a model: fit applies it "
               "with fit's own generator (seeded by the compile seed, so seeded fits repeat), and "
               "predict and evaluate pass values through unchanged.",
         grad=[GradCase((M, Const(0.0))), GradCase((V, Const(0.0))), GradCase((R3, Const(0.0))),
               GradCase((R3, Const(0.5)), reseed=True), GradCase((R4, Const(0.25)), reseed=True)])
def dropout(x, rate):
    if isinstance(x, LibObject) and x.type_name == "model spec":
        from ..models.layers.dropout import dropout_layer
        return dropout_layer(x, rate)
    return dropout_op(x, rate=rate)
