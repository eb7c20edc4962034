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


def torch_epoch(net, Xt, yt, lr: float, batch: int):
    """One epoch of torch's own training loop (Adam, cross-entropy, a fresh shuffle each call),
    the peer of Lamina's fit: the repetition callable."""
    import torch
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    m = len(yt)

    def run():
        order = torch.randperm(m)
        for s in range(0, m, batch):
            rows = order[s:s + batch]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(net(Xt[rows]), yt[rows])
            loss.backward()
            opt.step()
        return loss
    return run
