"""Work that falls into independent parts, run on the threads NumPy's BLAS would use.

NumPy runs a matrix product on all of OpenBLAS's threads but every elementwise operation on one,
so a transformer block, half products and half elementwise passes (layer norms, gelu, softmax),
used two threads for only half its time where torch's block uses them throughout. Its examples
are independent, so it splits them instead: one part per thread, each part's products on one
BLAS thread, as torch's bmm splits a batch and autodiff/bmm.py does for batched products (the
two could share this one pool). NumPy lets go of the GIL inside each operation on large arrays,
so the parts run side by side.
"""
from __future__ import annotations

import os

SPLIT_MIN = 1 << 22          # multiply-adds below which one thread does the whole of a piece of work

_state = {"blas": None, "pool": None, "workers": 0}


def threads_for_work() -> int:
    """How many threads work may be split over now: as many as NumPy's BLAS would use for one
    product (1 under OPENBLAS_NUM_THREADS=1, and inside split_work)."""
    libs = _controller().select(user_api="blas").lib_controllers
    return max((lib.num_threads for lib in libs), default=1)


def _controller():
    if _state["blas"] is None:
        from threadpoolctl import ThreadpoolController   # here: only large layers need it
        _state["blas"] = ThreadpoolController()
    return _state["blas"]


def pieces_for(count: int, work: int) -> int:
    """Into how many parts to split `count` independent items (examples, sequences) whose work is
    `work` multiply-adds in all: one per thread, unless the work is too small to share."""
    return min(threads_for_work(), count) if count >= 2 and work >= SPLIT_MIN else 1


def parts(count: int, pieces: int) -> list[tuple[int, int]]:
    """range(count) cut into `pieces` runs of nearly equal length, as (start, stop) pairs."""
    bounds = [count * i // pieces for i in range(pieces + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def split_work(jobs: list) -> list:
    """The results of `jobs` (callables of no arguments, at most threads_for_work() of them), each
    run on a thread of its own, the first on the calling thread, with OpenBLAS held to one thread
    meanwhile. A job's exception is raised here once every job has finished."""
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
