"""The error function of a float32 array in NumPy's own passes, for gelu.

SciPy's erf computes each element in double precision with a scalar routine: about 16 ns an
element here, so the gelu of a 2048 x 512 float32 activation took 16 ms forward and 16 more
backward, while the products around it take 3 ms (bench/cases/transformer.py). float32 needs
less: this is the rational approximation Eigen and XLA use for float32 erf,

    erf(x) = x p(x^2) / q(x^2)  on x clamped to [-4, 4]   (erf(4) rounds to 1 in float32),

p of degree 6 and q of degree 4 in x^2, evaluated by Horner's rule in place on two buffers:
about 26 passes over the array, the result held to [-1, 1], 1.5 ms for that activation. Its error is at most 4.5e-7
(7 units in the last place near |x| = 3.2; SciPy's, rounded to float32, 3e-8), well inside
what float32 arithmetic loses elsewhere in a network (tests/nn/test_erf.py). float64 arrays
keep SciPy's erf, accurate to the last bit.
"""
from __future__ import annotations

import numpy as np

# Numerator (odd: x times a polynomial in x^2) and denominator (even), highest power first.
NUMERATOR = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
             -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02)
DENOMINATOR = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
               -7.37332916720468e-03, -1.42647390514189e-02)
LIMIT = 4.0


def _horner(x2: np.ndarray, coefficients) -> np.ndarray:
    out = np.multiply(x2, np.float32(coefficients[0]))
    out += np.float32(coefficients[1])
    for c in coefficients[2:]:
        out *= x2
        out += np.float32(c)
    return out


def erf_float32(v: np.ndarray) -> np.ndarray:
    """erf of a float32 array, as a new float32 array (see the module's docstring)."""
    x = np.clip(v, -LIMIT, LIMIT)
    x2 = x * x
    p = _horner(x2, NUMERATOR)
    p *= x
    p /= _horner(x2, DENOMINATOR)
    return np.clip(p, -1.0, 1.0, out=p)             # the ratio passes 1 by 2e-7 near the ends
