"""The lexer marks a number run into a name (which the language rejects) as one Error token,
and keeps exponents such as 1e-10 whole."""
from __future__ import annotations

from pygments.token import Error, Number

from lamina.highlight import LaminaLexer


def tokens(code: str) -> list:
    return [(token, text) for _, token, text in LaminaLexer().get_tokens_unprocessed(code)
            if token in (Error,) or token in Number]


def test_a_malformed_number_is_one_error_token():
    assert tokens("x = 1_000 + 0x10 + 1.5e") == [(Error, "1_000"), (Error, "0x10"), (Error, "1.5e")]
    assert tokens('s = "{1_0}"') == [(Error, "1_0")]
    # the numbers the language reads stay whole numbers (no backtracking into "1" + "e-10")
    assert tokens("y = 1e-10 + .5 + 2.e3 + 2.5E+3 + 7") == [
        (Number.Float, "1e-10"), (Number.Float, ".5"), (Number.Float, "2.e3"),
        (Number.Float, "2.5E+3"), (Number.Float, "7")]
