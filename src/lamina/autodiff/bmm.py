"""The batched matrix product: np.matmul of two stacks of matrices, the batch split over threads.

OpenBLAS threads each matrix product of a batch on its own: np.matmul of 64 pairs of 128 x 64
and 64 x 128 float32 matrices is 64 rounds of waking its threads and waiting for them, each
product too small to share well (1.2 ms on two cores where torch's bmm took 0.7 ms), and while
another process wants the cores its threads spin and wait a scheduler slice at every product
(10 ms and more; bench/cases/products.py measures it). torch's bmm splits the
batch instead: each thread multiplies its share of the matrices alone. So does `bmm`: a batch of
two products or more, and at least PARALLEL_MIN multiply-adds in all, is cut into one chunk per
BLAS thread (as many as OpenBLAS would use now, so that OPENBLAS_NUM_THREADS=1 or threadpoolctl's
limits keep everything on one thread); the calling thread multiplies the first chunk and a pool's
threads the others, each by np.matmul (which lets go of the GIL) with OpenBLAS held to one
thread meanwhile (threadpoolctl, as stats/models.py does for small fits). That pool is
`split_work`, which nn/split.py uses too for other work cut into independent parts.
"""
from __future__ import annotations

import functools
import math
import os

import numpy as np

PARALLEL_MIN = 1 << 20          # multiply-adds below which one np.matmul is cheaper than threads

_state = {"blas": None, "pool": None, "workers": 0}


def bmm(X: np.ndarray, Y: np.ndarray, shape: tuple | None = None) -> np.ndarray:
    """np.matmul(X, Y) of X ... x m x k and Y ... x k x n (NumPy's result, dtype included), in
    `shape` when given (the same elements): an array that owns its memory, never a view, so that
    grad can hand it out as it is."""
    batch = X.shape[:-2]
    if Y.shape[:-2] != batch:                     # broadcast batches: NumPy's loop
        out = np.matmul(X, Y)
        return out if shape is None else out.reshape(shape).copy()
    count = math.prod(batch)
    m, k, n = X.shape[-2], X.shape[-1], Y.shape[-1]
    out = np.empty(batch + (m, n) if shape is None else shape, dtype=np.result_type(X, Y))
    flat = out.reshape(count, m, n)
    X3, Y3 = X.reshape(count, m, k), Y.reshape(count, k, n)
    threads = min(threads_for_work(), count) if count >= 2 and count * m * k * n >= PARALLEL_MIN else 1
    if threads < 2:
        np.matmul(X3, Y3, out=flat)
        return out
    split_work([functools.partial(np.matmul, X3[lo:hi], Y3[lo:hi], out=flat[lo:hi])
                for lo, hi in parts(count, threads)])
    return out


def threads_for_work() -> int:
    """How many threads work may be split over now: as many as NumPy's BLAS would use for one
    product (1 under OPENBLAS_NUM_THREADS=1, and inside split_work)."""
    libs = _controller().select(user_api="blas").lib_controllers
    return max((lib.num_threads for lib in libs), default=1)


def _controller():
    if _state["blas"] is None:
        from threadpoolctl import ThreadpoolController   # here: only large products need it
        _state["blas"] = ThreadpoolController()
    return _state["blas"]


def parts(count: int, pieces: int) -> list[tuple[int, int]]:
    """range(count) cut into `pieces` runs of nearly equal length, as (start, stop) pairs."""
    bounds = [count * i // pieces for i in range(pieces + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def split_work(jobs: list) -> list:
    """The results of `jobs` (callables of no arguments, at most threads_for_work() of them), each
    run on a thread of its own, the first on the calling thread, with OpenBLAS held to one thread
    meanwhile. A job's exception is raised here once every job has finished. The one pool of
    bmm's chunks and nn/split.py's parts."""
    if len(jobs) < 2:
        return [job() for job in jobs]
    with _controller().limit(limits=1, user_api="blas"):
        pool = _pool(len(jobs) - 1)
        waiting = [pool.submit(job) for job in jobs[1:]]
        try:
            first = jobs[0]()
        finally:
            for job in waiting:
                job.exception()            # waits for it
        return [first] + [job.result() for job in waiting]


def _pool(workers: int):
    if _state["pool"] is None or _state["workers"] < workers:
        from concurrent.futures import ThreadPoolExecutor
        if _state["pool"] is not None:
            _state["pool"].shutdown(wait=False)
        _state["pool"], _state["workers"] = ThreadPoolExecutor(workers, "lamina-split"), workers
    return _state["pool"]


def _forget_pool() -> None:
    """After a fork the child has none of the parent's threads: it starts a pool of its own."""
    _state["pool"], _state["workers"] = None, 0


os.register_at_fork(after_in_child=_forget_pool)
