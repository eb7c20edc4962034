"""Helpers shared by the tests that call builtins: a fresh tape around each test and a folder
of its own to work in (imported, each is autouse in the importing module), the Lamina error
a call must raise, and a program run with NumPy values bound first."""
import contextlib
import io

import pytest

from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lang.scope import mangle


@pytest.fixture(autouse=True)
def fresh_tape():
    TAPE.reset()
    yield
    TAPE.reset()


@pytest.fixture(autouse=True)
def in_tmp_dir(tmp_path, monkeypatch):
    """Each test runs in its own folder: builtins that write files write there."""
    monkeypatch.chdir(tmp_path)


def error(kind, fn, *args, **kwargs) -> str:
    """The message of the LaminaError of `kind` that fn(*args, **kwargs) must raise."""
    with pytest.raises(LaminaError) as info:
        fn(*args, **kwargs)
    assert info.value.kind == kind, info.value
    return info.value.message


def run_with(source: str, **values) -> Interpreter:
    """Run `source` with `values` (NumPy arrays of any rank) bound first, its printing swallowed;
    its interpreter, whose namespace holds what the program made."""
    interp = Interpreter()
    for name, value in values.items():
        interp.namespace[mangle(name)] = value
    with contextlib.redirect_stdout(io.StringIO()):
        interp.run(source, "<test>")
    TAPE.reset()
    return interp
