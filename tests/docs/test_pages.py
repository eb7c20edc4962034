"""The doc examples and claims that test_language_doc.py does not run: the README's first
program (its output block stands after a paragraph), the warning line and the permission error
that docs/language.md quotes in prose, its table of habits from other languages, and the sweep
of docs/scaling.md."""
from __future__ import annotations

import contextlib
import io
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

ROOT = pathlib.Path(__file__).parents[2]
README = (ROOT / "README.md").read_text()
LANGUAGE = (ROOT / "docs" / "language.md").read_text()
SCALING = (ROOT / "docs" / "scaling.md").read_text()


def run(code: str, name: str = "doc") -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run(code, name)
    return out.getvalue()


def lamina(args: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lamina", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_readme_first_program_prints_what_the_readme_shows():
    m = re.search(r"Save this as `hello.lam`:\n\n```lamina\n(.*?)```\n.*?```output\n(.*?)```", README, re.S)
    assert m, "the README's first program and its output"
    assert run(m.group(1), "hello.lam") == m.group(2)


def test_warning_example_writes_the_line_the_page_quotes(tmp_path):
    section = LANGUAGE[LANGUAGE.index("### Warnings"):LANGUAGE.index("## Modules")]
    code = re.search(r"```lamina\n(.*?)```", section, re.S).group(1)
    quoted = re.search(r"Standard error then holds one line, `(.*?)`", section).group(1)
    (tmp_path / "train.lam").write_text(code)
    r = lamina(["train.lam"], tmp_path)
    assert r.returncode == 0
    assert r.stdout == "trained\n"
    assert r.stderr == quoted + "\n"


def test_permission_error_example_is_what_lamina_prints(tmp_path):
    quoted = re.search(r"```\n(PermissionError: write_csv .*?)\n```", LANGUAGE).group(1)
    proj = tmp_path.resolve() / "proj"
    (proj / "out").mkdir(parents=True)
    r = lamina(["--allow-write=out", "-e", 'write_csv(table({a = [1]}), "out/../notes.csv")'], proj)
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == quoted.replace("/home/ana/proj", str(proj))
    assert not (proj / "notes.csv").exists()


# Each row of "Coming from another language": a program with the habit, the error kind, and a
# fragment that the message and the row's right-hand cell both hold.
HABITS = {
    "`else if`": ("x = 1\nif x > 1\nprint(1)\nelse if x < 0\nprint(2)\nend if", "SyntaxError", "elseif"),
    "`if x = 3`": ("x = 1\nif x = 3\nprint(1)\nend if", "SyntaxError", "=="),
    "`for i in 1:10`, `for i = 1:10`": ("for i in 1:10\nend for", "SyntaxError", "for i = 1 to 10"),
    "`if c then`, `while c do`, `if c:`": ("c = true\nif c then\nend if", "SyntaxError",
                                           "the block starts on the next line"),
    "`x++`, `x--`": ("x = 1\nx++", "SyntaxError", "x += 1"),
    "`A(1, 2)` on a matrix": ("A = [1, 2; 3, 4]\nprint(A(1, 2))", "TypeError", "A[1, 2]"),
    "`v[end]`": ("v = [1, 2]\nprint(v[end])", "SyntaxError", "v[-1]"),
    "`function f(x) = x ^ 2`": ("function f(x) = x ^ 2", "SyntaxError", "-> "),
    "`endfor`, `end_if`": ("for i = 1 to 2\nendfor", "SyntaxError", "end for"),
    "`&&`, `\\|\\|`, `!`": ("print(true && false)", "SyntaxError", "and"),
    "`% comment`": ("% comment", "SyntaxError", "#"),
    "`0 < x < 1`": ("x = 0.5\nprint(0 < x < 1)", "SyntaxError", "and"),
}
EXTRA = {  # the other spellings a row names
    "for i = 1:10\nend for": "for i = 1 to 10", "c = true\nwhile c do\nend while": "the block starts on the next line",
    "c = true\nif c:\nend if": "the block starts on the next line", "x = 1\nx--": "x -= 1",
    "if true\nend_if": "end if", "print(true || false)": "or", "print(!true)": "not",
}


def habit_rows() -> dict[str, str]:
    section = LANGUAGE[LANGUAGE.index("## Coming from another language"):]
    rows = re.findall(r"^\| (.+?) \| (.+?) \|$", section, re.M)
    return {left: right for left, right in rows if left not in ("you might write", "---")}


def test_every_habit_row_is_checked():
    assert set(habit_rows()) == set(HABITS)


@pytest.mark.parametrize("row", list(HABITS))
def test_habit_row_is_an_error_that_says_what_to_write(row):
    code, kind, fragment = HABITS[row]
    assert fragment in habit_rows()[row] or row == "`if c then`, `while c do`, `if c:`"
    with pytest.raises(LaminaError) as info:
        run(code)
    first = info.value.render().splitlines()[0]
    assert first.startswith(kind + ":") and fragment in first, first


@pytest.mark.parametrize("code", list(EXTRA))
def test_other_spellings_of_a_habit_say_what_to_write(code):
    with pytest.raises(LaminaError) as info:
        run(code)
    first = info.value.render().splitlines()[0]
    assert first.startswith("SyntaxError:") and EXTRA[code] in first, first


def test_scaling_sweep_runs_with_the_seeds_the_page_derives(monkeypatch):
    pytest.importorskip("matplotlib")
    code = re.search(r"```lamina\n(.*?)```", SCALING, re.S).group(1)
    assert "workers = 2, seed = 1" in code
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    interp = Interpreter()
    # workers = 1 runs the same calls in this process ("Where the calls run"), without Ray
    with contextlib.redirect_stdout(io.StringIO()) as out:
        interp.run(code.replace("workers = 2", "workers = 1"), "sweep.lam")
    runs = interp.get("runs")
    assert runs.names == ["lr", "units", "seed", "val_loss", "seconds", "error"]
    assert list(runs.columns["lr"]) == [0.03, 0.03, 0.01, 0.01, 0.003, 0.003]
    assert list(runs.columns["units"]) == [16, 64, 16, 64, 16, 64]
    # "Configuration i gets the seed SeedSequence(s).spawn(n)[i].generate_state(1)[0]"
    seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(1).spawn(6)]
    assert list(runs.columns["seed"]) == seeds
    assert list(runs.columns["error"]) == [""] * 6
    printed = out.getvalue().splitlines()
    assert printed[0] == "table: 6 rows x 6 columns"
    best = min(range(6), key=lambda i: runs.columns["val_loss"][i])
    assert printed[-1].startswith(f"{{lr={runs.columns['lr'][best]:g}, units={runs.columns['units'][best]:g}, "
                                  f"seed={seeds[best]}, ")


# -- the files and layers the pages name --
PAGES = [ROOT / "README.md", *(ROOT / "docs" / n for n in
                               ("language.md", "tables.md", "models.md", "networks.md", "likelihood.md", "scaling.md",
                                "ARCHITECTURE.md"))]
REPO_PATH = re.compile(r"`((?:tests|bench|examples|editors|docs|src)/[\w./-]*)`")
PACKAGE_PATH = re.compile(r"`((?:lang|autodiff|nn|optim|stats|models|cluster|builtins|docs|repl|kernel|lsp)"
                          r"/(?:[\w./-]*\.py|[\w./-]*/)?)`")
MADE_BY_RUNS = {"bench/out/"}    # written by `bench/run.py --only`


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_file_a_page_names_exists(page):
    text = page.read_text()
    missing = [p for p in REPO_PATH.findall(text) if p not in MADE_BY_RUNS and not (ROOT / p).exists()]
    missing += [p for p in PACKAGE_PATH.findall(text)
                if not (ROOT / "src" / "lamina" / p).exists() and not (ROOT / p).exists()]
    assert not missing


def test_architecture_lists_the_layers_in_the_order_the_test_enforces():
    import importlib.util
    spec = importlib.util.spec_from_file_location("arch", ROOT / "tests" / "test_architecture.py")
    arch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(arch)
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    table = text[text.index("| layer | owns |"):text.index("## One program")]
    rows = re.findall(r"^\| (`[^|]*`) \|", table, re.M)
    listed = [re.sub(r"(\.py|/)$", "", name) for row in rows for name in re.findall(r"`([^`]+)`", row)]
    units = [u for layer in arch.LAYERS for u in layer if u not in ("__main__", "__init__")]
    assert sorted(listed) == sorted(units)
    # "from the bottom up": a row never names a lower layer than the rows above it
    layers = [arch.layer_of(u)[0] for u in listed]
    assert layers == sorted(layers), list(zip(listed, layers))


def test_scaling_a_function_reads_a_detached_copy_not_the_tracked_value():
    code = """w = param(1.0)
w0 = detach(w)
function plain(config)
    return {v = w0 * config.lr}
end function
function tracked(config)
    return {v = detach(w) * config.lr}
end function
print(sweep(plain, {lr = [1, 2]}).v)
sweep(tracked, {lr = [1, 2]})
"""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(LaminaError) as info:
        Interpreter().run(code, "doc")
    assert out.getvalue() == "[1, 2]\n"
    assert info.value.render().splitlines()[0].startswith(
        "TypeError: sweep cannot send tracked to its workers: the variable w holds a number that is tracked")
    assert "keep a plain copy at the top level (`w0 = detach(w)`)" in " ".join(SCALING.split())


def test_scaling_a_sweep_leaves_the_generator_but_for_the_draw_of_its_base_seed():
    code = """function f(config)
    return {r = rand()}
end function
seed(1)
a = rand()
seed(1)
runs = sweep(f, {x = [1, 2]}, seed = 5)
print(rand() == a)
seed(1)
runs = sweep(f, {x = [1, 2]})
print(rand() == a)
"""
    assert run(code) == "true\nfalse\n"
    assert "except for the one draw of s when `seed` is not given" in " ".join(SCALING.split())


def test_modules_a_relative_import_path_is_looked_up_as_a_name_is(tmp_path):
    (tmp_path / "main" / "lib").mkdir(parents=True)
    (tmp_path / "far" / "lib").mkdir(parents=True)
    (tmp_path / "main" / "lib" / "near.lam").write_text("N = 1\n")
    (tmp_path / "far" / "lib" / "near.lam").write_text("N = 2\n")
    (tmp_path / "far" / "lib" / "far.lam").write_text("F = 3\n")
    (tmp_path / "main" / "prog.lam").write_text(
        'import "lib/near.lam" as a\nimport "lib/far.lam" as b\n'
        f'import "{tmp_path / "far" / "lib" / "near.lam"}" as c\nprint(a.N, b.F, c.N)\n')
    r = subprocess.run([sys.executable, "-m", "lamina", str(tmp_path / "main" / "prog.lam")], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "LAMINA_PATH": str(tmp_path / "far")})
    assert (r.returncode, r.stdout, r.stderr) == (0, "1 3 2\n", "")
    assert "relative path is looked up the same way" in " ".join(LANGUAGE.split())
