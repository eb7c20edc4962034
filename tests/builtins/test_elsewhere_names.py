"""What other languages call a builtin (its registration's elsewhere=): the NameError of such a
name, in a run and in the language server, names the builtin and its first call shape, and
help(name) shows the builtin's page."""
import pytest

from lamina.builtins.index import ELSEWHERE
from lamina.errors import LaminaError
from lamina.builtins.registry import load_all
from lamina.docs.help import help_text
from lamina.lsp.analysis import analyse


@pytest.mark.parametrize("foreign", sorted(ELSEWHERE))
def test_a_name_from_another_language_names_the_builtin(run, foreign):
    builtin, language, code = ELSEWHERE[foreign]
    assert foreign in load_all()[builtin].elsewhere
    with pytest.raises(LaminaError) as info:
        run(f"y = {foreign}(1)")
    assert (info.value.kind, info.value.message) == ("NameError", f"Undefined variable '{foreign}'. {language}'"
                                       f"{'' if language.endswith('s') else 's'} {foreign} is {builtin} "
                                       f"in Lamina: {code}.")


def test_the_language_server_says_the_same():
    problems = analyse("t = DataFrame()\n").problems
    assert [p.message for p in problems] == ["Undefined variable 'DataFrame'. pandas' DataFrame is table "
                                             "in Lamina: table(r)."]


def test_a_program_may_still_bind_such_a_name(run):
    assert run("lm = 2\nscale = x -> x * lm\nprint(scale(3))")[0] == ["6"]


def test_help_of_such_a_name_is_the_builtin_s_page():
    text = help_text("lm", run=False)
    assert text.startswith("(R's lm is linreg in Lamina.)\n\n# linreg\n")
