"""Lamina: a small array language for statistics and machine learning."""
from . import malloc_tuning as _malloc_tuning

# Keep freed large arrays in the heap for reuse (glibc only; LAMINA_MALLOC_TUNING=0 turns it off).
_malloc_tuning.tune()

import gc as _gc  # noqa: E402

import numpy as _np  # noqa: E402

# A tape is many small tuples and closures (autodiff/tape.py), which the cycle collector would
# walk again and again while a long chain of tracked ops is built: about 13% of a scalar op
# (bench/NOTES.md). The tape forms no cycles, so collect the youngest generation less often.
_threshold = _gc.get_threshold()
if _threshold[0] < 10_000:
    _gc.set_threshold(10_000, *_threshold[1:])

# Lamina arithmetic is IEEE: 1/0 is Inf and 0/0 is NaN, without warnings.
_np.seterr(all="ignore")

__version__ = "0.1.0"
