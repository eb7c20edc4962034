"""bmm (autodiff/bmm.py): a batch of matrix products split over threads gives np.matmul's result,
dtype included, whatever the layout of its operands; it keeps to one thread where BLAS is held
to one; and a forked child, which has none of its parent's threads, still multiplies."""
import multiprocessing
import sys

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from lamina.autodiff import bmm as batched

RNG = np.random.default_rng(5)


def _large(batch, m, k, n, dtype):
    x = RNG.standard_normal(batch + (m, k)).astype(dtype)
    y = RNG.standard_normal(batch + (k, n)).astype(dtype)
    assert np.prod(batch) * m * k * n >= batched.PARALLEL_MIN      # the threaded path
    return x, y


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("batch", [(64,), (4, 16), (3,)])
def test_a_threaded_batch_is_numpy_s_matmul(batch, dtype, monkeypatch):
    x, y = _large(batch, 96, 64, 80, dtype)
    used = []
    real = batched._pool
    monkeypatch.setattr(batched, "_pool", lambda workers: used.append(workers) or real(workers))
    got = batched.bmm(x, y)
    assert used == ([min(batched.threads_for_work(), np.prod(batch)) - 1] if batched.threads_for_work() > 1 else [])
    assert got.dtype == dtype and got.shape == batch + (96, 80)
    np.testing.assert_allclose(got, np.matmul(x, y), rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-4)


def test_transposed_operands_and_mixed_dtypes():
    x, y = _large((32,), 64, 96, 64, np.float32)
    xt, yt = np.swapaxes(y, -1, -2), np.swapaxes(x, -1, -2)            # views, not copies
    np.testing.assert_allclose(batched.bmm(xt, yt), np.matmul(xt, yt), rtol=1e-5, atol=1e-4)
    mixed = batched.bmm(x, y.astype(np.float64))
    assert mixed.dtype == np.float64
    np.testing.assert_allclose(mixed, np.matmul(x, y.astype(np.float64)), rtol=1e-12)


def test_one_blas_thread_means_no_pool(monkeypatch):
    monkeypatch.setattr(batched, "_pool", lambda workers: pytest.fail("a pool with BLAS held to one thread"))
    x, y = _large((16,), 64, 64, 64, np.float64)
    with threadpool_limits(1, user_api="blas"):
        np.testing.assert_allclose(batched.bmm(x, y), np.matmul(x, y), rtol=1e-12)


def test_the_blas_thread_count_is_restored():
    before = batched.threads_for_work()
    x, y = _large((16,), 64, 64, 64, np.float64)
    batched.bmm(x, y)
    assert batched.threads_for_work() == before


def _child(queue):
    x, y = _large((16,), 64, 64, 64, np.float64)
    queue.put(bool(np.allclose(batched.bmm(x, y), np.matmul(x, y))))


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_a_forked_child_multiplies_without_its_parent_s_threads():
    x, y = _large((16,), 64, 64, 64, np.float64)
    batched.bmm(x, y)                                  # the parent's pool exists (where BLAS has threads)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(queue,))
    child.start()
    assert queue.get(timeout=60) is True
    child.join(timeout=60)
    assert child.exitcode == 0


@pytest.mark.parametrize("batch, m", [((16,), 64), ((2,), 3)])        # threaded, and one np.matmul
def test_the_result_owns_its_memory_in_the_shape_asked(batch, m):
    # grad hands out a gradient without copying only when it is no view (autodiff/grad.py)
    x, y = RNG.standard_normal(batch + (m, 64)), RNG.standard_normal(batch + (64, 32))
    plain = batched.bmm(x, y)
    assert plain.base is None and plain.shape == batch + (m, 32)
    shaped = batched.bmm(x, y, (int(np.prod(batch)) * m, 32))
    assert shaped.base is None
    np.testing.assert_allclose(shaped, np.matmul(x, y).reshape(-1, 32), rtol=1e-12)
