"""What a builtin's page says under "Gradients": its tracked mark, and "Differentiable twice" for
a builtin that declares twice=True."""
from lamina.builtins.registry import BuiltinSpec, GradCase, Shape, load_all
from lamina.docs.pages import GRADIENTS, gradients_text, page

TWICE_WORDS = ("Differentiable twice: its gradient can be kept (grad's keep = true) and "
               "differentiated again")


def spec(twice: bool, category: str = "Math") -> BuiltinSpec:
    return BuiltinSpec("fake_square", lambda x: x, category, [Shape("fake_square(x)", "tensor", "tensor", "")],
                       "x squared.", [], "Notes.", grad=[GradCase(((3,),))], twice=twice)


def test_a_builtin_differentiable_twice_says_so_after_saying_it_is_differentiable():
    text = gradients_text(spec(twice=True))
    assert text.startswith(GRADIENTS["differentiable"] + " " + TWICE_WORDS)


def test_a_builtin_differentiable_once_does_not_say_twice():
    assert gradients_text(spec(twice=False)) == GRADIENTS["differentiable"]


def test_a_tape_builtin_differentiable_twice_says_so_too():
    text = gradients_text(spec(twice=True, category="Autodiff"))
    assert text.startswith("One of the tape's own builtins") and TWICE_WORDS in text


def test_the_page_carries_the_words_in_its_gradients_section():
    text = page(spec(twice=True), run=False)
    assert TWICE_WORDS in text.split("## Gradients")[1]


def test_every_registered_builtin_says_twice_exactly_when_it_declares_it():
    for name, s in load_all().items():
        assert (TWICE_WORDS in gradients_text(s)) == s.twice, name
