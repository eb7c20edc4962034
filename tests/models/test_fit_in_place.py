"""fit trains a private copy of the model's optimizer in place: the model it was given, and every
model an earlier fit returned, keep their weights (tests/optim/test_in_place.py has the rules)."""
import numpy as np

from lamina.models.fit import fit


def test_fit_leaves_the_model_it_was_given_as_it_was(build, xor):
    x, y = xor
    net = build([(4, "relu"), (1, "none")], lr=0.05, seed=0)
    weights = [p.copy() for p in net.params]
    first = fit(net, x, y, epochs=5, batch_size=2, verbose=0)
    assert all(np.array_equal(a, b) for a, b in zip(net.params, weights))
    again = fit(net, x, y, epochs=5, batch_size=2, verbose=0)
    assert all(np.array_equal(a, b) for a, b in zip(first.params, again.params))
    assert not any(np.shares_memory(a, b) for a, b in zip(first.params, again.params))
    more = fit(first, x, y, epochs=1, verbose=0)           # a second fit does not touch the first's
    assert not any(np.array_equal(a, b) for a, b in zip(first.params, more.params))
    assert all(np.array_equal(a, b) for a, b in zip(first.params, again.params))
