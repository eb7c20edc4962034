"""Optimizer builtins: one constructor per rule of optim/registry.py's RULES, its page written
from the rule (summary, example, remark beside the update in its optim/ file), and optimizer_step
(the math is in lamina.optim)."""
from __future__ import annotations

from ..errors import LaminaError
from ..optim.base import Optimizer, make
from ..optim.registry import RULES
from ..values import describe
from .registry import Shape, builtin

CATEGORY = "Optimizers & training"
COMMON = ("The parameters are one value (tracked or plain), a list or a record of them, each a "
          "number or a tensor of any rank (a 3 x 3 x 1 x 8 convolution kernel is one parameter); `params` "
          "gives their current plain values in that same structure (a record stays a record, so "
          "gru_forward(X, h0, opt.params) works after a step), and `_params` lists them flat, in "
          "order (a record's fields in order). `lr` may "
          "be the second argument or a keyword, the other settings are keywords; an unknown "
          "setting is a TypeError that lists the accepted ones and a negative rate a ValueError. "
          "Without parameters (`none`, or lr by keyword alone) the value only holds the settings, "
          "for compile(optimizer = ...). The value is immutable: optimizer_step returns a new one. "
          "t counts steps from 1. ")


def _docs(rule):
    settings = ", ".join(f"{k} = {v:g}" for k, v in rule.defaults.items())
    return dict(category=CATEGORY,
                shapes=[Shape(f"{rule.name}(params, lr)", "parameters, learning rate", "optimizer",
                              f"A {rule.name} optimizer over the parameters."),
                        Shape(f"{rule.name}(params, lr = r, ...)", "parameters, settings by keyword",
                              "optimizer", f"Defaults: {settings}.")],
                summary=rule.summary,
                examples=[rule.example],
                notes=f"Update for each parameter w with gradient g: {rule.formula}. Defaults: "
                      f"{settings}. " + COMMON + rule.remark)


def _constructor(rule):
    """The builtin named for `rule`: its optimizer over the parameters, its page from the rule."""
    def construct(params=None, lr=None, **options):
        return make(rule, params=params, lr=lr, **options)
    construct.__name__ = construct.__qualname__ = rule.name    # Python's messages about a bad call name it
    builtin(rule.name, pure="an optimizer", tracked="constant", probes=[f"{rule.name}(p, 0.1)"],
            any_rank=True, **_docs(rule))(construct)


for _rule in RULES.values():      # in RULES' order, which is the order of the docs index
    _constructor(_rule)


@builtin("optimizer_step", pure="a new optimizer", tracked="constant", category=CATEGORY, any_rank=True,
         probes=["optimizer_step(sgd([1, 2, 3, 4], 0.1), p)"],
         float32_probes=["optimizer_step(sgd(float32([1, 2, 3, 4]), 0.1), p)"],
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
               "names the parameter (its index or record field) and both shapes; parameters and gradients "
               "may be tensors of any rank (a 2x3x4 array's gradient is a 2x3x4 array). The step count "
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
