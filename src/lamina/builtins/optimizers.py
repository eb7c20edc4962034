"""Optimizer builtins: one constructor per family, and optimizer_step (the math is in lamina.optim)."""
from __future__ import annotations

from ..errors import LaminaError
from ..optim.adagrad import ADADELTA, ADAGRAD
from ..optim.adam import ADAM, ADAMAX, ADAMW, NADAM
from ..optim.base import Optimizer, make
from ..optim.rmsprop import RMSPROP
from ..optim.sgd import NESTEROV_SGD, SGD
from ..values import describe
from .registry import Shape, builtin

CATEGORY = "Optimizers & training"
COMMON = ("The parameters are one value (tracked or plain), a list or a record of them; `params` "
          "gives their current plain values in that same structure (a record stays a record, so "
          "gru_forward(X, h0, opt.params) works after a step), and `_params` lists them flat, in "
          "order (a record's fields in order). `lr` may "
          "be the second argument or a keyword, the other settings are keywords; an unknown "
          "setting is a TypeError that lists the accepted ones and a negative rate a ValueError. "
          "Without parameters (`none`, or lr by keyword alone) the value only holds the settings, "
          "for compile(optimizer = ...). The value is immutable: optimizer_step returns a new one. "
          "t counts steps from 1. ")


def _docs(rule, summary, example, extra=""):
    settings = ", ".join(f"{k} = {v:g}" for k, v in rule.defaults.items())
    return dict(category=CATEGORY,
                shapes=[Shape(f"{rule.name}(params, lr)", "parameters, learning rate", "optimizer",
                              f"A {rule.name} optimizer over the parameters."),
                        Shape(f"{rule.name}(params, lr = r, ...)", "parameters, settings by keyword",
                              "optimizer", f"Defaults: {settings}.")],
                summary=summary,
                examples=[example],
                notes=f"Update for each parameter w with gradient g: {rule.formula}. Defaults: "
                      f"{settings}. " + COMMON + extra)


def _one_step(name, args):
    return (f"w = param(1.0)\nopt = {name}(w{args})\nopt = optimizer_step(opt, 3.0)\n"
            f"print(round(opt.params, 4))")


@builtin("sgd", pure="an optimizer", tracked="constant", **_docs(SGD, "Stochastic gradient descent, with optional momentum.",
                        "x = [1.0, 2.0, 3.0, 4.0]\ny = [2.0, 4.0, 6.0, 8.0]\nopt = sgd(0.0, 0.01)\n"
                        "for t = 0 to 49\n    tape_reset()\n    w = param(opt.params)\n"
                        "    loss = mean((w * x - y) .^ 2)\n    opt = optimizer_step(opt, grad(loss, wrt = w))\n"
                        "end for\nprint(round(opt.params, 4))",
                        "The same rule as torch.optim.SGD with dampening 0; the default lr is 0.01 (torch's is 0.001)."))
def sgd(params=None, lr=None, **options):
    return make(SGD, params=params, lr=lr, **options)


@builtin("nesterov_sgd", pure="an optimizer", tracked="constant", **_docs(NESTEROV_SGD, "Stochastic gradient descent with Nesterov momentum.",
                                 _one_step("nesterov_sgd", ", lr = 0.05, momentum = 0.9"),
                                 "The same rule as torch.optim.SGD(nesterov = True); the defaults (lr 0.01, momentum 0.9) are "
                                 "Lamina's (torch's lr is 0.001 and its momentum must be given)."))
def nesterov_sgd(params=None, lr=None, **options):
    return make(NESTEROV_SGD, params=params, lr=lr, **options)


@builtin("adam", pure="an optimizer", tracked="constant", **_docs(ADAM, "Adam: per-element steps from bias-corrected running means of the "
                               "gradient and of its square.",
                         _one_step("adam", ", lr = 0.05"),
                         "The same rule as torch.optim.Adam (without weight decay or amsgrad)."))
def adam(params=None, lr=None, **options):
    return make(ADAM, params=params, lr=lr, **options)


@builtin("adamw", pure="an optimizer", tracked="constant", **_docs(ADAMW, "AdamW: Adam with decoupled weight decay.",
                          _one_step("adamw", ", lr = 0.05"),
                          "The same rule as torch.optim.AdamW."))
def adamw(params=None, lr=None, **options):
    return make(ADAMW, params=params, lr=lr, **options)


@builtin("nadam", pure="an optimizer", tracked="constant", **_docs(NADAM, "NAdam: Adam with Nesterov momentum.",
                          _one_step("nadam", ", lr = 0.05"),
                          "The momentum factor is the constant beta1 (no momentum schedule), unlike "
                          "torch.optim.NAdam's default momentum_decay, and the default lr is 0.001 "
                          "where torch's is 0.002."))
def nadam(params=None, lr=None, **options):
    return make(NADAM, params=params, lr=lr, **options)


@builtin("adamax", pure="an optimizer", tracked="constant", **_docs(ADAMAX, "Adamax: Adam with the infinity norm in place of the root mean square.",
                           _one_step("adamax", ", lr = 0.05"),
                           "eps is added to u in the denominator (torch.optim.Adamax adds it to "
                           "abs(g) inside the max)."))
def adamax(params=None, lr=None, **options):
    return make(ADAMAX, params=params, lr=lr, **options)


@builtin("rmsprop", pure="an optimizer", tracked="constant", **_docs(RMSPROP, "RMSprop: steps scaled by a running root mean square of the gradient.",
                            _one_step("rmsprop", ", lr = 0.05"),
                            "The same rule as torch.optim.RMSprop with alpha = rho, but with Keras's defaults (lr 0.001, "
                            "rho 0.9) where torch has lr 0.01, alpha 0.99."))
def rmsprop(params=None, lr=None, **options):
    return make(RMSPROP, params=params, lr=lr, **options)


@builtin("adagrad", pure="an optimizer", tracked="constant", **_docs(ADAGRAD, "Adagrad: steps scaled by the root of the summed squared gradients.",
                            _one_step("adagrad", ", lr = 0.05"),
                            "The same rule as torch.optim.Adagrad (initial accumulator 0, no lr decay); eps is 1e-8 "
                            "where torch's default is 1e-10."))
def adagrad(params=None, lr=None, **options):
    return make(ADAGRAD, params=params, lr=lr, **options)


@builtin("adadelta", pure="an optimizer", tracked="constant", **_docs(ADADELTA, "Adadelta: steps in units of the parameter from running "
                                       "averages of squared gradients and squared steps.",
                             _one_step("adadelta", ""),
                             "The same rule as torch.optim.Adadelta, but with the defaults of Keras and of Zeiler's paper "
                             "(rho 0.95) and eps 1e-8, where torch has rho 0.9 and eps 1e-6."))
def adadelta(params=None, lr=None, **options):
    return make(ADADELTA, params=params, lr=lr, **options)


@builtin("optimizer_step", pure="a new optimizer", tracked="constant", category=CATEGORY,
         shapes=[Shape("optimizer_step(opt, g)", "optimizer, gradient", "optimizer",
                       "One update with the gradient of the one parameter."),
                 Shape("optimizer_step(opt, grads)", "optimizer, list or record of gradients",
                       "optimizer", "One update of every parameter."),
                 Shape("optimizer_step(opt, v)", "optimizer, vector", "optimizer",
                       "When every parameter is a number: one gradient per parameter."),
                 Shape("optimizer_step(opt, g, lr = r)", "optimizer, gradient(s), rate", "optimizer",
                       "One update at rate r; the new optimizer keeps r as its lr.")],
         summary="Applies one update to an optimizer's parameters and returns the new optimizer; "
                 "the old one is unchanged. Read the new values from its `params`.",
         examples=["w = param([1.0, -2.0])\nb = param(0.5)\nopt = adam({w = w, b = b}, lr = 0.1)\n"
                   "loss = sum(w .^ 2) + b ^ 2\nopt2 = optimizer_step(opt, grad(loss, wrt = {w = w, b = b}))\n"
                   "print(round(opt2.params.w, 4), round(opt2.params.b, 4))\nprint(opt.params.b)\n"
                   "tape_reset()",
                   "opt = optimizer_step(sgd([1.0, 2.0], lr = 0.5), [1.0, 1.0])\nprint(opt.params)",
                   "# a training loop by hand: each step's gradient is taken at the optimizer's parameters\n"
                   "x = [1.0, 2.0, 3.0]\ny = [3.0, 5.0, 7.0]\nopt = sgd({w = 0.0, b = 0.0}, lr = 0.05)\n"
                   "for epoch = 1 to 300\n    tape_reset()\n    q = param(opt.params)\n"
                   "    g1 = grad(mean((q.w * x[0:2] + q.b - y[0:2]) .^ 2), wrt = q)\n"
                   "    g2 = grad(mean((q.w * x[2:3] + q.b - y[2:3]) .^ 2), wrt = q)\n"
                   "    g = (2 * g1 + g2) / 3                      # arithmetic on records of gradients\n"
                   "    opt = optimizer_step(opt, g, lr = 0.1 / (1 + epoch / 300))   # a schedule by hand\nend for\n"
                   "print(map(opt.params, v -> round(v, 2)), round(opt.lr, 4))",
                   "w = param(0.0)\nopt = sgd(w, lr = 0.1)\ntry\n    for i = 1 to 3\n        loss = (w - 5) ^ 2\n"
                   "        opt = optimizer_step(opt, grad(loss, wrt = w))     # w never moves\n    end for\n"
                   "catch err\n    print(err.kind, \"at step\", i)\nend try"],
         notes="The gradient matches the parameters: one value for one parameter, a list in "
               "parameter order, or a record with the parameters' fields; when every parameter is "
               "a number a vector with one entry per parameter also works (so `[3.0]` for one "
               "number). A gradient whose shape differs from its parameter's is a ShapeError that "
               "names the parameter (its index or record field) and both shapes. The step count "
               "and every running average live in the returned value, so stepping an old "
               "optimizer again starts from that old state. `lr = r` sets the rate for this step "
               "and after (a schedule written by hand); it is checked as the constructor checks it.\n\n"
               "A training loop by hand reads the parameters with `opt.params` (the structure they "
               "were given in: a record stays a record), wraps them with param() each step, computes "
               "the loss from those, and steps with their gradient. Gradients combine with the "
               "operators (`0.5 * g`, `g1 + g2`: records and lists work member by member) and "
               "map(g, f) applies f to each field of a record. The optimizer does not change the "
               "values it was given: a loop that differentiates against one param() value every "
               "step (as PyTorch's loop does with a tensor the optimizer updates in place) would take "
               "every gradient at the start; optimizer_step refuses a gradient grad() took with "
               "respect to the very value the optimizer has since stepped away from, with a "
               "TapeError. `_params` (the values as a flat list) still works.")
def optimizer_step(opt, g, lr=None):
    if not isinstance(opt, Optimizer):
        raise LaminaError("TypeError", f"optimizer_step needs an optimizer (made by sgd, adam, ...) "
                          f"as its first argument, not {describe(opt)}.")
    return opt.step(g, lr)
