"""Helpers shared by the tests that call builtins: a fresh tape around each test and a folder
of its own to work in (imported, each is autouse in the importing module), and the Lamina error
a call must raise."""
import pytest

from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError


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
