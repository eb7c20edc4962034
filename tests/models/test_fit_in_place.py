"""fit trains a private copy of the model's optimizer in place: the model it was given, and every
model an earlier fit returned, keep their weights (tests/optim/test_in_place.py has the rules)."""
import numpy as np
import pytest

from lamina.models.fit import fit

pytestmark = pytest.mark.ownership      # .ci/run runs these on every Python


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


def test_fit_steps_through_scratch_arrays_that_stay_with_that_fit(build, xor, monkeypatch):
    """The private copy fit trains holds one scratch array per parameter for Adam's temporaries;
    the model fit returns holds none, and a second fit from it makes its own."""
    from lamina.optim.base import Optimizer
    x, y = xor
    seen = []
    real = Optimizer.advance_in_place

    def spy(self, grads):
        seen.append(self.scratch)
        return real(self, grads)
    monkeypatch.setattr(Optimizer, "advance_in_place", spy)
    net = build([(4, "relu"), (1, "none")], lr=0.05, seed=0)
    first = fit(net, x, y, epochs=2, batch_size=2, verbose=0)
    assert len(seen) == 4 and all(s is seen[0] for s in seen)        # one set, for the whole fit
    assert len(seen[0]) == len(net.params) and all(s.shape == p.shape for s, p in zip(seen[0], net.params))
    assert first.optimizer.scratch == () and net.optimizer.scratch == ()
    assert not any(np.shares_memory(s, p) for s in seen[0] for p in first.params + net.params)
    seen.clear()
    second = fit(first, x, y, epochs=1, batch_size=2, verbose=0)
    assert seen and not any(np.shares_memory(a, b) for a in seen[0] for b in first.params + second.params)
    assert second.optimizer.scratch == ()
