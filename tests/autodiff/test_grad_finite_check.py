"""grad's look at its gradients for NaN and Inf: what it warns about, and that it wakes no threads."""
from __future__ import annotations

import contextlib
import io
import os
import sys
import time

import pytest

from lamina import warnings as channel
from lamina.interpreter import Interpreter


@pytest.fixture(autouse=True)
def fresh_channel():
    channel.reset()
    yield
    channel.reset()


def run(code: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        Interpreter().run(code, "f.lam")
    return out.getvalue(), err.getvalue()


def test_a_gradient_whose_sum_overflows_is_finite_and_not_warned_about():
    out, err = run("w = param([1e-10, 1e-10])\n"
                   "g = grad(sum(w .* [1e308, 1e308]), wrt = w)\nprint(g)\n")
    assert out == "[1e+308, 1e+308]\n"
    assert err == ""


def test_infinities_of_both_signs_in_a_gradient_are_warned_about():
    # the gradient is [Inf, -Inf]: its sum is NaN, and the look at each number finds them
    out, err = run("w = param([0.0, 0.0])\ng = grad(sqrt(w[0]) - sqrt(w[1]), wrt = w)\nprint(g)\n")
    assert out == "[Inf, -Inf]\n"
    assert err.startswith("warning: grad(): the loss is finite (0.0) but the gradient for wrt "
                          "contains NaN or Inf")


def _cpu_ticks_of_other_threads() -> int:
    me = str(__import__("threading").get_native_id())
    total = 0
    for tid in os.listdir("/proc/self/task"):
        if tid == me:
            continue
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:        # a thread that ended meanwhile
            continue
        total += int(fields[11]) + int(fields[12])      # utime + stime, in clock ticks
    return total


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/task")
def test_grad_of_a_large_float64_parameter_leaves_blas_threads_asleep():
    """BLAS's dot over more than 10,000 float64 numbers runs on OpenBLAS's threads, which then
    spin for about 0.1 s: a core taken from whatever runs next on two threads (a float64 LSTM's
    chunks ran 1.8x slower after each grad()). Nothing in this program needs BLAS."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    if max((lib["num_threads"] for lib in threadpoolctl.threadpool_info()
            if lib["internal_api"] == "openblas"), default=1) < 2:
        pytest.skip("OpenBLAS runs on one thread here")
    interp = Interpreter()
    interp.run("w = param(ones(200, 100))", "f.lam")
    time.sleep(0.3)                 # threads still spinning from earlier tests fall asleep
    before = _cpu_ticks_of_other_threads()
    interp.run("g = grad(sum(w .* w), wrt = w)", "f.lam")
    time.sleep(0.25)
    ticks = _cpu_ticks_of_other_threads() - before
    assert ticks <= 3, f"other threads used {ticks} clock ticks of CPU after grad()"
