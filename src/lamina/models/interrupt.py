"""Ctrl-C while fit trains: stop after the current batch and keep what was trained.

While fit runs, the first Ctrl-C only asks it to stop: the handler notes the request, so
fit finishes the batch it is in, then returns the model
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
    """A context manager: `requested` turns true on the first Ctrl-C inside it.

    Its handler stays in place for the whole fit: a second Ctrl-C raises KeyboardInterrupt,
    as Python's own handler would, except during a weight update (inside `update()`), where
    it is raised when the update is done. So fit's batches guard their updates without
    swapping signal handlers twice a batch (optim/train_step.py does that where no
    StopRequest is installed)."""

    def __init__(self):
        self.requested = False
        self.installed = False
        self.updating = False
        self.pending = False

    def __enter__(self) -> StopRequest:
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, self._request)
            self.installed = True
        return self

    def _request(self, signum, frame) -> None:
        if not self.requested:
            self.requested = True
        elif self.updating:
            self.pending = True
        else:
            raise KeyboardInterrupt

    def update(self) -> _Update | None:
        """The guard for one weight update (a context manager), or None where this request's
        handler is not installed (then the update guards itself)."""
        return _Update(self) if self.installed else None

    def __exit__(self, *exc) -> None:
        if self.installed:
            self.installed = False
            signal.signal(signal.SIGINT, signal.default_int_handler)


class _Update:
    """A second Ctrl-C inside the block is raised when the block ends."""

    def __init__(self, request: StopRequest):
        self.request = request

    def __enter__(self) -> None:
        self.request.updating = True

    def __exit__(self, *exc) -> None:
        request = self.request
        request.updating = False
        if request.pending:
            request.pending = False
            raise KeyboardInterrupt
