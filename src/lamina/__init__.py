"""Lamina: a small array language for statistics and machine learning."""
from . import malloc_tuning as _malloc_tuning

# Keep freed large arrays in the heap for reuse (glibc only; LAMINA_MALLOC_TUNING=0 turns it off).
_malloc_tuning.tune()

import numpy as _np  # noqa: E402

# Lamina arithmetic is IEEE: 1/0 is Inf and 0/0 is NaN, without warnings.
_np.seterr(all="ignore")

__version__ = "0.1.0"
