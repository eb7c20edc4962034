"""Registry -> one Markdown page per builtin (shaped like the seed's page) and an index.

Examples are run in a fresh interpreter each, and what they print goes on the page,
so a page always shows what the engine actually does. Each runs in an empty
temporary working directory; an image it saves (savefig("name.png")) is shown on
the page and written beside it by the docs build.
"""
from __future__ import annotations

import contextlib
import inspect
import io
import pathlib
import tempfile
from dataclasses import dataclass, field

from ..builtins.registry import CATEGORIES, BuiltinSpec, load_all
from ..errors import LaminaError, ProgramExit

EXAMPLES_INTRO = ("From the documentation, and run by the build -- the output below is what the "
                  "engine actually produced. Simplest first.")


@dataclass
class ExampleRun:
    code: str
    output: str
    figures: dict = field(default_factory=dict)   # file name -> bytes of each .png it saved


class ExampleFailed(Exception):
    pass


def run_example(name: str, code: str) -> ExampleRun:
    from ..autodiff.tape import TAPE
    from ..builtins.random import seed
    from ..interpreter import Interpreter
    from ..printing import reset_options
    from ..stats.figures import close
    from ..warnings import reset
    TAPE.reset()
    seed(0.0)
    close()
    reset()
    reset_options()
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(out):    # warnings show on the page where they happen
        try:
            Interpreter().run(code, f"<example of {name}>")
        except ProgramExit:    # the example ends itself with exit()
            pass
        except LaminaError as err:
            raise ExampleFailed(f"the example of '{name}' failed:\n{err.render()}") from None
        finally:
            close()
        figures = {p.name: p.read_bytes() for p in sorted(pathlib.Path(tmp).glob("*.png"))}
    return ExampleRun(code.rstrip("\n"), out.getvalue().rstrip("\n"), figures)


GRADIENTS = {
    "differentiable": "grad() differentiates through it: gradients flow back to its tracked "
                      "arguments (the test suite checks them against finite differences).",
    "constant": "Passes no gradient: a tracked argument counts as its number, and nothing flows "
                "back to it through the result (grad treats the result as a constant).",
    "refuses": "Takes no tracked values: it passes no gradient, so a tracked argument is a "
               "TypeError rather than a gradient lost without a word. Pass detach(x) to use the "
               "number as a constant.",
    "holds": "Holds its tracked arguments: the value it makes keeps them as given, and the "
             "builtins that compute with that value and say they differentiate (logpdf, logpmf) "
             "pass gradients back to them; its other uses refuse them with a TypeError.",
}
TWICE = ("Differentiable twice: its gradient can be kept (grad's keep = true) and differentiated "
         "again (the test suite checks its second derivatives against finite differences of exact "
         "gradients).")


def overloads_line(spec: BuiltinSpec) -> str:
    n = len(spec.shapes)
    return "One call shape — this function is not overloaded." if n == 1 else f"{n} call shapes."


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def page(spec: BuiltinSpec, strict: bool = True, figures: dict | None = None, run: bool = True) -> str:
    """The page; with strict=False a failing example shows its error instead of stopping.

    Images the examples save are linked from the page and added to `figures` (name -> bytes).
    With run=False the examples are shown without running them (no output): what an editor's
    hover shows, quickly and without touching the running program's tape, seed or figure.
    """
    first = spec.shapes[0]
    lines = [
        f"# {spec.name}", "",
        f"Builtin index · {spec.category}", "",
        f"`{first.code}`", "",
        f"Input: {first.input} · Output: {first.output}", "",
        "## What it is", "", spec.summary, "",
        "## Overloads", "", overloads_line(spec), "",
        "| Code | Input | Output | Description |", "|---|---|---|---|",
    ]
    lines += [f"| `{cell(s.code)}` | {cell(s.input)} | {cell(s.output)} | {cell(s.description)} |"
              for s in spec.shapes]
    intro = EXAMPLES_INTRO if run else f"From the documentation (`lamina help {spec.name}` shows their output)."
    lines += ["", "## Examples", "", intro, ""]
    for example in spec.examples:
        if not run:
            lines += ["```lamina", example.rstrip("\n"), "```", ""]
            continue
        try:
            run = run_example(spec.name, example)
        except ExampleFailed as exc:
            if strict:
                raise
            run = ExampleRun(example.rstrip("\n"), str(exc))
        lines += ["```lamina", run.code, "```", "", "output", "", "```", run.output, "```", ""]
        for image, data in run.figures.items():
            if figures is not None:
                if image in figures:
                    raise ExampleFailed(f"two examples save a figure called {image}; the example "
                                        f"of '{spec.name}' should pick another file name.")
                figures[image] = data
            lines += [f"![figure]({image})", ""]
    lines += ["## How it works", "", spec.notes, ""]
    if spec.elsewhere:
        known = ", ".join(f"`{foreign}` ({language})" for foreign, language in sorted(spec.elsewhere.items()))
        lines += [f"Known elsewhere as {known}.", ""]
    lines += ["## Gradients", "", gradients_text(spec), ""]
    return "\n".join(lines)


def gradients_text(spec: BuiltinSpec) -> str:
    """What the page says about gradients: by the builtin's tracked mark, unless the builtin is the
    tape's own (param, grad, ...: its notes say it) or takes no arguments; and, for a builtin
    that declares twice=True, that its gradient can be differentiated again."""
    if spec.category == "Autodiff":
        text = "One of the tape's own builtins: the notes above say what it does with tracked values."
    elif not inspect.signature(spec.fn).parameters:
        return "Takes no arguments, so no gradient flows through it."
    else:
        text = GRADIENTS[spec.tracked]
    return f"{text} {TWICE}" if spec.twice else text



def index_page(registry: dict[str, BuiltinSpec]) -> str:
    lines = ["# Builtin index", "", f"{len(registry)} builtins, by category. Each name links to its page.", ""]
    for category in CATEGORIES:
        specs = sorted((s for s in registry.values() if s.category == category), key=lambda s: s.name)
        if not specs:
            continue
        lines += [f"## {category}", "", "| Builtin | Summary |", "|---|---|"]
        lines += [f"| [{s.name}]({s.name}.md) | {cell(s.summary)} |" for s in specs]
        lines.append("")
    return "\n".join(lines)


def all_pages() -> dict[str, str | bytes]:
    """File name -> page text for every builtin, plus index.md, and name -> bytes for each figure."""
    registry = load_all()
    figures: dict[str, bytes] = {}
    pages: dict[str, str | bytes] = {f"{name}.md": page(spec, figures=figures)
                                     for name, spec in sorted(registry.items())}
    pages["index.md"] = index_page(registry)
    pages.update(figures)
    return pages
