"""Shared fixtures, and one seed for every randomised test in a run.

Every random choice a test makes (hypothesis examples, Lamina's global generator) follows
from one seed: LAMINA_TEST_SEED, or a fixed default so that CI is repeatable. The seed is
printed in the header and beside every failure; `LAMINA_TEST_SEED=N make test` replays a run
and `LAMINA_TEST_SEED=random` explores new examples.
"""
import contextlib
import io
import os
import random
import signal
import sys

import pytest

from lamina.autodiff.tape import TAPE
from lamina.interpreter import RECURSION_LIMIT, Interpreter

DEFAULT_SEED = 20261203

# A run started in the background without job control (`make test &`, nohup) inherits SIGINT
# ignored, and so would every process a test starts: the tests of Ctrl-C (fit, sweep, the
# prompt) need it delivered. A handler, unlike an ignored signal, is not inherited across exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _run_seed() -> int:
    text = os.environ.get("LAMINA_TEST_SEED", "").strip()
    if text == "random":
        return random.SystemRandom().randrange(2**31)
    return int(text) if text else DEFAULT_SEED


SEED = _run_seed()

# The interpreter raises the limit on first use; doing it up front keeps hypothesis quiet.
sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if config.getoption("hypothesis_seed", None) is None:
        config.option.hypothesis_seed = SEED


def pytest_report_header(config):
    return f"lamina test seed: {SEED} (replay with LAMINA_TEST_SEED={SEED})"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.sections.append(("lamina test seed", f"LAMINA_TEST_SEED={SEED} replays this run"))


@pytest.fixture(autouse=True)
def seeded_generator():
    """Lamina's global generator starts from the run's seed in every test, and printing from
    its default options (a test may call print_options)."""
    from lamina.builtins.random import seed
    from lamina.printing import reset_options
    seed(float(SEED))
    reset_options()


@pytest.fixture
def run():
    """Run Lamina source; returns (printed lines, interpreter) — `interp.get(name)` reads a variable."""
    def run_(source: str):
        out = io.StringIO()
        interp = Interpreter()
        with contextlib.redirect_stdout(out):
            interp.run(source, "<test>")
        return out.getvalue().splitlines(), interp
    yield run_
    TAPE.reset()

