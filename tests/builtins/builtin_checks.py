"""Helpers shared by the tests that call builtins' Python functions directly: a fresh tape
around each test (imported, it is autouse in the importing module) and the Lamina error a call
must raise."""
import pytest

from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError


@pytest.fixture(autouse=True)
def fresh_tape():
    TAPE.reset()
    yield
    TAPE.reset()


def error(kind, fn, *args, **kwargs) -> str:
    """The message of the LaminaError of `kind` that fn(*args, **kwargs) must raise."""
    with pytest.raises(LaminaError) as info:
        fn(*args, **kwargs)
    assert info.value.kind == kind, info.value
    return info.value.message
