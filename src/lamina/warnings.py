"""The one warnings channel: `warning: MESSAGE (file:line)` on stderr.

The `warn` builtin and the library (a large tape, a NaN gradient, a logistic regression on
separable data) all write here, so `warnings(false)` silences every one of them. A warning
names the Lamina line that caused it: the interpreter installs a locator (the innermost
compiled Lamina frame, see lang/pyerrors.py), which is asked only when a warning is written.
"""
from __future__ import annotations

import sys
from typing import Callable

from .errors import Span


class _Channel:
    def __init__(self):
        self.enabled = True
        self.seen: set = set()
        self.locate: Callable[[], Span | None] = lambda: None


CHANNEL = _Channel()


def set_enabled(on: bool) -> bool:
    """Turn warnings on or off; returns the previous setting."""
    before, CHANNEL.enabled = CHANNEL.enabled, bool(on)
    return before


def enabled() -> bool:
    return CHANNEL.enabled


def reset() -> None:
    """Warnings on, and every call site free to warn again (a fresh start, as for an example)."""
    CHANNEL.enabled = True
    CHANNEL.seen.clear()


def set_locator(locate: Callable[[], Span | None]) -> None:
    CHANNEL.locate = locate


def warn(message: str, span: Span | None = None, once_key: object = None) -> bool:
    """Write `warning: message (file:line)` to stderr; returns whether it was written.

    With `once_key`, a warning is written only the first time that key comes from one call
    site (the same line and column of the same program text)."""
    if not CHANNEL.enabled:
        return False
    if span is None:
        span = CHANNEL.locate()
    if once_key is not None:
        key = (once_key, span.source, span.line, span.col) if span is not None else (once_key,)
        if key in CHANNEL.seen:
            return False
        CHANNEL.seen.add(key)
    where = f" ({span.source.name}:{span.line})" if span is not None else ""
    sys.stdout.flush()    # after what the program printed so far
    print(f"warning: {message}{where}", file=sys.stderr, flush=True)   # before later output, in a notebook too
    return True
