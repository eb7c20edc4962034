"""Writing a Lamina error to the terminal: the one place the command line and the REPL
render errors (stderr, after whatever the program printed)."""
from __future__ import annotations

import os
import sys

from .errors import LaminaError


def report(err: LaminaError) -> int:
    sys.stdout.flush()
    print(err.render(), file=sys.stderr)
    return 2 if err.kind == "SyntaxError" else 1


def internal_failure(exc: BaseException) -> int:
    sys.stdout.flush()
    if os.environ.get("LAMINA_DEBUG") == "1":
        import traceback
        traceback.print_exception(exc)
    print(f"InternalError: {type(exc).__name__}: {exc}\n"
          "  note: this is a bug in Lamina; run with LAMINA_DEBUG=1 to see the Python traceback",
          file=sys.stderr)
    return 1
