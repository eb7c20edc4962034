import contextlib
import io
import sys

import pytest

from lamina.autodiff.tape import TAPE
from lamina.lang.interpreter import RECURSION_LIMIT, Interpreter

# The interpreter raises the limit on first use; doing it up front keeps hypothesis quiet.
sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))


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
