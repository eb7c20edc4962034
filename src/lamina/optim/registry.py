"""Every optimizer family by name, and `get(name_or_optimizer)`."""
from __future__ import annotations

from ..errors import LaminaError
from ..values import describe
from .adagrad import ADADELTA, ADAGRAD
from .adam import ADAM, ADAMAX, ADAMW, NADAM
from .base import Optimizer, make
from .rmsprop import RMSPROP
from .sgd import NESTEROV_SGD, SGD

RULES = {r.name: r for r in (SGD, NESTEROV_SGD, ADAM, ADAMW, NADAM, ADAMAX, RMSPROP, ADAGRAD, ADADELTA)}


def get(name_or_optimizer) -> Optimizer:
    """An optimizer value as given, or a name's optimizer with default settings and no
    parameters yet (bind them with `.bind(params)`)."""
    if isinstance(name_or_optimizer, Optimizer):
        return name_or_optimizer
    if isinstance(name_or_optimizer, str):
        rule = RULES.get(name_or_optimizer)
        if rule is None:
            raise LaminaError("ValueError", f"There is no optimizer called '{name_or_optimizer}'; "
                              f"the optimizers are {', '.join(RULES)}.")
        return make(rule)
    raise LaminaError("TypeError", f"An optimizer must be an optimizer value or one of the names "
                      f"{', '.join(RULES)}, not {describe(name_or_optimizer)}.")
