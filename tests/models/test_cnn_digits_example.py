"""examples/cnn_digits.lam: it runs, its network is the one its comments describe, and on
digits.lam's held-out quarter the convolutional network reads more images right than the
perceptron of digits.lam (which it trains beside it on the same split)."""
import contextlib
import io
import pathlib
import re

from lamina.interpreter import Interpreter

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_cnn_beats_the_perceptron_on_the_held_out_images(monkeypatch):
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run((ROOT / "examples" / "cnn_digits.lam").read_text(), "examples/cnn_digits.lam")
    text = out.getvalue()
    assert "m x 8 x 8 x 16" in text and "m x 2 x 2 x 32" in text and "total parameters: 6090" in text
    accuracy = {name: float(value) for name, value in
                re.findall(r"^(\w[\w ]*?)(?: \(digits.lam\))?: held-out accuracy ([\d.]+)%", text, re.M)}
    assert set(accuracy) == {"convolutional network", "perceptron"}
    assert accuracy["convolutional network"] > accuracy["perceptron"]
    assert accuracy["convolutional network"] >= 98.0
    loss = re.search(r"loss ([\d.]+) -> ([\d.]+)", text)
    assert float(loss.group(2)) < 0.05 * float(loss.group(1))
