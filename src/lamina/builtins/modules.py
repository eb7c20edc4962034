"""Every module that registers builtins; importing this module registers them all."""
# ruff: noqa: F401
from . import core, mathfns, tensors, random, text, autodiff, nn, losses, gru, optimizers, training
from . import stats, sampling, distributions, regression, metrics, data, figures
from . import models, lr_schedules
