"""Where a package's tasks run: one after another in this process, or as Ray tasks.

`workers = 1` (and a single task, and any sweep inside a worker's task) runs in this process,
without Ray. Otherwise each task is a Ray task; at most `workers` are submitted at a time, so
the same limit holds on a cluster larger than asked for. Ray is imported only then.

`address = none` starts a local Ray instance with `workers` CPUs (or reuses the one this
process started, if it has enough), quietly: no dashboard, a small object store, no logs
forwarded (a task's output comes back with its result); it is shut down when the process ends (Ray's own exit hook). An address joins an
existing cluster (`ray start --head` on its first machine). A Ray instance this process did
not start (a Python host that called ray.init itself) is used as it is.

Ctrl-C stops the run: the tasks still running are cancelled and the outcomes finished so far
come back, with `interrupted` set.
"""
from __future__ import annotations

import logging
import os
import shutil
import socket
import sys
from dataclasses import dataclass, field

from ..errors import LaminaError, ProgramExit
from ..models.callbacks import progress
from .package import Package
from .worker import Outcome, run_task, running_in_worker

OBJECT_STORE_BYTES = 200 * 1024 ** 2
MAX_WORKERS = 1024
CONNECT_TIMEOUT_S = 5
_STARTED: dict = {}         # the Ray instance this process started or joined: {"address", "cpus"}
_REMOTE: dict = {}          # the Ray remote function wrapping run_task, made once


@dataclass
class Run:
    """What a caller asked for: the tasks' items and seeds, how to check a result, and where."""
    who: str                              # "sweep" or "parallel_map", for messages
    unit: str                             # what one task is called ("configuration", "item")
    items: list                           # packed arguments, one per task
    seeds: list[int]
    check: object                         # picklable: result -> what travels back
    workers: int | None
    address: str | None
    stop_on_error: bool = False           # parallel_map: the first error ends the run
    outcomes: list = field(default_factory=list)
    interrupted: bool = False


def execute(package: Package, run: Run) -> Run:
    n = len(run.items)
    run.outcomes = [None] * n
    local = run.address is None and (run.workers in (None, 1) or n < 2)
    bar = Bar(n, run.who, run.unit)
    try:
        if local or running_in_worker():
            _serially(package, run, bar)
        else:
            _on_ray(package, run, bar)
    finally:
        bar.close()
    return run


def _serially(package: Package, run: Run, bar: "Bar") -> None:
    for i, (item, seed) in enumerate(zip(run.items, run.seeds)):
        try:
            outcome = run_task(package, i, item, seed, run.check)
        except KeyboardInterrupt:
            run.interrupted = True
            return
        run.outcomes[i] = outcome
        bar.done(outcome)
        if outcome.exit is not None:
            raise ProgramExit(outcome.exit)
        if outcome.error is not None and run.stop_on_error:
            return


# -- Ray ------------------------------------------------------------------------------
def import_ray(who: str, workers):
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")   # no prompt, no reporting home
    try:
        import ray
    except ImportError:
        asked = "an address" if workers in (None, 1) else f"workers = {workers}"
        raise LaminaError("ImportError", f"{who} with {asked} runs its tasks on Ray, which is not "
                          f"installed. Install it with pip install 'lamina[cluster]' (or pip install "
                          f"ray), or use workers = 1 to run them one after another in this process.") from None
    return ray


def connect(ray, who: str, workers: int | None, address: str | None) -> int:
    """Start or join Ray as asked; returns how many tasks to keep running at once."""
    if ray.is_initialized() and not _STARTED:      # the host's own Ray instance: used as it is
        if address is not None:
            raise LaminaError("Error", f"{who} cannot join \"{address}\": Ray is already running in this "
                              f"process, started by the program that hosts Lamina. Leave address = none "
                              f"to use that instance.")
    elif ray.is_initialized() and _STARTED["address"] == address and (
            address is not None or _STARTED["cpus"] >= workers):
        pass
    else:
        if ray.is_initialized():
            ray.shutdown()
            _STARTED.clear()
        options = dict(log_to_driver=False, logging_level=logging.ERROR)
        if address is None:
            # "local": a new instance even where `ray start` left one running. (No node address:
            # Ray replaces 127.0.0.1 by the machine's own; its token authentication guards it.)
            options.update(address="local", num_cpus=workers, include_dashboard=False,
                           object_store_memory=OBJECT_STORE_BYTES)
        else:
            options.update(address=address)
        what = "start a local Ray instance" if address is None else f"join the Ray cluster at \"{address}\""
        hint = "" if address is None else (
            " Start one with `ray start --head` on its first machine and give the address it "
            "printed; a cluster with token authentication (Ray's default) also needs "
            "RAY_AUTH_MODE=token and its token in RAY_AUTH_TOKEN here (docs/scaling.md).")
        try:
            if address is not None:
                _answers(address)
            ray.init(**options)
        except Exception as exc:        # Ray's own errors: a refused connection, a bad address ...
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0].rstrip(".")
            raise LaminaError("Error", f"{who} could not {what}: {reason}.{hint}") from None
        _STARTED.update(address=address, cpus=workers or 0)
    if workers is not None:
        return workers
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _answers(address: str) -> None:
    """A `host:port` address where nothing listens fails now: Ray would retry for minutes."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return                          # "auto", or a form Ray resolves itself
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise ConnectionError(f"nothing answers at {host}:{port} ({exc.strerror or exc})") from None


def shutdown() -> None:
    """Stop the Ray instance this process started or joined (tests; Ray's exit hook does it too)."""
    if _STARTED:
        import ray
        ray.shutdown()
        _STARTED.clear()


def _remote(ray):
    if "run" not in _REMOTE:
        _REMOTE["run"] = ray.remote(num_cpus=1, max_retries=0)(run_task)
    return _REMOTE["run"]


def _on_ray(package: Package, run: Run, bar: "Bar") -> None:
    ray = import_ray(run.who, run.workers)
    window = connect(ray, run.who, run.workers, run.address)
    remote = _remote(ray)
    shared = ray.put(package)                  # sent once, not once per task
    pending: dict = {}
    following = 0
    try:
        while following < len(run.items) or pending:
            while following < len(run.items) and len(pending) < window:
                i = following
                pending[remote.remote(shared, i, run.items[i], run.seeds[i], run.check)] = i
                following += 1
            done, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in done:
                i = pending.pop(ref)
                outcome = _result(ray, ref, i, run)
                run.outcomes[i] = outcome
                bar.done(outcome)
                if outcome.exit is not None:       # exit(code) in a call ends the program, as without Ray
                    _cancel(ray, pending)
                    raise ProgramExit(outcome.exit)
                if outcome.error is not None and run.stop_on_error:
                    following = len(run.items)
                    _cancel(ray, pending)
                    pending.clear()
                    break
    except KeyboardInterrupt:
        run.interrupted = True
        _cancel(ray, pending)


def _result(ray, ref, i: int, run: Run) -> Outcome:
    try:
        return ray.get(ref)
    except ray.exceptions.RayError as exc:     # the worker process died, ran out of memory ...
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return Outcome(i, error=LaminaError("Error", f"The Ray worker running {run.who}'s {run.unit} {i} "
                                            f"failed: {reason}"))


def _cancel(ray, pending: dict) -> None:
    for ref in pending:
        try:
            ray.cancel(ref, force=True)
        except Exception:       # finished meanwhile, or its worker is gone already
            pass


# -- progress ---------------------------------------------------------------------------
class Bar:
    """A tqdm bar counting finished tasks, on a terminal or in a notebook (as fit's); the
    output of each task is written above it when the task finishes."""

    def __init__(self, total: int, who: str, unit: str):
        self.bar = None
        if total > 1 and _is_terminal(sys.stdout):
            from tqdm import tqdm
            # The size is given, not probed by tqdm, as fit's bar does: a terminal that reports
            # no size still shows it (shutil falls back to 80 columns).
            size = shutil.get_terminal_size()
            self.bar = tqdm(total=total, desc=who, unit=unit, file=sys.stdout, leave=False,
                            ncols=min(size.columns, 100), nrows=max(size.lines, 2), mininterval=0)

    def done(self, outcome: Outcome) -> None:
        if outcome.output or outcome.warnings:
            if self.bar is not None:
                with self.bar.external_write_mode(file=sys.stdout):
                    self._write(outcome)
            else:
                self._write(outcome)
        if self.bar is not None:
            self.bar.update(1)

    @staticmethod
    def _write(outcome: Outcome) -> None:
        sys.stdout.write(outcome.output)
        sys.stdout.flush()
        sys.stderr.write(outcome.warnings)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _is_terminal(stream) -> bool:
    if progress.live_output:
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
