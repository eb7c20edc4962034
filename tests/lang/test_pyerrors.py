"""lang/pyerrors.py: Python's exceptions in Lamina's words."""
import pytest

from lamina.lang.pyerrors import translate_call_error


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
