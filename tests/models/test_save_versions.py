"""Model files written before the layer protocol of any rank (format version 2, saved by Lamina at
commit 0d56f93 by tests/models/data/make_v2.lam) still load: the same predictions, losses, and a
further fit giving the same loss history and weights as that Lamina gave (v2_expected.npz holds
what it computed: for each model, predict and evaluate on X and Y, then fit(epochs = 2,
batch_size = 3) and predict again)."""
import pathlib

import numpy as np
import pytest

from lamina.models.evaluate import evaluate, predict
from lamina.models.fit import fit
from lamina.models.save import load_model

DATA = pathlib.Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def expected():
    with np.load(DATA / "v2_expected.npz") as f:
        return {k: f[k] for k in f.files}


@pytest.mark.parametrize("name, dtype", [("sequences", np.float64), ("mlp_float32", np.float32),
                                         ("gru", np.float64)])
def test_a_version_2_file_loads_and_goes_on_as_it_did(expected, name, dtype):
    net = load_model(str(DATA / f"v2_{name}.npz"))
    assert net.dtype is dtype
    X, Y = expected[f"{name}_X"], expected[f"{name}_Y"]
    # the same up to the last bits of the matrix products, which differ between BLAS kernels
    # (OpenBLAS's Haswell and SkylakeX ones here: one or two units in the last place)
    same = dict(rtol=64 * np.finfo(dtype).eps, atol=0)
    np.testing.assert_allclose(predict(net, X), expected[f"{name}_predict"], **same)
    np.testing.assert_allclose(evaluate(net, X, Y).fields["loss"], expected[f"{name}_loss"], **same)
    again = fit(net, X, Y, epochs=2, batch_size=3, verbose=0)
    np.testing.assert_allclose(again.loss_history, expected[f"{name}_refit"], **same)
    np.testing.assert_allclose(predict(again, X), expected[f"{name}_refit_predict"], **same)


def test_the_version_2_files_hold_what_their_program_made():
    seqs = load_model(str(DATA / "v2_sequences.npz"))
    assert [layer.kind for layer in seqs.spec.layers] == ["embedding", "layer_norm", "gru", "dropout", "dense"]
    assert seqs.spec.example == (4,) and seqs.epochs == 3 and seqs.schedule is not None
    rnn = load_model(str(DATA / "v2_gru.npz"))
    assert rnn.spec.example == (3, 2) and rnn.loss.name == "binary_cross_entropy"
