"""`lamina docs build [DIR] [--check]`: write the builtin pages, or check the committed ones."""
from __future__ import annotations

import argparse
import pathlib
import re
import sys

from ..files import atomic_write
from .pages import ExampleFailed, all_pages

DEFAULT_DIR = "docs/builtins"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lamina docs")
    ap.add_argument("command", choices=["build"])
    ap.add_argument("dir", nargs="?", default=DEFAULT_DIR)
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if a committed page differs from what the engine prints now")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    try:
        pages = all_pages()
    except ExampleFailed as exc:
        print(f"lamina docs: {exc}", file=sys.stderr)
        return 1
    out = pathlib.Path(args.dir)
    if out.exists() and not out.is_dir():
        print(f"lamina docs: {out} is a file, not a folder for the pages", file=sys.stderr)
        return 2
    if args.check:
        return check(out, pages)
    out.mkdir(parents=True, exist_ok=True)
    # Pages of builtins that are gone, and figures no page shows any more, are removed, but
    # only pages this command wrote and figures they showed: DIR may hold the user's own notes.
    ours = [p for p in out.glob("*.md") if _is_page(p)]
    shown = {name for p in ours for name in re.findall(r"!\[figure\]\(([^)/]+\.png)\)", p.read_text("utf-8"))}
    for old in ours + [out / name for name in shown]:
        if old.name not in pages and old.exists():
            old.unlink()
    for name, text in pages.items():     # bytes: a figure an example drew
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        atomic_write(str(out / name), lambda f, data=data: f.write(data))
    print(f"wrote {len(pages)} pages to {out}")
    return 0


def _is_page(path: pathlib.Path) -> bool:
    """Whether a Markdown file is a builtin page (its third line names the builtin index)."""
    try:
        with open(path, encoding="utf-8") as f:
            return [f.readline() for _ in range(3)][2].startswith("Builtin index · ")
    except (OSError, UnicodeDecodeError):
        return False


def check(out: pathlib.Path, pages: dict[str, str]) -> int:
    # A figure only has to exist: its pixels depend on the installed matplotlib and fonts.
    stale = [name for name, text in pages.items()
             if not (out / name).exists() or (isinstance(text, str) and (out / name).read_text() != text)]
    extra = [p.name for p in [*out.glob("*.md"), *out.glob("*.png")] if p.name not in pages]
    for name in stale:
        print(f"out of date: {out / name}", file=sys.stderr)
    for name in extra:
        print(f"no longer a builtin: {out / name}", file=sys.stderr)
    if stale or extra:
        print("run `lamina docs build` and commit the pages", file=sys.stderr)
        return 1
    print(f"{len(pages)} pages match the engine")
    return 0
