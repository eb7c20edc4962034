"""cross_entropy from logits with a -Inf score where the target is 0 (checked against torch)."""
import subprocess
import sys
from pathlib import Path

import numpy as np

from lamina.nn import losses as L

LAMINA = str(Path(sys.executable).with_name("lamina"))


def test_cross_entropy_minus_inf_logit_off_target_is_finite():
    # torch.nn.functional.cross_entropy([[0, -inf], [1, 2]], [0, 1]) = 0.15663084375911143
    code = "print(cross_entropy([0.0, -Inf; 1.0, 2.0], [0, 1]))"
    out = subprocess.run([LAMINA, "-e", code], capture_output=True, text=True).stdout
    assert out == "0.15663084375911143\n"


def test_cross_entropy_minus_inf_logit_soft_targets_and_float32():
    for dtype in (np.float64, np.float32):
        s = np.array([[0.0, -np.inf, 1.0]], dtype)
        t = np.array([[0.25, 0.0, 0.75]], dtype)
        # by hand: log_softmax of [0, 1] (the -Inf class has probability 0)
        lse = np.log1p(np.exp(1.0))
        expected = 0.25 * lse + 0.75 * (lse - 1.0)
        got = L.cross_entropy(s, t)
        assert np.isclose(got, expected, rtol=1e-6)


def test_binary_cross_entropy_float32_probability_one_is_clipped_finite():
    # help: "a probability of exactly 0 or 1 gives a large finite loss rather than Inf"
    x = np.array([1.0, 0.0], np.float32)
    y = np.array([0.0, 1.0], np.float32)
    # both probabilities clip into [1e-12, 1 - 1e-12], by hand in float64 (as for float64 input)
    expected = -(np.log1p(-(1.0 - 1e-12)) + np.log(1e-12)) / 2
    assert np.isclose(L.binary_cross_entropy(x.astype(np.float64), y), expected, rtol=1e-12)
    assert np.isclose(L.binary_cross_entropy(x, y), expected, rtol=1e-9)
