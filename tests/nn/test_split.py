"""nn/split.py: parts cut a count evenly; split_work gives each job's result in order, runs the jobs
on threads of their own with BLAS held to one thread, and raises a job's exception after all have
finished."""
from __future__ import annotations

import threading
import time

import pytest

from lamina.nn import split


def test_parts_cover_the_count_in_nearly_equal_runs():
    assert split.parts(10, 3) == [(0, 3), (3, 6), (6, 10)]
    assert split.parts(2, 2) == [(0, 1), (1, 2)]
    assert split.parts(7, 1) == [(0, 7)]


def test_results_in_order_each_on_its_own_thread_with_one_blas_thread():
    seen = []
    together = threading.Barrier(3, timeout=10)     # each job waits for the others: they run at once

    def job(i):
        def run():
            together.wait()
            seen.append((i, threading.get_ident(), split.threads_for_work()))
            return i * i
        return run

    assert split.split_work([job(i) for i in range(3)]) == [0, 1, 4]
    assert len({ident for _, ident, _ in seen}) == 3
    assert all(blas == 1 for _, _, blas in seen)
    assert [ident for i, ident, _ in seen if i == 0] == [threading.get_ident()]


def test_one_job_runs_here():
    assert split.split_work([lambda: threading.get_ident()]) == [threading.get_ident()]


def test_a_failing_job_is_raised_after_the_others_finish():
    finished = []

    def slow():
        time.sleep(0.05)
        finished.append("slow")

    def fails():
        raise ValueError("part 0 failed")

    with pytest.raises(ValueError, match="part 0 failed"):
        split.split_work([fails, slow])
    assert finished == ["slow"]
