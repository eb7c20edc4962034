import contextlib
import io

import pytest

from lamina.autodiff.tape import TAPE
from lamina.lang.interpreter import Interpreter


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
