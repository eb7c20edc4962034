"""lang/pyerrors.py: Python's exceptions in Lamina's words."""
import pytest

from lamina.lang.pyerrors import translate_call_error
from tests.lang.test_runtime import error_of


def fit(model, epochs=1, batch_size=32):
    return model


@pytest.mark.parametrize("text", [
    "fit() got an unexpected keyword argument 'epoch'",                             # Python 3.11, 3.12
    "fit() got an unexpected keyword argument 'epoch'. Did you mean 'epochs'?",     # 3.13 suggests too
])
def test_a_misspelt_keyword_is_suggested_once_whatever_python_says(text):
    error = translate_call_error(fit, TypeError(text), "fit")
    assert error.message == "'fit' got an unexpected keyword argument 'epoch'. Did you mean 'epochs'?"


def test_the_message_of_this_pythons_own_error_names_the_keyword_once():
    with pytest.raises(TypeError) as info:
        fit(None, epoch=3)
    assert translate_call_error(fit, info.value, "fit").message.count("Did you mean") == 1


@pytest.mark.parametrize("source, line, col", [
    ("x = 1\ny = x * bogus", 2, 9),
    ("y = 2 < bogus", 1, 9),
    ("y = [1, 2] + bogus", 1, 14),
    ("function f(a)\n  return a + bogus\nend function\nf(1)", 2, 14),
])
def test_an_undefined_operand_is_pointed_at_not_the_operator(run, source, line, col):
    err = error_of(run, source)
    assert (err.kind, err.message) == ("NameError", "Undefined variable 'bogus'.")
    assert (err.span.line, err.span.col, err.span.length) == (line, col, 5)
