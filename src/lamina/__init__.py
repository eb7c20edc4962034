"""Lamina: a small array language for statistics and machine learning."""
import numpy as _np

# Lamina arithmetic is IEEE: 1/0 is Inf and 0/0 is NaN, without warnings.
_np.seterr(all="ignore")

__version__ = "0.1.0"
