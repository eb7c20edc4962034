"""Builtins of the autodiff tape: param, track, grad, tape_reset, tape_size, tape_limit."""
from __future__ import annotations

import numpy as np

from ..autodiff import grad as _grad
from ..autodiff.tape import TAPE
from ..errors import LaminaError
from ..values import Record, Tracked, as_int, describe
from .registry import Shape, builtin

CATEGORY = "Autodiff"


def _leaf(x, trainable: bool, name: str):
    """A new leaf holding a copy of `x`; a list or record gives the same structure of leaves."""
    if type(x) is Tracked:
        x = x.value
    if isinstance(x, list):
        return [_leaf(item, trainable, name) for item in x]
    if isinstance(x, Record):
        return Record({k: _leaf(v, trainable, name) for k, v in x.fields.items()})
    if isinstance(x, np.ndarray):
        return TAPE.leaf(np.array(x, dtype=np.float64), trainable)
    if isinstance(x, (float, int)) and not isinstance(x, bool):
        return TAPE.leaf(float(x), trainable)
    raise LaminaError("TypeError", f"{name}() wraps a number or tensor (or a list or record of them), "
                      f"not {describe(x)}.")


@builtin("param", category=CATEGORY,
         shapes=[Shape("param(x)", "number or tensor", "tracked value",
                       "A new trainable leaf on the tape holding a copy of x."),
                 Shape("param(values)", "list or record of numbers/tensors", "same structure",
                       "Wraps each member, keeping the list or record shape.")],
         summary="Makes a trainable value: a new leaf on the autodiff tape holding a copy of x. "
                 "Every operation on it is recorded so that grad() can differentiate through it.",
         examples=["w = param([1.0, 2.0])\nloss = sum(w .^ 2)\nprint(grad(loss, wrt = w))",
                   "p = param({w = [0.5, -0.5], b = 0.0})\nprint(p.w, p.b)"],
         notes="A leaf is an entry with no parents on the one tape. The value it returns carries "
               "its number, its node id and the tape generation it was made in; operations on it "
               "record entries that refer to their inputs by node id. Wrapping an already tracked "
               "value makes a fresh leaf from its number, which is how a value is carried across "
               "tape_reset().")
def param(x):
    return _leaf(x, True, "param")


@builtin("track", category=CATEGORY,
         shapes=[Shape("track(x)", "number or tensor", "tracked value",
                       "A new non-trainable leaf holding a copy of x."),
                 Shape("track(values)", "list or record of numbers/tensors", "same structure",
                       "Wraps each member, keeping the list or record shape.")],
         summary="Records a value on the autodiff tape without marking it trainable: it can still "
                 "be differentiated against with grad(), but optimizers leave it alone.",
         examples=["x = track(3.0)\ny = x ^ 2 + 2 * x\nprint(grad(y, wrt = x))"],
         notes="Exactly like param() on the tape (a new leaf holding a copy of x); the only "
               "difference is the trainable mark that optimizers and models look at.")
def track(x):
    return _leaf(x, False, "track")


@builtin("grad", category=CATEGORY,
         shapes=[Shape("grad(loss, wrt = x)", "scalar loss, tracked value", "gradient (shape of x)",
                       "The derivative of loss with respect to x."),
                 Shape("grad(loss, wrt = [a, b])", "scalar loss, list of tracked values", "list",
                       "One gradient per item, in order."),
                 Shape("grad(loss, wrt = {w = a, b = c})", "scalar loss, record", "record",
                       "One gradient per field, with the same names.")],
         summary="The gradient of a scalar loss with respect to tracked values, by one reverse "
                 "sweep over the tape. The result has the structure of wrt and each gradient "
                 "has the shape of its value.",
         examples=["w = param([1.0, 2.0])\nprint(grad(sum(w .^ 2), wrt = w))",
                   "p = {w = param([1.0, -1.0]), b = param(0.5)}\nx = [2.0, 3.0]\n"
                   "loss = (dot(p.w, x) + p.b) ^ 2\ng = grad(loss, wrt = p)\nprint(g.w, g.b)",
                   "a = param(2.0)\nb = param(5.0)\nprint(grad(a * a, wrt = [a, b]))"],
         notes="The sweep starts at the loss's entry with gradient 1 and walks the tape backwards, "
               "skipping entries nothing flowed into; each entry passes its gradient to its inputs "
               "through the vector-Jacobian products it saved when it was recorded, and gradients "
               "meeting at one node are added. A wrt the loss does not depend on gets zeros. The "
               "tape is not consumed, so grad can be called again. It is an error to ask for a "
               "value recorded before tape_reset() (checked first), or to pass a loss that is not "
               "a number computed from tracked values. If the loss is finite but a gradient holds "
               "NaN or Inf, a warning says which.")
def grad(loss, wrt=None):
    if wrt is None:
        raise LaminaError("TypeError", "grad needs the values to differentiate with respect to: "
                          "grad(loss, wrt = w).")
    return _grad.grad(loss, wrt=wrt)


# The seed page's three example programs, run by the docs build as tape_reset's examples.
_SEED_PROGRAMS = [
    """\
raw = gru_init(2, 3, seed = 1)
w = {wz=param(raw.wz), uz=param(raw.uz), bz=param(raw.bz),
     wr=param(raw.wr), ur=param(raw.ur), br=param(raw.br),
     wh=param(raw.wh), uh=param(raw.uh), bh=param(raw.bh)}
Xseq = [0.5, -0.3, 0.8; 0.2, 0.4, -0.1]   # (input_size, seq_len)

hs = gru_forward(Xseq, [0.0, 0.0, 0.0], w)
h_last = hs[length(hs) - 1]
print("gru_forward last hidden state: {round(h_last, 4)}")

loss = sum(h_last .^ 2)
g = grad(loss, wrt = w.wz)
print("dL/dwz: {round(g, 4)}")
tape_reset()

h1 = gru_cell([1.0], [1.0], {wz=0.5, uz=0.5, bz=0.0, wr=0.3, ur=0.3, br=0.0, wh=0.2, uh=0.2, bh=0.0})
print("gru_cell one step: {round(h1, 4)}")""",
    """\
w = param([0.5, -0.3; 0.2, 0.8])
b = param([0.1, -0.1])
x = [1.0, 2.0; -0.5, 1.5]      # two examples, two features each

z = dense(x, w, b)
a = relu(z)
p = sigmoid(a)
loss = sum(p .^ 2)
g = grad(loss, wrt = w)
print("relu:    {round(a, 4)}")
print("sigmoid: {round(p, 4)}")
print("dL/dw:   {round(g, 4)}")
tape_reset()                    # clear the tape before the next computation


scores = [2.0, 1.0, 0.1; 0.5, 0.5, 0.5]
probs = softmax_rows(scores)
print("softmax row 0: {round(probs[0, :], 4)}")

seed(3)
kept = dropout(ones(1, 8), 0.5)
print("dropout output: {kept}")
print("survivors:      {sum(kept > 0)} of 8, each scaled by 1/(1-rate)")""",
    """\
x = [1.0, 2.0, 3.0, 4.0]
y_true = [2.0, 4.0, 6.0, 8.0]
w = param(0.0)
function loss_fn(w)
    pred = w * x
    diff = pred - y_true
    return mean(diff .^ 2)
end function
opt = sgd(w, 0.01)
losses = train_loop("loss_fn", w, 100, optimizer = "opt")
print("train_loop (sgd): loss {round(losses[0], 3)} -> {round(losses[99], 5)}")
tape_reset()

w2v = 0.0
opt2 = adam(param(w2v), lr = 0.1)
for t = 0 to 19
    tape_reset()
    w2 = param(w2v)
    pred = w2 * x
    loss2 = mean((pred - y_true) .^ 2)
    g = grad(loss2, wrt = w2)
    opt2 = optimizer_step(opt2, g)
    w2v = opt2._params[0]
end for
print("optimizer_step (adam): w -> {round(w2v, 4)} (target 2.0)")
tape_reset()

# One step each from w=1.0, grad=3.0 -- same optimizer_step(opt, grad) call.

w3 = param(1.0)
grad3 = [3.0]
r1 = optimizer_step(nesterov_sgd(w3, lr = 0.05, momentum = 0.9), grad3)
r2 = optimizer_step(adamw(w3, lr = 0.05), grad3)
r3 = optimizer_step(nadam(w3, lr = 0.05), grad3)
r4 = optimizer_step(adamax(w3, lr = 0.05), grad3)
r5 = optimizer_step(rmsprop(w3, lr = 0.05), grad3)
r6 = optimizer_step(adagrad(w3, lr = 0.05), grad3)
r7 = optimizer_step(adadelta(w3), grad3)
print("nesterov_sgd -> {round(r1._params[0], 4)}, adamw -> {round(r2._params[0], 4)}, nadam -> {round(r3._params[0], 4)}")
print("adamax -> {round(r4._params[0], 4)}, rmsprop -> {round(r5._params[0], 4)}, adagrad -> {round(r6._params[0], 4)}, adadelta -> {round(r7._params[0], 4)}")

Xxor = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]
Yxor = [0.0; 1.0; 1.0; 2.0]
net = input(2) |> dense(4, activation = "relu") |> dense(1, activation = "none") |>
      compile(optimizer = lr_plateau(lr = 0.1, patience = 5, base = "adam"), loss = "mse", seed = 7)
net = net.fit(Xxor, Yxor, epochs = 60)
n = length(net.loss_history)
print("compile + fit(lr_plateau): loss {round(net.loss_history[0], 4)} -> {round(net.loss_history[n - 1], 4)}")

net2 = input(2) |> dense(4, activation = "relu") |> dense(1, activation = "none") |>
       compile(optimizer = lr_adaptive(lr = 0.05), loss = "mse", seed = 7)
net2 = net2.fit(Xxor, Yxor, epochs = 60)
n2 = length(net2.loss_history)
print("compile + fit(lr_adaptive): loss {round(net2.loss_history[0], 4)} -> {round(net2.loss_history[n2 - 1], 4)}")

quick = quick_mlp(Xxor, Yxor, seed = 3)
nq = length(quick.loss_history)
print("quick_mlp: loss {round(quick.loss_history[0], 4)} -> {round(quick.loss_history[nq - 1], 4)}")""",
]


@builtin("tape_reset", category=CATEGORY,
         shapes=[Shape("tape_reset()", "no input", "no output",
                       "Discards every entry recorded so far on the autodiff tape.")],
         summary="Discards every entry recorded so far on the autodiff tape, freeing the memory a "
                 "chain of param/grad calls has built up. Call it between independent computations: "
                 "a program that never calls it keeps every tracked operation alive.",
         examples=_SEED_PROGRAMS,
         notes="Every tracked value remembers its node id and the generation of the tape it was "
               "recorded in. tape_reset() drops all entries (and with them every saved array) and "
               "starts a new generation; node ids keep counting up and are never reused.\n\n"
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
               "train_loop resets and re-wraps its parameters every epoch itself.")
def tape_reset():
    TAPE.reset()
    return None


@builtin("tape_size", category=CATEGORY,
         shapes=[Shape("tape_size()", "no input", "number",
                       "How many entries the tape holds now, leaves included.")],
         summary="The number of live entries on the autodiff tape: every param/track leaf and every "
                 "operation recorded since the last tape_reset().",
         examples=["tape_reset()\nw = param([1.0, 2.0])\ny = sum(w .* w)\nprint(tape_size())\n"
                   "tape_reset()\nprint(tape_size())"],
         notes="Each param() or track() adds one entry, and each operation with at least one "
               "tracked input adds one; operations on plain values add nothing. Use it to check "
               "that a long-running loop resets the tape.")
def tape_size():
    return float(TAPE.size())


@builtin("tape_limit", category=CATEGORY,
         shapes=[Shape("tape_limit(n)", "whole number", "number",
                       "Sets the entry count above which a warning is printed; returns the old one.")],
         summary="Sets how many live tape entries trigger the one-time warning that suggests "
                 "tape_reset() (5,000,000 by default) and returns the previous setting.",
         examples=["old = tape_limit(1000)\nprint(old)\ntape_limit(old)"],
         notes="A program that keeps recording without ever resetting the tape grows its memory "
               "without bound. When the number of live entries first passes the limit, one "
               "warning naming tape_reset() goes to stderr; it is printed again only after a "
               "reset or a new limit.")
def tape_limit(n):
    limit = as_int(n, "The tape limit", minimum=1)
    old = TAPE.warn_entries
    TAPE.warn_entries = limit
    TAPE.warned = False
    return float(old)
