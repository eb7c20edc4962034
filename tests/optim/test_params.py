"""A value computed from tracked ones trains from its current value; only a track() leaf is frozen."""
import numpy as np

LOSS = "function loss_fn(q)\n    return sum((q - [3, 4]) .^ 2)\nend function\n"


def torch_sgd(start, steps=5, lr=0.1):
    # sgd on sum((w - [3, 4])^2) by hand, as torch.optim.SGD steps it: w -= lr * 2 (w - t)
    w, t, losses = np.array(start), np.array([3.0, 4.0]), []
    for _ in range(steps):
        losses.append(float(np.sum((w - t) ** 2)))
        w = w - lr * 2 * (w - t)
    return losses, w


def test_a_tracked_value_after_an_indexed_store_trains(run):
    _, interp = run("w = param([0.0, 1.0])\nw[0] = 0.5\n" + LOSS +
                    'r = train_loop(loss_fn, w, 5, optimizer = sgd(w, lr = 0.1), returning = "all")')
    losses, w = torch_sgd([0.5, 1.0])
    r = interp.get("r").fields
    np.testing.assert_allclose(r["losses"], losses, rtol=1e-15)
    np.testing.assert_allclose(r["params"], w, rtol=1e-15)


def test_only_a_track_leaf_is_frozen(run):
    lines, _ = run("o = sgd({a = track(1.0), b = param(2.0) * 1, c = track(1.0) * 2}, lr = 0.1)\nprint(o)\n"
                   "o = optimizer_step(o, {a = 1, b = 1, c = 1})\nprint(o.params)")
    assert lines == ["<optimizer sgd(lr=0.1, momentum=0), 3 parameters (1 frozen), 0 steps>",
                     "{a=1, b=1.9, c=1.9}"]
