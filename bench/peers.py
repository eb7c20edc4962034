"""Helpers for bench/cases modules: peers that may be missing, and setup kept out of other peers.

Every implementation runs in its own process (bench/run.py), which builds all of its case
module's cases first. A heavy peer (PyTorch takes seconds to import) should cost only its
own process: `needs` checks that a module is installed without importing it, and `lazy`
defers a peer's setup to its first call, the untimed warm-up.
"""
from __future__ import annotations

import importlib.util


def needs(module: str) -> str | None:
    """None when `module` is installed, else the reason the table gives ("torch not installed")."""
    return None if importlib.util.find_spec(module) is not None else f"{module} not installed"


def lazy(setup):
    """A repetition callable whose `setup()` (returning the real one) runs on the first call."""
    run = None

    def call():
        nonlocal run
        if run is None:
            run = setup()
        return run()
    return call
