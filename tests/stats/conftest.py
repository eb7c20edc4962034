import contextlib
import io

import numpy as np
import pytest

from lamina.autodiff.tape import TAPE
from lamina.builtins.random import seed
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lang.scope import mangle
from lamina.stats.figures import close


class Lam:
    """Runs Lamina code for a test: `lam.run(src)` -> printed lines, `lam.eval(expr, **vars)` -> value,
    `lam.error(src)` -> the LaminaError it raises."""

    def run(self, source: str, **variables) -> list[str]:
        out = io.StringIO()
        self.interp = Interpreter()
        for name, value in variables.items():
            self.interp.namespace[mangle(name)] = value
        with contextlib.redirect_stdout(out):
            self.interp.run(source, "<test>")
        return out.getvalue().splitlines()

    def eval(self, expr: str, **variables):
        self.run(f"result__ = {expr}", **variables)
        return self.interp.get("result__")

    def error(self, source: str, **variables) -> LaminaError:
        with pytest.raises(LaminaError) as info:
            self.run(source, **variables)
        return info.value


@pytest.fixture
def lam():
    seed(0.0)
    close()             # no figure left over from another test
    yield Lam()
    TAPE.reset()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
