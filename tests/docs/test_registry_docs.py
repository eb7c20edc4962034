"""Every builtin documents itself fully, and help() shows what the pages show."""
from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest

from lamina.builtins.registry import load_all
from lamina.docs.help import help_text
from lamina.errors import LaminaError

REGISTRY = load_all()


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_builtin_is_fully_documented(name):
    spec = REGISTRY[name]
    assert spec.summary.strip(), "no summary"
    assert spec.shapes, "no call shapes"
    for shape in spec.shapes:
        assert shape.code.startswith(name) or name in shape.code, shape.code
        assert shape.input and shape.output and shape.description, shape
    assert spec.examples and all(e.strip() for e in spec.examples), "no example"
    assert len(spec.notes.strip()) > 20, "no notes on how it works"


def test_help_lists_categories():
    text = help_text(None)
    assert "Core:" in text and "print" in text and "Neural nets:" in text


def test_help_unknown_name_suggests():
    with pytest.raises(LaminaError) as info:
        help_text("lenght")
    assert info.value.kind == "NameError" and "length" in info.value.message


def test_help_on_the_command_line_prints_the_page():
    r = subprocess.run([sys.executable, "-m", "lamina", "help", "length"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert lines[:3] == ["# length", "", "Builtin index · Core"]
    assert "```\n3\n4\n2 5\n```" in r.stdout


def test_help_in_a_program_prints_the_page():
    r = subprocess.run([sys.executable, "-m", "lamina", "-e", 'help("length")'], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("# length\n")


def test_committed_pages_match_the_engine():
    """`lamina docs build --check`: the pages in docs/builtins are what the engine prints now."""
    import pathlib
    root = pathlib.Path(__file__).parents[2]
    r = subprocess.run([sys.executable, "-m", "lamina", "docs", "build", str(root / "docs" / "builtins"),
                        "--check"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr


def test_check_fails_when_a_page_drifts(tmp_path):
    import pathlib
    import shutil
    root = pathlib.Path(__file__).parents[2]
    pages = tmp_path / "pages"
    shutil.copytree(root / "docs" / "builtins", pages)
    (pages / "length.md").write_text((pages / "length.md").read_text().replace("2 5", "2 6"))
    r = subprocess.run([sys.executable, "-m", "lamina", "docs", "build", str(pages), "--check"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 1 and "length.md" in r.stderr


def test_tape_reset_page_has_its_own_examples_and_the_stale_value_story():
    import pathlib
    page = (pathlib.Path(__file__).parents[2] / "docs" / "builtins" / "tape_reset.md").read_text()
    assert page.count("```lamina") == 3
    assert "Builtin index · Autodiff" in page
    assert "output\n\n```\n2 4\n0\n```" in page
    assert "output\n\n```\n6\n6\n```" in page
    assert "output\n\n```\n2 5\n```" in page          # only the last step's 5 entries remain
    assert "stale" in page and "param()" in page and "examples/seed" in page



def test_a_page_that_draws_random_numbers_prints_the_same_whatever_ran_before():
    """The docs build seeds the generator before each example: an example's draws depend
    neither on the pages built before it, nor on the examples before it on its page, nor on
    any other draw."""
    from lamina.builtins.random import seed
    from lamina.builtins.registry import BuiltinSpec, Shape
    from lamina.docs.pages import page, run_example
    from lamina.interpreter import Interpreter
    draws = "print(rand(3))\nprint(randn(2, 2))"
    demo = BuiltinSpec("demo", print, "Random", [Shape("demo()", "nothing", "nothing", "Draws.")],
                       "Draws.", [draws, draws], "Draws random numbers without seeding.", tracked="constant")
    first = page(demo)
    seed(12345.0)
    Interpreter().run("x = rand(7)\ny = randn(3, 3)", "<before>")
    assert page(demo) == first
    alone = run_example("demo", draws).output
    assert first.count(alone) == 2                     # the second example drew what the first did
    seed(0.0)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run(draws, "<seeded>")
    assert out.getvalue().rstrip("\n") == alone       # the seed is 0
