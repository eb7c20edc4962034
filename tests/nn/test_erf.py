"""nn/erf.py: the float32 erf against SciPy's (double precision) over the whole line, its limits,
NaN, and gelu in float32 through it against torch's float32 gelu, value and slope."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.special import erf

from lamina.nn.activation_table import ACTIVATIONS
from lamina.nn.erf import erf_float32


def test_within_five_tenths_of_a_millionth_of_scipy_everywhere():
    x = np.linspace(-7, 7, 1_400_001).astype(np.float32)
    ours = erf_float32(x)
    assert ours.dtype == np.float32
    error = np.abs(ours.astype(np.float64) - erf(x.astype(np.float64)))
    assert error.max() < 4.5e-7
    assert np.abs(ours).max() <= 1.0
    np.testing.assert_array_equal(ours, -erf_float32(-x))            # odd, to the bit


def test_limits_zero_and_nan():
    x = np.array([-np.inf, -10.0, 0.0, 10.0, np.inf, np.nan], dtype=np.float32)
    out = erf_float32(x)
    np.testing.assert_array_equal(out[:5], [-1.0, -1.0, 0.0, 1.0, 1.0])
    assert np.isnan(out[5])


def test_float32_gelu_and_its_slope_agree_with_torch_float32():
    torch = pytest.importorskip("torch")
    gelu = ACTIVATIONS["gelu"]
    z = np.linspace(-8, 8, 40_001).astype(np.float32)
    g = np.ones_like(z)
    y = gelu.forward(z.copy())
    slope = gelu.backward(g, z, y)
    tz = torch.tensor(z, requires_grad=True)
    ty = torch.nn.functional.gelu(tz)
    ty.backward(torch.ones_like(tz))
    assert y.dtype == np.float32 and slope.dtype == np.float32
    np.testing.assert_allclose(y, ty.detach().numpy(), rtol=0, atol=2e-6)
    np.testing.assert_allclose(slope, tz.grad.numpy(), rtol=0, atol=2e-6)
