import numpy as np
import pytest

from lamina.models.compile import compile_model
from lamina.models.layers.dense import dense_layer
from lamina.models.layers.dropout import dropout_layer
from lamina.models.spec import input_spec
from lamina.optim.registry import get


def _build(layers, inputs=2, loss="mse", optimizer="adam", lr=None, seed=0):
    """A compiled model from [(units, activation) or ("dropout", rate), ...]."""
    spec = input_spec(float(inputs))
    for a, b in layers:
        spec = dropout_layer(spec, b) if a == "dropout" else dense_layer(spec, float(a), b)
    opt = get(optimizer) if lr is None else get(optimizer).with_hp(lr=lr)
    return compile_model(spec, opt, loss, float(seed))


@pytest.fixture
def xor():
    return np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]), np.array([[0.0], [1.0], [1.0], [2.0]])


@pytest.fixture
def blobs():
    """120 rows of 3 features in 3 well separated classes (labels 0, 1, 2)."""
    rng = np.random.default_rng(5)
    labels = np.repeat([0.0, 1.0, 2.0], 40)
    centers = np.array([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]])
    return centers[labels.astype(int)] + 0.5 * rng.standard_normal((120, 3)), labels


@pytest.fixture
def build():
    return _build
