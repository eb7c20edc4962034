"""Layer normalisation of each row of a matrix, forward and backward on plain arrays, for the layers
that fuse it into a larger step (models/layers/transformer_block.py normalises each step's
features) and for layer_norm_op (models/layers/layer_norm.py), the layer_norm layer's tape
entry. With the biased variance and eps inside the square root, as torch's layer_norm,

    xhat = (x - mean) / sqrt(var + eps),   y = xhat .* gain + bias
    dx = (d - mean(d) - xhat .* mean(d .* xhat)) / sqrt(var + eps),   d = g .* gain

the means over each row, dgain and dbias the column sums of g .* xhat and g.
"""
from __future__ import annotations

import numpy as np

EPS = 1e-5


def forward(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float = EPS):
    """(y, xhat, rstd): the normalised rows, scaled and shifted; what backward reads."""
    xhat = x - x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(np.mean(xhat * xhat, axis=1, keepdims=True) + eps)
    xhat *= rstd
    y = xhat * gain
    y += bias
    return y, xhat, rstd


def backward(g: np.ndarray, gain: np.ndarray, xhat: np.ndarray, rstd: np.ndarray):
    """(dx, dgain, dbias) for the gradient g of forward's y."""
    d = g * gain
    dx = d - d.mean(axis=1, keepdims=True)
    d *= xhat
    dx -= xhat * d.mean(axis=1, keepdims=True)
    dx *= rstd
    return dx, (g * xhat).sum(axis=0, keepdims=True), g.sum(axis=0, keepdims=True)
