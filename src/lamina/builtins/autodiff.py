"""Builtins of the autodiff tape: param, track, detach, grad, tape_reset, tape_size, tape_limit."""
from __future__ import annotations

import numpy as np

from ..autodiff import grad as _grad
from ..autodiff.shaping import dtype_of
from ..autodiff.tape import TAPE
from ..errors import LaminaError
from ..lang.pyerrors import current_place
from ..values import Record, Tracked, as_int, describe
from .registry import Shape, builtin

CATEGORY = "Autodiff"


def trains(name: str):
    """A block in which the builtin `name` resets the tape as it trains: a later TapeError about a
    value made stale by it names the builtin and the program's line (`fit() at prog.lam:12`)."""
    place = current_place()
    return TAPE.resets_by(f"{name}() at {place}" if place else f"{name}()")


def _leaf(x, trainable: bool, name: str, dtype=None):
    """A new leaf holding the value of `x` (of `dtype`, else x's own); a list or record gives
    the same structure of leaves.

    An array of the right dtype is held as it is, not copied: no value is ever written in
    place while anything else holds it (`v[i] = x` and an optimizer's pending step prove sole
    ownership by reference counts, and a trainer updates its own private copy), so the leaf
    and the value it was made from cannot come to differ."""
    if type(x) is Tracked:
        x = x.value
    if isinstance(x, list):
        return [_leaf(item, trainable, name, dtype) for item in x]
    if isinstance(x, Record):
        return Record({k: _leaf(v, trainable, name, dtype) for k, v in x.fields.items()})
    if isinstance(x, np.ndarray):
        return TAPE.leaf(np.asarray(x, dtype=dtype or (x.dtype if x.dtype == np.float32 else np.float64)),
                         trainable)
    if isinstance(x, (float, int)) and not isinstance(x, bool):
        return TAPE.leaf(float(x), trainable)
    raise LaminaError("TypeError", f"{name}() wraps a number or tensor (or a list or record of them), "
                      f"not {describe(x)}.")


@builtin("param", any_rank=True, pure="a value", tracked="constant", category=CATEGORY,
         probes=["param(p)"],
         shapes=[Shape("param(x)", "number or tensor", "tracked value",
                       "A new trainable leaf on the tape holding the value of x."),
                 Shape("param(values)", "list or record of numbers/tensors", "same structure",
                       "Wraps each member, keeping the list or record shape."),
                 Shape('param(x, dtype = "float32")', "number, tensor, list or record; dtype name",
                       "tracked value(s)", "The tensors converted to float32 (or \"float64\") first.")],
         summary="Makes a trainable value: a new leaf on the autodiff tape holding the value of x. "
                 "Every operation on it is recorded so that grad() can differentiate through it.",
         examples=["w = param([1.0, 2.0])\nloss = sum(w .^ 2)\nprint(grad(loss, wrt = w))",
                   "p = param({w = [0.5, -0.5], b = 0.0})\nprint(p.w, p.b)"],
         notes="A leaf is an entry with no parents on the one tape. The value it returns carries "
               "its number, its node id and the tape generation it was made in; operations on it "
               "record entries that refer to their inputs by node id. Wrapping an already tracked "
               "value makes a fresh leaf from its number, which is how a value is carried across "
               "tape_reset(). A tensor keeps its dtype unless dtype is given (\"float32\" or "
               "\"float64\"); numbers are always float64. Values are immutable in Lamina, so the "
               "leaf shares x's array instead of copying it; no program can tell the difference.")
def param(x, dtype=None):
    return _leaf(x, True, "param", _dtype(dtype, "param"))


@builtin("track", any_rank=True, pure="a value", tracked="constant", category=CATEGORY,
         probes=["track(p)"],
         shapes=[Shape("track(x)", "number or tensor", "tracked value",
                       "A new non-trainable leaf holding the value of x."),
                 Shape("track(values)", "list or record of numbers/tensors", "same structure",
                       "Wraps each member, keeping the list or record shape."),
                 Shape('track(x, dtype = "float32")', "number, tensor, list or record; dtype name",
                       "tracked value(s)", "The tensors converted to float32 (or \"float64\") first.")],
         summary="Records a value on the autodiff tape without marking it trainable: it can still "
                 "be differentiated against with grad(), but optimizers leave it alone.",
         examples=["x = track(3.0)\ny = x ^ 2 + 2 * x\nprint(grad(y, wrt = x))",
                   "p = {w = param([1.0, 2.0]), b = track(3.0)}\n"
                   "opt = optimizer_step(sgd(p, lr = 0.1), {w = [1.0, 1.0], b = 1.0})\n"
                   "print(opt.params)\nprint(opt)"],
         notes="Exactly like param() on the tape (a new leaf holding the value of x); the only "
               "difference is the trainable mark that optimizers look at. An optimizer given a "
               "track() value among its parameters keeps it frozen: optimizer_step, train_loop "
               "and their relatives leave it (and its optimizer state) as it is, whatever its "
               "gradient, as torch.optim skips a tensor that does not require a gradient. A value computed "
               "from tracked ones (track(x) * 2, or w after w[0] = 0.5) is no leaf and carries no "
               "mark: an optimizer trains it from its current value, as param() of it. The "
               "mark belongs to the value the optimizer was made with; train_loop's own loss "
               "function still gets the frozen value tracked, so grad() works on it.")
def track(x, dtype=None):
    return _leaf(x, False, "track", _dtype(dtype, "track"))


def _dtype(name, who: str):
    return None if name is None else dtype_of(name, f"{who}'s dtype")


def _plain(x):
    if isinstance(x, list):
        return [_plain(item) for item in x]
    if isinstance(x, Record):
        return Record({k: _plain(v) for k, v in x.fields.items()})
    if type(x) is Tracked:
        return x.value.copy() if isinstance(x.value, np.ndarray) else x.value
    return x


@builtin("detach", any_rank=True, pure="a value", tracked="constant", category=CATEGORY,
         probes=["detach(p)", "detach({a = p, b = [p, 1]})"],
         shapes=[Shape("detach(x)", "tracked number or tensor", "number or tensor",
                       "Its value, untracked: a constant as far as grad is concerned."),
                 Shape("detach(values)", "list or record", "same structure",
                       "Every tracked member replaced by its value.")],
         summary="The value of a tracked number or tensor as a plain, untracked one: no gradient "
                 "flows back through it. Builtins that pass no gradient ask for it.",
         examples=["w = param([1.0, 2.0])\nc = detach(w)\nloss = sum(w .* c)\nprint(grad(loss, wrt = w))",
                   "w = param([3.0, 1.0, 2.0])\nprint(unique(detach(w)))"],
         notes="Use it where a value should count as a constant (a target computed from the "
               "parameters, a statistic for a plot) or to pass a tracked value to a builtin that "
               "passes no gradient, such as linreg or unique, which refuse a tracked argument "
               "rather than lose its gradient without a word. Anything that is not tracked comes "
               "back as it is.")
def detach(x):
    return _plain(x)


@builtin("grad", any_rank=True, pure="a value", tracked="constant", category=CATEGORY,
         probes=["grad(sum(p .* p), wrt = p)"],
         float32_probes=["w = param(p)\ngrad(sum(w .* w), wrt = w)"],
         shapes=[Shape("grad(loss, wrt = x)", "scalar loss, tracked value", "gradient (shape of x)",
                       "The derivative of loss with respect to x."),
                 Shape("grad(loss, wrt = [a, b])", "scalar loss, a bracket of tracked values written in the call",
                       "list", "One gradient per item, in order, whatever the items are."),
                 Shape("grad(loss, wrt = {w = a, b = c})", "scalar loss, record", "record",
                       "One gradient per field, with the same names."),
                 Shape("grad(loss, wrt = x, keep = true)", "scalar loss, tracked value, true", "tracked gradient",
                       "The gradient recorded on the tape, so that it can be differentiated again.")],
         summary="The gradient of a scalar loss with respect to tracked values, by one reverse "
                 "sweep over the tape. The result has the structure of wrt and each gradient "
                 "has the shape of its value.",
         examples=["w = param([1.0, 2.0])\nprint(grad(sum(w .^ 2), wrt = w))",
                   "p = {w = param([1.0, -1.0]), b = param(0.5)}\nx = [2.0, 3.0]\n"
                   "loss = (dot(p.w, x) + p.b) ^ 2\ng = grad(loss, wrt = p)\nprint(g.w, g.b)",
                   "a = param(2.0)\nb = param(5.0)\nprint(grad(a * a, wrt = [a, b]))",
                   "a = param(1.0)\nv = [a, a]               # one tracked vector built from a\n"
                   "loss = sum(v .* [1, 10])\nprint(grad(loss, wrt = v))     # the gradient for v\n"
                   "print(grad(loss, wrt = [a]))   # a bracket in the call: one gradient per item",
                   "p = param(2.0)\ng = grad(p ^ 3, wrt = p, keep = true)   # 3 p^2, on the tape\n"
                   "print(g, grad(g * p, wrt = p))        # d(3 p^3)/dp = 9 p^2"],
         notes="What wrt means is decided by how it is written, never by how a value was built. "
               "A bracket written directly as the wrt argument, grad(loss, wrt = [a, b]) (or "
               "grad(loss, [a, b])), is a list of targets, whatever its items are (numbers or "
               "tensors), and gives a list of gradients. Any other value is taken as it is: a "
               "tracked tensor is one target, even one built from tracked numbers, so with v = [a, "
               "a] the call grad(loss, wrt = v) gives the gradient for v, of v's shape, as torch "
               "and JAX do; a list or record gives one gradient per member, at any depth.\n\n"
               "The sweep starts at the loss's entry with gradient 1 and walks down the tape, "
               "visiting only the entries the loss depends on; each passes its gradient to its "
               "inputs through the vector-Jacobian products it saved when it was recorded, and "
               "gradients meeting at one node are added. A wrt the loss does not depend on gets "
               "zeros; when none of them is connected to the loss a warning says so, as that is "
               "almost always a mistake. The tape is not consumed, so grad can be called again. "
               "The gradients it returns are plain values, not recorded on the tape, unless keep = "
               "true: then the sweep computes each gradient with the tape's own operations, so "
               "the gradient is a tracked value and grad (or hessian, jacobian, hvp) of an "
               "expression of it is exact, to any order (PyTorch's create_graph = True). "
               "Every operator and the builtins whose pages say \"differentiable twice\" take part; "
               "a loss computed with any other builtin is a TapeError naming it. A gradient taken "
               "without keep that meets its own parameters again in a later grad is an error that "
               "says to pass keep = true, never a silently first-order number.\n\n"
               "It is an error to ask for a value recorded before a tape reset (checked first: the "
               "message names every stale item of wrt, by its path such as wrt[1] or wrt.q, and the "
               "builtin that reset the tape if one did, such as fit), or to pass a loss that is not "
               "a number computed from tracked values. If the loss is finite but a gradient holds "
               "NaN or Inf, a warning says which. A mask that replaces a result afterwards does not "
               "stop a NaN derivative: z = sqrt(w); z[w < 0] = 0 gives the gradient NaN where w < 0 "
               "(0 times the derivative there, as in torch); replace the input first (u = w .* 1; "
               "u[w < 0] = 1; z = sqrt(u); z[w < 0] = 0), and the gradient there is 0. (A program "
               "that records more entries than tape_limit() without a tape_reset() is warned "
               "once, as it records, not by grad.)")
def grad(loss, wrt=None, keep=False):
    # The parameter's name is the hook of the bracket rule: a bracket written as the argument
    # of a builtin's parameter named wrt is the list of its items (lang/targets.py).
    if wrt is None:
        raise LaminaError("TypeError", "grad needs the values to differentiate with respect to: "
                          "grad(loss, wrt = w).")
    if type(keep) is not bool:
        raise LaminaError("TypeError", f"grad's keep must be true or false, not {describe(keep)}.")
    return _grad.grad(loss, wrt=wrt, keep=keep, hand_out=True)


@builtin("tape_reset", any_rank=True, tracked="constant", category=CATEGORY,
         probes="takes no argument",
         shapes=[Shape("tape_reset()", "no input", "no output",
                       "Starts a new generation of the autodiff tape.")],
         summary="Starts a new generation of the autodiff tape: every value recorded so far becomes "
                 "stale (a constant that can no longer be differentiated against). Call it between "
                 "independent computations, for example at the start of each training step.",
         examples=["w = param(2.0)\nloss = w ^ 2\nprint(tape_size(), grad(loss, wrt = w))\ntape_reset()\n"
                   "print(tape_size())",
                   "w = param(3.0)\ntape_reset()\nprint(w * 2)          # a stale value still works as a constant\n"
                   "w = param(w)          # wrap it again to differentiate after the reset\n"
                   "print(grad(w ^ 2, wrt = w))",
                   "x = [1.0, 2.0, 3.0]\nwv = 0.0\nfor step = 1 to 50\n    tape_reset()         # one small tape per step\n"
                   "    w = param(wv)\n    g = grad(mean((w * x - 2 * x) .^ 2), wrt = w)\n    wv = wv - 0.05 * g\n"
                   "end for\nprint(round(wv, 4), tape_size())"],
         notes="Every tracked value remembers its node id and the generation of the tape it was "
               "recorded in, and owns the entries it was computed from: a value's history (and every "
               "array its gradient rules saved) is freed when no value that needs it is held any "
               "more, reset or not, so a loop that rebinds its loss each step holds one step's "
               "history at a time. tape_reset() starts a new generation and sets the entry count "
               "back to 0; node ids keep counting up and are never reused.\n\n"
               "The engine this design comes from restarted its node numbering at 0 after a reset. "
               "A tensor made before the reset kept its old index, which a brand-new node could "
               "then take, so a later grad() silently added the wrong gradients to that new node "
               "instead of failing. Its train_loop had exactly this bug (it reset the tape each "
               "epoch but kept using the same pre-reset tensor) until it was changed to make a "
               "fresh leaf after every reset, and its advice was to reset only when no value you "
               "still hold will be differentiated later.\n\n"
               "Lamina makes the mistake impossible to miss instead of easy to make: a value from "
               "an earlier generation is stale. It still holds its number and works as a constant "
               "in new computations, but grad(loss, wrt = stale) is a TapeError that names the "
               "variable, says it was recorded before tape_reset() and says to wrap it again with "
               "param(). Because ids never restart, no stale value can alias a new node. "
               "train_loop resets and re-wraps its parameters every epoch itself.\n\n"
               "The page this builtin was first described on carried three longer programs (a GRU, "
               "a dense layer with its activations, the optimizers and the model API); they are "
               "examples/seed/*.lam in the repository, and the test suite checks their output.")
def tape_reset():
    TAPE.reset(by="tape_reset()")
    return None


@builtin("tape_size", any_rank=True, pure="a number", tracked="constant", category=CATEGORY,
         probes="takes no argument",
         shapes=[Shape("tape_size()", "no input", "number",
                       "How many entries were recorded since the last reset, leaves included.")],
         summary="The number of entries recorded on the autodiff tape since the last tape_reset(): "
                 "every param/track leaf and every operation, held or already freed.",
         examples=["tape_reset()\nw = param([1.0, 2.0])\ny = sum(w .* w)\nprint(tape_size())\n"
                   "tape_reset()\nprint(tape_size())"],
         notes="Each param() or track() adds one entry, and each operation with at least one "
               "tracked input adds one; operations on plain values add nothing. Use it to check "
               "that a long-running loop resets the tape.")
def tape_size():
    return float(TAPE.size())


@builtin("tape_limit", any_rank=True, tracked="constant", category=CATEGORY,
         probes="its argument is a count of entries",
         shapes=[Shape("tape_limit(n)", "whole number", "number",
                       "Sets the entry count above which a warning is printed; returns the old one.")],
         summary="Sets how many tape entries recorded since the last reset trigger the one-time "
                 "warning that suggests tape_reset() (5,000,000 by default) and returns the "
                 "previous setting.",
         examples=["old = tape_limit(1000)\nprint(old)\ntape_limit(old)"],
         notes="The count is of entries recorded since the last tape_reset(). Their memory goes "
               "with the values that hold them, but a value built step after step from tracked "
               "ones (a running total of tracked losses, say) keeps every step's history alive, "
               "so a program that never resets is warned once it has recorded many. When the "
               "count first passes the limit, one warning naming tape_reset() goes to stderr; it "
               "is printed again only after a reset or a new limit.")
def tape_limit(n):
    limit = as_int(n, "The tape limit", minimum=1)
    old = TAPE.warn_entries
    TAPE.warn_entries = limit
    TAPE.warned = False
    return float(old)
