"""`sweep` and `parallel_map`: their arguments, the seeds, and what comes back.

Configuration i of a sweep (item i of a map) gets the seed
    SeedSequence(s).spawn(n)[i].generate_state(1)[0]
(NumPy's way of deriving independent streams; the same as SeedSequence(s, spawn_key=(i,))),
a whole number below 2^32 that depends on s and i only: the same numbers whatever the number of
workers and whatever order they finish in. Without a seed, s is drawn from the global
generator, so seed(n) at the top of a program makes a sweep repeat too. A grid field named
`seed` sets its configurations' seeds itself.
"""
from __future__ import annotations

import itertools
import math
from functools import partial

import numpy as np

from ..autodiff.handed import thawed
from ..autodiff.shaping import like_items_of
from ..errors import LaminaError
from ..lang.pyerrors import current_place
from ..lang.operators import bracket
from ..printing import format_value
from ..rng import generator
from ..stats.table import Table
from ..values import Record, Tracked, as_int, describe, is_function, value_of
from ..warnings import warn
from .engine import MAX_WORKERS, Run, execute
from .package import Packer, plain_result

MAX_CONFIGURATIONS = 100_000
RESERVED = ("seconds", "error")


def seeds_for(base: int, n: int) -> list[int]:
    return [int(np.random.SeedSequence(base, spawn_key=(i,)).generate_state(1)[0]) for i in range(n)]


def base_seed(seed, who: str) -> int:
    if seed is None:
        return int(generator().integers(0, 2 ** 32))
    return as_int(seed, f"{who}'s seed", minimum=0)


def workers_of(workers, who: str) -> int | None:
    if workers is None:
        return None
    n = as_int(workers, f"{who}'s workers", minimum=1)
    if n > MAX_WORKERS:
        raise LaminaError("ValueError", f"{who}'s workers must be at most {MAX_WORKERS}, not {n}.")
    return n


def address_of(address, who: str) -> str | None:
    if address is None:
        return None
    if not isinstance(address, str) or not address.strip():
        raise LaminaError("TypeError", f"{who}'s address must be none (a local Ray instance), \"auto\" or "
                          f"a cluster's address such as \"ray://host:10001\", not {describe(address)}.")
    return address.strip()


def function_of(scope, fn, who: str, what: str):
    fn = scope.resolve(fn, what)
    if not is_function(fn):
        raise LaminaError("TypeError", f"{who}'s {what} must be a function (or its variable's name), not "
                          f"{describe(fn)}.")
    return fn


def packer_for(scope, who: str) -> Packer:
    if scope.host is None:
        raise LaminaError("Error", f"{who} needs a program to run in (an Interpreter).")
    return Packer(who, scope.namespace, scope.host)


# -- sweep ------------------------------------------------------------------------------
def sweep(scope, train_fn, grid, workers=None, address=None, seed=None) -> Table:
    fn = function_of(scope, train_fn, "sweep", "training function")
    names, configs = configurations(grid)
    workers, address = workers_of(workers, "sweep"), address_of(address, "sweep")
    seeds = _grid_seeds(configs) if "seed" in names else seeds_for(base_seed(seed, "sweep"), len(configs))
    columns = names if "seed" in names else names + ["seed"]
    packer = packer_for(scope, "sweep")
    package = packer.main(fn)
    items = [packer.value(Record({**c, "seed": float(s)}), f"configuration {i}")
             for i, (c, s) in enumerate(zip(configs, seeds))]
    run = execute(package, Run("sweep", "configuration", items, seeds, partial(sweep_result, taken=tuple(columns)),
                               workers, address))
    finished = [o for o in run.outcomes if o is not None]
    if run.interrupted:
        warn(f"sweep stopped by Ctrl-C after {len(finished)} of {len(configs)} configurations finished; "
             f"it returns the table of those.")
    rows = [{**configs[o.index], "seed": float(seeds[o.index])} for o in finished]
    return result_table(columns, names, rows, finished)


def configurations(grid) -> tuple[list[str], list[dict]]:
    """The grid's field names and its configurations, in grid order (the first field slowest)."""
    if isinstance(grid, Record):
        axes = [(name, _choices(value, name)) for name, value in grid.fields.items()]
        if not axes:
            raise LaminaError("ValueError", "sweep's grid has no fields: give each swept parameter a "
                              "list of values, as in {lr = [0.1, 0.01]}.")
        size = math.prod(len(values) for _, values in axes)
        if size > MAX_CONFIGURATIONS:
            raise LaminaError("ValueError", f"sweep's grid makes {size:,} configurations; at most "
                              f"{MAX_CONFIGURATIONS:,} can run in one sweep.")
        names = [name for name, _ in axes]
        configs = [dict(zip(names, combo)) for combo in itertools.product(*(values for _, values in axes))]
    elif isinstance(grid, list) and grid and all(isinstance(c, Record) for c in grid):
        names = list(grid[0].fields)
        for i, c in enumerate(grid):
            if set(c.fields) != set(names):
                raise LaminaError("ValueError", f"sweep's configurations must all have the same fields: "
                                  f"configuration 0 has {', '.join(names)} but configuration {i} has "
                                  f"{', '.join(c.fields) or 'none'}.")
        configs = [{k: c.fields[k] for k in names} for c in grid]
    else:
        raise LaminaError("TypeError", f"sweep's grid must be a record of lists ({{lr = [0.1, 0.01], "
                          f"units = [16, 64]}}, every combination) or a list of records (one "
                          f"configuration each), not {describe(grid)}.")
    for name in names:
        if name in RESERVED:
            raise LaminaError("ValueError", f"sweep's grid cannot have a field named {name}: the table "
                              f"has a column of that name already.")
        for c in configs:
            c[name] = thawed(c[name])
            if type(c[name]) is Tracked:
                raise LaminaError("TypeError", f"sweep's grid holds a tracked value in {name}; pass "
                                  f"detach(x) to sweep over its number.")
    return names, configs


def _choices(value, name: str) -> list:
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise LaminaError("TypeError", f"sweep's grid field {name} must be a list of values, not "
                              f"{describe(value)}.")
        values = [float(v) for v in value]
    elif isinstance(value, list):
        values = list(value)
    else:
        values = [value]          # one value: the same in every configuration
    if not values:
        raise LaminaError("ValueError", f"sweep's grid field {name} has no values.")
    return values


def _grid_seeds(configs: list[dict]) -> list[int]:
    return [as_int(c["seed"], f"sweep's grid field seed (configuration {i})", minimum=0)
            for i, c in enumerate(configs)]


def sweep_result(value, taken: tuple) -> dict:
    """A training function's result as the row's numbers (runs where the function ran)."""
    value = thawed(value)
    if (isinstance(value, float | int) and not isinstance(value, bool)) or type(value) is Tracked:
        fields = {"result": value}
    elif isinstance(value, Record):
        fields = dict(value.fields)
    else:
        raise LaminaError("TypeError", f"sweep's training function must return a number or a record of "
                          f"numbers, not {describe(value)}.")
    for k, v in fields.items():
        if type(v) is Tracked:
            where = f" in {k}" if isinstance(value, Record) else ""
            raise LaminaError("TypeError", f"sweep's training function returned a tracked value{where}; "
                              f"return detach(...) of it (a tape does not leave its worker).")
        if not isinstance(v, float | int) or isinstance(v, bool):
            raise LaminaError("TypeError", f"sweep's training function must return numbers, but its "
                              f"result's {k} is {describe(v)}.")
        if k in taken or k in RESERVED:
            if not isinstance(value, Record):
                raise LaminaError("ValueError", f"sweep's training function returned a number, whose column "
                                  f"{k} is also a column of the configuration; return a record such as "
                                  f"{{score = ...}} instead.")
            raise LaminaError("ValueError", f"sweep's training function returned a field {k}, which is "
                              f"also a column of the configuration; give it another name.")
    return {k: float(v) for k, v in fields.items()}


def error_text(err: LaminaError) -> str:
    if err.span is None:
        return f"{err.kind}: {err.message}"
    return f"{err.kind} at {err.span.source.name}:{err.span.line}: {err.message}"


def result_table(columns: list[str], swept: list[str], rows: list[dict], outcomes: list) -> Table:
    """Configuration columns, then the results' (in the order they first appear), then seconds
    and error; numbers a failed row lacks are NaN."""
    table = {name: _column([r[name] for r in rows]) for name in columns}
    results: dict[str, None] = {}
    for o in outcomes:
        results.update(dict.fromkeys(o.value or ()))
    for k in results:
        table[k] = np.array([(o.value or {}).get(k, np.nan) for o in outcomes], dtype=np.float64)
    table["seconds"] = np.array([o.seconds for o in outcomes], dtype=np.float64)
    table["error"] = ["" if o.error is None else error_text(o.error) for o in outcomes]
    return Table(table, tuple(swept))


def _column(values: list):
    if all(isinstance(v, float | int) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.float64)
    return [v if isinstance(v, str) else format_value(v) for v in values]


# -- parallel_map -------------------------------------------------------------------------
def parallel_map(scope, f, xs, workers=None, address=None, seed=None):
    fn = function_of(scope, f, "parallel_map", "function")
    xs = value_of(xs)                # a tracked vector's numbers: parallel_map passes no gradient
    if isinstance(xs, np.ndarray) and xs.ndim == 1:
        values = [float(v) for v in xs]
    elif isinstance(xs, list):
        values = list(xs)
    else:
        raise LaminaError("TypeError", f"parallel_map's items must be a vector or a list, not {describe(xs)}.")
    workers, address = workers_of(workers, "parallel_map"), address_of(address, "parallel_map")
    seeds = seeds_for(base_seed(seed, "parallel_map"), len(values))
    packer = packer_for(scope, "parallel_map")
    package = packer.main(fn)
    items = [packer.value(v, f"item {i}") for i, v in enumerate(values)]
    place = current_place()
    run = execute(package, Run("parallel_map", "item", items, seeds, partial(plain_result, who="parallel_map"),
                               workers, address, stop_on_error=True))
    if run.interrupted:
        raise KeyboardInterrupt
    for o in run.outcomes:
        if o is not None and o.error is not None:
            err = o.error
            err.note = f"in item {o.index} of the parallel_map"
            if err.span is not None:      # where it happened in f; else it is placed at this call
                err.note += f" at {place}" if place else ""
                err.located = True
            raise err
    return like_items_of(bracket(tuple(o.value for o in run.outcomes)), xs)
