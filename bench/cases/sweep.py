"""Benchmark cases for sweep on Ray (bench protocol: `cases()` returns case dicts).

Eight configurations of a training that takes about one second (30 epochs of a 20-64-1 relu
MLP with Adam on 2,000 rows, batch 32), run by `sweep` one after another in the process
(workers = 1, the reference) and as Ray tasks two at a time (workers = 2). Lamina / peer is
then the speed-up; the limit is 2x on two cores, less what Ray's tasks cost (sending the
package, a fresh interpreter per configuration) and what the machine's other load takes.
Ray is started in the untimed warm-up and reused, as it is by every sweep of a program after
its first. The second case is that first time: start a local Ray instance with two CPUs,
run a sweep of two trivial configurations (which starts the worker processes, each importing
Lamina), and shut it down.

Ray writes its sessions under a temporary RAY_TMPDIR, removed at exit, and uses a token made
here (so nothing is written to ~/.ray). `bench/run.py --only sweep` runs these cases alone.
"""
from __future__ import annotations

import atexit
import os
import secrets
import shutil
import tempfile

from peers import needs  # bench/peers.py

from lamina.interpreter import Interpreter

PROGRAM = """
seed(0)
X = randn(2000, 20)
Y = X * randn(20, 1) + 0.1 * randn(2000, 1)
function train(config)
    net = input(20) |> dense(64, activation = "relu") |> dense(1, activation = "none") |>
          compile(optimizer = adam(lr = config.lr), loss = "mse", seed = config.seed)
    net = net.fit(X, Y, epochs = 30, batch_size = 32, verbose = 0)
    return {loss = net.loss_history[29]}
end function
grid = {lr = [0.03, 0.01, 0.003, 0.001], rep = [1, 2]}
"""
SIZES = "8 configurations, each 30 epochs of a 20-64-1 MLP on 2,000 rows (about 1 s)"


def ray_folder() -> None:
    folder = tempfile.mkdtemp(prefix="lambench", dir="/tmp")
    os.environ.setdefault("RAY_TMPDIR", folder)
    os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(32))
    atexit.register(shutil.rmtree, folder, True)     # runs after Ray's own exit hook (registered later)


def sweeping(workers: int):
    interp = Interpreter()
    interp.run(PROGRAM, "bench")
    code = interp.compile(f"t = sweep(train, grid, seed = 1, workers = {workers})", "bench")

    def run():
        interp.run_code(code)
        assert interp.get("t").columns["error"] == [""] * 8
    return run


def start_up():
    from lamina.cluster import engine
    interp = Interpreter()
    code = interp.compile("t = sweep(c -> c.k, {k = [1, 2]}, workers = 2)", "bench")

    def run():
        interp.run_code(code)
        engine.shutdown()
    return run


def cases() -> list[dict]:
    missing = needs("ray")
    if not missing:
        ray_folder()
    return [
        {"name": "sweep: 8 one-second trainings", "sizes": SIZES, "dtype": "float64", "repeat": 4,
         "impls": {"lamina": sweeping(1), "workers = 2 (Ray)": missing or sweeping(2)},
         "notes": ["the reference is workers = 1 (one configuration after another in the process), so "
                   "Lamina / peer for workers = 2 is the speed-up; 2x is the limit on two cores."]},
        {"name": "sweep: Ray start-up (start, first sweep, stop)", "sizes": "2 CPUs, 2 trivial configurations",
         "dtype": "-", "repeat": 4, "impls": {"lamina": missing or start_up()},
         "notes": ["paid once per program: later sweeps reuse the instance (the first case's warm-up "
                   "pays it)."]},
    ]
