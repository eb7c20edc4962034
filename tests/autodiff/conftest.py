import contextlib
import io

import numpy as np
import pytest

from lamina.autodiff.tape import TAPE


@pytest.fixture(autouse=True)
def fresh_tape():
    TAPE.reset()
    limit = TAPE.warn_entries
    yield
    TAPE.warn_entries = limit
    TAPE.reset()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def run():
    """Run Lamina source in a fresh interpreter; returns the printed lines."""
    from lamina.interpreter import Interpreter

    def run_(source: str):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            Interpreter().run(source, "<test>")
        return out.getvalue().splitlines()
    return run_
