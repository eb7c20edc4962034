"""Every module that registers builtins; importing this module registers them all."""
# ruff: noqa: F401
from . import (
    autodiff,
    core,
    data,
    distributions,
    figures,
    gru,
    losses,
    lr_schedules,
    mathfns,
    metrics,
    models,
    nn,
    optimizers,
    random,
    regression,
    sampling,
    stats,
    tensors,
    text,
    training,
)
