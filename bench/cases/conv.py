"""Convolution (issue 40, B1): a conv2d layer's op forward and backward, and one epoch of a small
CNN on the digits images, in float32, Lamina against PyTorch (default thread count) and against
the same conv2d work written by hand in NumPy (im2col and one matrix product, no tape).

conv2d: 32 images 28 x 28 x 1 -> 32 filters 3 x 3 ("valid", stride 1, bias): Lamina's program
`y = conv2d(X, w, b)` alone, and `g = grad(sum(conv2d(X, w, b) .* R), wrt = [w, b])` with w and
b made by param() once (the images are data: neither side takes their gradient), against
torch.nn.functional.conv2d on the same numbers channels first (n x 1 x 28 x 28, kernel
32 x 1 x 3 x 3) with autograd. A third case also takes the images' gradient (a conv layer inside
a network). R is a fixed random array of the output's shape.

CNN epoch: the network of examples/cnn_digits.lam, conv2d(16, 3, "same", relu) -> max_pool(2) ->
conv2d(32, 3, "same", relu) -> max_pool(2) -> flatten -> dense(10, softmax), cross-entropy, Adam
(lr 0.005), batch 32, shuffled, on all 1,797 images of examples/data/digits.csv (57 steps):
Lamina's fit(net, X, Y, epochs = 1) compiled with dtype = "float32", against torch's nn.Conv2d,
ReLU, MaxPool2d, Flatten, Linear with CrossEntropyLoss and torch.optim.Adam. `bench/run.py --only
conv` runs this module alone.
"""
from __future__ import annotations

import pathlib

import numpy as np
from peers import lazy, needs, torch_epoch  # bench/peers.py

N, SIDE, FILTERS, K = 32, 28, 32, 3
CONV_SIZES = f"{N} images {SIDE} x {SIDE} x 1 -> {FILTERS} filters {K} x {K}, valid, bias"
DIGITS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "data" / "digits.csv"
BATCH, LR = 32, 0.005
CNN_SIZES = "1,797 images 8 x 8 x 1, conv 16 -> pool -> conv 32 -> pool -> dense 10, batch 32, one epoch"


def conv_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, SIDE, SIDE, 1)).astype(np.float32)
    w = (0.3 * rng.standard_normal((K, K, 1, FILTERS))).astype(np.float32)
    b = (0.1 * rng.standard_normal(FILTERS)).astype(np.float32)
    R = rng.standard_normal((N, SIDE - K + 1, SIDE - K + 1, FILTERS)).astype(np.float32)
    return X, w, b, R


# -- the conv2d op ----------------------------------------------------------------------
def lamina_conv(mode: str):
    """mode: "forward", "backward" (w and b), "backward x" (X, w and b)."""
    def setup():
        from lamina.interpreter import Interpreter
        from lamina.lang.scope import mangle
        interp = Interpreter()
        for name, value in zip(("X0", "w0", "b0", "R"), conv_data()):
            interp.namespace[mangle(name)] = value
        tracked = mode != "forward"
        interp.run(("X = param(X0)\n" if mode == "backward x" else "X = X0\n") +
                   ("w = param(w0)\nb = param(b0)" if tracked else "w = w0\nb = b0"), "<bench>")
        wrt = "[X, w, b]" if mode == "backward x" else "[w, b]"
        step = "y = conv2d(X, w, b)" if mode == "forward" else f"g = grad(sum(conv2d(X, w, b) .* R), wrt = {wrt})"
        code = interp.compile(step, "<bench>")
        return lambda: interp.run_code(code)
    return lazy(setup)


def numpy_conv(mode: str):
    """The same work by hand: im2col (one strided copy per offset), one product, and for the
    backward cols' R and R w' scattered back."""
    def setup():
        X, w, b, R = conv_data()
        out = SIDE - K + 1
        w2 = w.reshape(K * K, FILTERS)

        def forward():
            cols = np.empty((N, out, out, K, K), dtype=np.float32)
            for i in range(K):
                for j in range(K):
                    cols[:, :, :, i, j] = X[:, i:i + out, j:j + out, 0]
            cols = cols.reshape(-1, K * K)
            return cols, (cols @ w2 + b).reshape(N, out, out, FILTERS)

        def backward():
            cols, y = forward()
            loss = float(np.sum(y * R))
            g = R.reshape(-1, FILTERS)
            grads = [cols.T @ g, np.ones(len(g), dtype=np.float32) @ g]
            if mode == "backward x":
                dcols = (g @ w2.T).reshape(N, out, out, K, K)
                dx = np.zeros_like(X[..., 0])
                for i in range(K):
                    for j in range(K):
                        dx[:, i:i + out, j:j + out] += dcols[:, :, :, i, j]
                grads.append(dx)
            return loss, grads
        return (lambda: forward()[1]) if mode == "forward" else backward
    return lazy(setup)


def torch_conv(mode: str):
    return needs("torch") or lazy(lambda: _torch_conv(mode))


def _torch_conv(mode: str):
    import torch
    F = torch.nn.functional
    X, w, b, R = conv_data()
    Xt = torch.from_numpy(np.ascontiguousarray(X.transpose(0, 3, 1, 2)))
    wt = torch.from_numpy(np.ascontiguousarray(w.transpose(3, 2, 0, 1)))
    bt = torch.from_numpy(b)
    Rt = torch.from_numpy(np.ascontiguousarray(R.transpose(0, 3, 1, 2)))
    if mode == "forward":
        def forward():
            with torch.no_grad():
                return F.conv2d(Xt, wt, bt)
        return forward
    leaves = [wt.requires_grad_(), bt.requires_grad_()]
    if mode == "backward x":
        leaves.insert(0, Xt.requires_grad_())

    def backward():
        for t in leaves:
            t.grad = None
        (F.conv2d(Xt, wt, bt) * Rt).sum().backward()
        return [t.grad for t in leaves]
    return backward


# -- the CNN epoch ----------------------------------------------------------------------
CNN_PROGRAM = """
net = input(8, 8, 1) |> conv2d(16, 3, padding = "same", activation = "relu") |> max_pool(2) |>
      conv2d(32, 3, padding = "same", activation = "relu") |> max_pool(2) |> flatten() |>
      dense(10, activation = "softmax") |>
      compile(optimizer = adam(lr = {lr}), loss = "cross_entropy", seed = 1, dtype = "float32")
"""


def digits():
    data = np.loadtxt(DIGITS, delimiter=",", skiprows=1)
    return (data[:, :64] / 16).astype(np.float32).reshape(-1, 8, 8, 1), data[:, 64]


def lamina_cnn():
    def setup():
        from lamina.interpreter import Interpreter
        from lamina.lang.scope import mangle
        X, y = digits()
        interp = Interpreter()
        interp.run(CNN_PROGRAM.format(lr=LR), "<bench>")
        interp.namespace[mangle("X")], interp.namespace[mangle("Y")] = X, y
        step = interp.compile(f"trained = fit(net, X, Y, epochs = 1, batch_size = {BATCH}, verbose = 0)",
                              "<bench>")
        return lambda: interp.run_code(step)
    return lazy(setup)


def torch_cnn():
    return needs("torch") or lazy(_torch_cnn)


def _torch_cnn():
    import torch
    nn = torch.nn
    torch.manual_seed(0)
    X, y = digits()
    Xt, yt = torch.from_numpy(np.ascontiguousarray(X.transpose(0, 3, 1, 2))), torch.from_numpy(y.astype(np.int64))
    net = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(128, 10))
    return torch_epoch(net, Xt, yt, LR, BATCH)


def one_thread(make, peer: str):
    """A peer's repetition run with one thread: OpenBLAS held to one (Lamina, NumPy), or
    torch.set_num_threads(1). On a machine whose cores other processes want, every peer's
    threads wait on them (torch's most), so this pair compares the work itself."""
    def setup():
        if peer == "torch":
            import torch
            torch.set_num_threads(1)
        else:
            from threadpoolctl import ThreadpoolController
            ThreadpoolController().limit(limits=1, user_api="blas")   # kept for the process
        return make()
    return lazy(setup)


def cases() -> list[dict]:
    out = []
    for mode, what in (("forward", "forward"), ("backward", "forward + backward (w, b)"),
                       ("backward x", "forward + backward (images, w, b)")):
        out.append({"name": f"conv2d: {what}", "sizes": CONV_SIZES, "dtype": "float32", "repeat": 60,
                    "rounds": 4, "goal": {"peer": "torch float32", "within": 1.2},
                    "impls": {"lamina": lamina_conv(mode), "torch float32": torch_conv(mode),
                              "numpy float32 (by hand)": numpy_conv(mode)}})
    out.append({"name": "cnn: fit one epoch on the digits", "sizes": CNN_SIZES, "dtype": "float32",
                "repeat": 12, "rounds": 4, "goal": {"peer": "torch float32", "within": 1.2},
                "impls": {"lamina": lamina_cnn(), "torch float32": torch_cnn()}})
    single = "; one thread on every side (torch.set_num_threads(1), OpenBLAS held to one)"
    out.append({"name": "conv2d: forward + backward (w, b), one thread", "sizes": CONV_SIZES + single,
                "dtype": "float32", "repeat": 60, "rounds": 4, "goal": {"peer": "torch float32", "within": 1.2},
                "impls": {"lamina": one_thread(lambda: lamina_conv("backward"), "lamina"),
                          "torch float32": needs("torch") or one_thread(lambda: torch_conv("backward"), "torch")}})
    out.append({"name": "cnn: fit one epoch on the digits, one thread", "sizes": CNN_SIZES + single,
                "dtype": "float32", "repeat": 12, "rounds": 4, "goal": {"peer": "torch float32", "within": 1.2},
                "impls": {"lamina": one_thread(lamina_cnn, "lamina"),
                          "torch float32": needs("torch") or one_thread(torch_cnn, "torch")}})
    return out
