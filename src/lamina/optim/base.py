"""The one optimizer value: a rule (the family's pure update), hyperparameters, state,
step count and parameters. Immutable: stepping returns a new optimizer.

A family is a `Rule`: its settings (each a default and the Range it accepts) and an update
    update(w, g, state, hp, t) -> (new w, new state)
on one parameter, where `state` is a dict of arrays (or floats) named by `slots`,
initially zeros, `hp` the hyperparameters and t the step number, counted from 1.

`Optimizer.advance(grads)` is the one place an update is applied to a value; `step`
checks the gradients a program gives and calls it. The training step that fit and
train_loop share (optim/train_step.py) instead trains a `private()` copy, which no
other value shares, and updates it with `advance_in_place`: the rule's in-place form
(`update_in_place(w, g, state, hp, t, scratch, out=None)`, writing into w, or into `out` when
given, and the state arrays, with the same arithmetic in the same order, its temporaries in
`scratch`, an array of w's shape and dtype whose contents mean nothing between steps and
which may be `out` itself) where it has one, else its update copied back into
the parameter's own arrays. So a trainer allocates no new weights per step, and every
parameter and state array keeps its dtype; the optimizer values a program holds never
change.

A program's `opt = optimizer_step(opt, g)` (`step`, for a rule with an in-place form) makes
an optimizer whose update is pending: it holds the old optimizer and the checked gradients,
and applies them when its parameters or state are first read. By then the statement has
rebound `opt`, so the old optimizer is often held by nothing but the pending step; when
ownership.py proves that (no other holder of it, its containers or its state arrays), the
update is written into the old optimizer's own arrays, which the new one takes over, except
that a parameter array some other value holds gets its new value in a new array (`params`
hands out the optimizer's own arrays, not copies, and a loop's `q = param(opt.params)`
still holds them when the next step is applied: one new array instead of a copy each);
otherwise into a private() copy, as `advance` does. Same numbers either way, and an
optimizer or array a program still holds never changes.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from ..autodiff import handed
from ..errors import LaminaError
from ..values import LibObject, Range
from .ownership import held_parameters
from .params import Structure, checked_gradients, flatten, gradient_items, origins

NONNEGATIVE = Range(0.0)                        # a rate, eps, weight decay: at least 0, finite
FRACTION = Range(0.0, 1.0)                      # momentum, the betas, rho: from 0 up to 1


@dataclass(frozen=True)
class Rule:
    name: str
    settings: dict          # hyperparameter -> (default, Range), lr first
    slots: tuple            # names of the per-parameter state, each starting at zeros
    update: Callable        # (w, g, state, hp, t) -> (w, state)
    formula: str            # the update as the docs write it
    # (w, g, state, hp, t, scratch, out=None): writes into w (or out, a new array) and state
    update_in_place: Callable | None = None
    # Its constructor builtin's page (builtins/optimizers.py registers one for each rule of RULES):
    summary: str = ""
    example: str = ""       # a Lamina program, run by the docs build
    remark: str = ""        # how it compares with torch's and Keras's rule of the same name

    @property
    def defaults(self) -> dict:
        return {k: default for k, (default, _) in self.settings.items()}


def one_step_example(name: str, settings: str = "") -> str:
    """The usual example of a rule's page: one step from w = 1 with the gradient 3."""
    return (f"w = param(1.0)\nopt = {name}(w{settings})\nopt = optimizer_step(opt, 3.0)\n"
            f"print(round(opt.params, 4))")


def _check(rule: Rule, name: str, value) -> float:
    return rule.settings[name][1].check(value, f"{rule.name}'s {name}")


def hyperparameters(rule: Rule, lr, options: dict) -> dict:
    """The rule's defaults overridden by lr and the keyword options, each checked."""
    for k in options:
        if k not in rule.defaults:
            raise LaminaError("TypeError", f"{rule.name} has no setting '{k}'; it accepts "
                              f"{', '.join(rule.defaults)}.")
    if lr is not None:
        options = {**options, "lr": lr}
    hp = {**rule.defaults, **options}
    return {k: _check(rule, k, v) for k, v in hp.items()}


_INTERRUPTED = "interrupted"      # the pending slot of a step stopped part way in place


def _zeros_like(w):
    return np.zeros_like(w) if isinstance(w, np.ndarray) else 0.0


def _copy(x):
    return x.copy() if isinstance(x, np.ndarray) else x


def _as_plain(x, like):
    """An update's result as the kind of value the parameter is: float, or a fresh array of the
    parameter's shape and dtype (so a float32 parameter's state is float32 too)."""
    if isinstance(like, np.ndarray):
        return np.array(x, dtype=like.dtype).reshape(like.shape)
    return float(x)


@dataclass(frozen=True, eq=False)
class Optimizer(LibObject):
    rule: Rule
    hp: dict
    structure: Structure | None = None      # None: not yet given parameters
    params: tuple = field(default_factory=tuple)    # both absent while a step is pending:
    state: tuple = field(default_factory=tuple)     # reading one applies it (__getattr__)
    t: int = 0
    # A trainer's private copy's scratch arrays, one per array parameter (see `private`).
    scratch: tuple = field(default=(), repr=False)
    # Per parameter, the node id of the tracked value its current value was last taken from:
    # the one it was given as, or the target of the gradient of the latest step (see `step`).
    origins: tuple = field(default=(), repr=False)
    _pending: tuple | None = field(default=None, init=False, repr=False)   # (old optimizer, grads)

    type_name = "optimizer"

    def field_names(self) -> list[str]:
        return ["name", *self.rule.defaults, "params", "_params", "_step"]

    def get(self, name: str):
        if name == "name":
            return self.rule.name
        if name in self.hp:
            return self.hp[name]
        if name == "params":
            if not self.bound:
                raise LaminaError("ValueError", f"This {self.rule.name} optimizer holds settings only; "
                                  f"it has no parameters.")
            return self.param_values()
        if name == "_params":
            return list(self.params)
        if name == "_step":
            return float(self.t)
        return super().get(name)

    def describe(self) -> str:
        settings = ", ".join(f"{k}={v:g}" for k, v in self.hp.items())
        n = len(self.params)
        frozen = sum(self.structure.frozen) if self.bound else 0
        held = f" ({frozen} frozen)" if frozen else ""
        return (f"<optimizer {self.rule.name}({settings}), {n} parameter{'s' if n != 1 else ''}{held}, "
                f"{self.t} step{'s' if self.t != 1 else ''}>")

    @property
    def bound(self) -> bool:
        return self.structure is not None

    def bind(self, params, what: str = "The parameters") -> "Optimizer":
        """The same settings over new parameters, with fresh state and step count 0."""
        structure, values = flatten(params, what)
        return replace(self, structure=structure, params=tuple(values),
                       state=tuple({s: _zeros_like(w) for s in self.rule.slots} for w in values), t=0,
                       origins=origins(params))

    def with_hp(self, **changes) -> "Optimizer":
        """The same optimizer with some hyperparameters changed (schedules use this for lr)."""
        return replace(self, hp={**self.hp, **{k: _check(self.rule, k, v) for k, v in changes.items()}})

    def param_values(self):
        """The current plain parameter values in the container they were given in: the
        optimizer's own arrays, not copies (a pending step never writes into an array another
        value holds, see `_apply_pending`, so what was handed out never changes)."""
        return self.structure.build(list(self.params))

    def step(self, g, lr=None) -> "Optimizer":
        """One update from gradients a program gives (checked against the parameters), at rate
        `lr` if given (the result keeps it)."""
        if not self.bound:
            raise LaminaError("ValueError", f"This {self.rule.name} optimizer has no parameters to "
                              f"step; give them as its first argument, {self.rule.name}(params, ...).")
        items = gradient_items(self.structure, self.params, g, "optimizer_step")
        grads = checked_gradients(self.structure, self.params, items)
        taken = [handed.lookup(item) for item in items]
        self._check_taken_at(taken)
        came_from = tuple(None if given is None else given.node for given in taken)
        opt = self if lr is None else self.with_hp(lr=lr)
        if self.rule.update_in_place is None:
            return opt.advance(grads, came_from)
        return opt._deferred(grads, came_from)

    def _check_taken_at(self, taken: list) -> None:
        """A TapeError if a gradient was taken at the tracked value a parameter's current value
        came from before the latest step (a loop that differentiates against one param() leaf
        every step, which the optimizer's steps never move), and that value is no longer the
        parameter's."""
        for i, given in enumerate(taken):
            if given is None or not self.origins or given.node != self.origins[i] \
                    or self.structure.is_frozen(i):
                continue
            at, now = given.taken_at(), self.params[i]
            if at is None or np.array_equal(at, now):
                continue
            name = self.structure.label(i)
            moved = f" (taken at {_value_words(at)}, now {_value_words(now)})" if np.size(at) <= 4 else ""
            raise LaminaError("TapeError", f"optimizer_step got a gradient for {name} taken at a "
                              f"value the optimizer has already stepped away from{moved}: grad() was "
                              f"taken with respect to the same param() value as before the last step, "
                              f"and steps never change that value. Take each step's gradient at the "
                              f"optimizer's parameters: "
                              f"q = param(opt.params), the loss from q, then "
                              f"optimizer_step(opt, grad(loss, wrt = q)).")

    def _deferred(self, grads: list, came_from: tuple) -> "Optimizer":
        """`advance(grads)`, applied when the result's parameters or state are first read
        (the module's docstring says why). The gradients are checked; applying cannot fail."""
        new = replace(self, params=(), state=(), t=self.t + 1, origins=came_from)
        object.__delattr__(new, "params")
        object.__delattr__(new, "state")
        object.__setattr__(new, "_pending", (self, grads))
        return new

    def __getattr__(self, name: str):
        # Called only for a missing attribute: the parameters or state of a pending step.
        # (No local name for the pending tuple: it would hold the old optimizer too.)
        if name in ("params", "state") and self.__dict__.get("_pending") is not None:
            if self._pending is _INTERRUPTED:
                raise LaminaError("ValueError", "This optimizer's step was interrupted while it was "
                                  "being applied, so its parameters are lost; start again from an "
                                  "optimizer made before it.")
            self._apply_pending()
            return self.__dict__[name]
        raise AttributeError(f"'Optimizer' object has no attribute '{name}'")

    def _apply_pending(self) -> None:
        source, grads = self._pending
        object.__setattr__(self, "_pending", None)
        # None: someone else holds the old optimizer, a container or a state array; otherwise
        # which parameter arrays others hold (those handed out by `params`, wrapped by param()),
        # whose new values go into new arrays
        held = held_parameters(source)
        in_place = held is not None
        target = source if in_place else source.private()
        try:
            target.advance_in_place(grads, held or ())
        except BaseException:       # an interrupt (Ctrl-C) part way: a copy is dropped and the
            object.__setattr__(self, "_pending", _INTERRUPTED if in_place else (source, grads))
            raise                   # step stays pending; the old arrays, part written, are lost
        object.__setattr__(self, "params", target.params)
        object.__setattr__(self, "state", target.state)

    def __getstate__(self) -> dict:
        """For pickle and copy: the step applied, so the old optimizer does not travel along."""
        if self._pending is not None:
            self.params             # reading applies it
        return dict(self.__dict__)

    def advance(self, grads: list, origins: tuple | None = None) -> "Optimizer":
        """The optimizer after one update with `grads`: plain values, one per parameter, each
        of its parameter's shape (the caller has checked them). `origins`: the new one's (`step`
        gives the gradients' targets), else this one's; set as it is made, not on a copy."""
        if self.rule.update_in_place is not None:
            # The in-place rule on fresh copies: the same numbers as the pure update (tested),
            # with three new arrays per parameter instead of a dozen temporaries.
            new = self.private().advance_in_place(grads)
            if origins is not None:         # the private copy is new: nobody else holds it
                object.__setattr__(new, "origins", origins)
            return new
        t = self.t + 1
        params, states = [], []
        for i, (w, gw, s) in enumerate(zip(self.params, grads, self.state)):
            if self.structure.is_frozen(i):          # a track() value: kept as it is
                params.append(w)
                states.append(s)
                continue
            new_w, new_s = self.rule.update(w, gw, s, self.hp, t)
            params.append(_as_plain(new_w, w))
            states.append({k: _as_plain(v, w) for k, v in new_s.items()})
        return replace(self, params=tuple(params), state=tuple(states), t=t,
                       origins=self.origins if origins is None else origins)

    def private(self, scratch: bool = False) -> "Optimizer":
        """A copy whose arrays no other value shares: what a trainer updates in place, and
        what it keeps as a snapshot (early stopping's best epoch). With `scratch`, it also
        holds one scratch array per array parameter for the in-place rule's temporaries, so
        that its steps allocate nothing; a trainer hands out `without_scratch()` at the end."""
        spare = tuple(np.empty_like(p) if isinstance(p, np.ndarray) else None for p in self.params) \
            if scratch and self.rule.update_in_place is not None else ()
        return replace(self, params=tuple(_copy(p) for p in self.params),
                       state=tuple({k: _copy(v) for k, v in s.items()} for s in self.state), scratch=spare)

    def without_scratch(self) -> "Optimizer":
        """The same optimizer without a trainer's scratch arrays (the memory they hold)."""
        return replace(self, scratch=()) if self.scratch else self

    def advance_in_place(self, grads: list, held: tuple = ()) -> "Optimizer":
        """`advance`, writing into this optimizer itself (its arrays, and its step count and
        number parameters through the frozen fields); only for one made by `private()` that
        the caller holds alone, or one whose arrays ownership.py proves nobody else holds but
        the parameters flagged in `held`: their new values go into new arrays (with the same
        arithmetic: the rule's last pass writes there instead of into the old array, which
        its holders keep as it was). Returns it. The gradients are read, never written."""
        t = self.t + 1
        rule, hp = self.rule, self.hp
        params = list(self.params)
        scratch = self.scratch
        frozen = self.structure.is_frozen
        for i, (w, gw, s) in enumerate(zip(self.params, grads, self.state)):
            if frozen(i):                               # a track() value: kept as it is
                continue
            if not isinstance(w, np.ndarray):           # a number: a new float, as advance does
                new_w, new_s = rule.update(w, gw, s, hp, t)
                params[i] = float(new_w)
                s.update({k: float(v) for k, v in new_s.items()})
            elif rule.update_in_place is not None:
                if held and held[i]:                    # the new array is the scratch as well
                    out = np.empty_like(w)
                    rule.update_in_place(w, gw, s, hp, t, scratch[i] if scratch else out, out=out)
                    params[i] = out
                else:
                    rule.update_in_place(w, gw, s, hp, t, scratch[i] if scratch else np.empty_like(w))
            else:
                new_w, new_s = rule.update(w, gw, s, hp, t)
                if held and held[i]:
                    params[i] = _as_plain(new_w, w)
                else:
                    np.copyto(w, new_w)
                for k, v in new_s.items():
                    np.copyto(s[k], v)
        object.__setattr__(self, "params", tuple(params))
        object.__setattr__(self, "t", t)
        return self


def _value_words(x) -> str:
    if isinstance(x, np.ndarray):
        return f"[{', '.join(f'{v:g}' for v in x.ravel())}]"
    return f"{x:g}"


def make(rule: Rule, params=None, lr=None, **options) -> Optimizer:
    """An optimizer of `rule` over `params` (none: settings only, bound later with `bind`)."""
    opt = Optimizer(rule, hyperparameters(rule, lr, options))
    return opt if params is None else opt.bind(params, f"{rule.name}'s parameters")
