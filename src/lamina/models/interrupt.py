"""Ctrl-C while fit trains: stop after the current batch and keep what was trained.

While fit runs, the first Ctrl-C only asks it to stop: the handler notes the request and
puts the previous handler back, so fit finishes the batch it is in, then returns the model
with the epochs done so far (`interrupted` true). A second Ctrl-C interrupts at once, as
anywhere else; fit abandons that batch and returns in the same way. fit updates its
weights in place, but a Ctrl-C that arrives during an update waits for it to finish
(optim/train_step.py), so nothing is half-updated: the model has every update that began. Outside fit,
Ctrl-C is what it always was.

The handler is installed only from the main thread (the only one that receives signals)
and only over Python's own handler, so a host that handles SIGINT itself keeps it; there,
the KeyboardInterrupt that reaches fit stops it the second way.
"""
from __future__ import annotations

import signal
import threading


class StopRequest:
    """A context manager: `requested` turns true on the first Ctrl-C inside it."""

    def __init__(self):
        self.requested = False
        self._previous = None

    def __enter__(self) -> StopRequest:
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous = signal.signal(signal.SIGINT, self._request)
        return self

    def _request(self, signum, frame) -> None:
        self.requested = True
        signal.signal(signal.SIGINT, self._previous)

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
