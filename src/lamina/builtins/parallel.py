"""Parallel builtins: sweep and parallel_map (lamina.cluster runs them, here or on Ray)."""
from __future__ import annotations

import numpy as np

from ..values import is_function
from .registry import Shape, builtin, refuse_tracked

CATEGORY = "Parallel"
WHERE = ("workers = 1 (the default) runs the calls one after another in this process, without "
         "Ray; so does a single call. workers = n runs them as Ray tasks, at most n at a time, on "
         "a local Ray instance with n CPUs that this process starts (once: a few seconds) and "
         "stops when it ends. address = \"auto\" or \"ray://host:port\" joins a cluster started "
         "with `ray start --head` (docs/scaling.md); workers then defaults to the cluster's CPUs. "
         "Ray comes with pip install 'lamina[cluster]'; without it, workers above 1 is an "
         "ImportError that says so. ")
SENT = ("Functions travel as source, not as Python objects: each call runs in a fresh "
        "interpreter that compiles the program (and imports its modules from their text) but runs "
        "none of its top level, so the sweep call and the program's printing and training at the "
        "top level happen once, here. The top-level variables the function reads, directly or "
        "through the functions it calls, are sent with the values they hold when the call is made; "
        "a function that reads a tracked value (made by param()) or an object that cannot be sent "
        "is a TypeError before anything runs. Inside a worker, sweep and parallel_map run their "
        "calls in that worker, one after another. What a call prints is shown when it finishes; "
        "the figures and files it makes stay where it ran. Each call has its own tape and global "
        "generator, seeded before it starts: call i gets the seed "
        "SeedSequence(s).spawn(n)[i].generate_state(1)[0] of the base seed s (drawn from the global "
        "generator when seed is not given), so the numbers are the same for any number of workers "
        "and in any order of finishing.")
TRAIN = '''function train(config)
    # a stand-in for a training run: 20 steps of gradient descent on (w - 3)^2
    w = 0.0
    for step = 1 to 20
        w = w - config.lr * 2 * (w - 3)
    end for
    return {loss = (w - 3) ^ 2, w = w}
end function
'''


@builtin("sweep", any_rank=True, tracked="refuses", category=CATEGORY, scoped=True,
         probes=["sweep(c -> c.x, {x = p})", "sweep(c -> sum(p) * c.x, {x = [1, 2]})", "sweep(c -> c.x, [{x = c}])"],
         float64_results=("a configuration's settings are numbers", ("result",)),
         shapes=[Shape("sweep(train_fn, grid)", "function, record of lists", "table",
                       "Calls train_fn(config) for every combination of the grid's values, one row each."),
                 Shape("sweep(train_fn, [config, ...])", "function, list of records", "table",
                       "One row per record, in order."),
                 Shape("sweep(train_fn, grid, workers = n, seed = s)", "the same, whole numbers", "table",
                       "Runs n configurations at a time on a local Ray instance; a base seed."),
                 Shape("sweep(train_fn, grid, address = \"auto\")", "the same, cluster address", "table",
                       "Runs them on an existing Ray cluster.")],
         summary="Runs a training function once per configuration of a hyperparameter grid, in "
                 "parallel on Ray when asked, and returns a table with one row per configuration.",
         examples=[TRAIN + 't = sweep(train, {lr = [0.01, 0.1, 0.5]}, seed = 1)\n'
                   'print(t[:, ["lr", "loss", "error"]])\nprint(best(t, "loss").lr)',
                   'function risky(config)\n    if config.x < 0\n'
                   '        error("x must not be negative", kind = "ValueError")\n    end if\n'
                   '    return sqrt(config.x)\nend function\n'
                   't = sweep(risky, [{x = 4}, {x = -1}, {x = 9}])\nprint(t.result)\nprint(t.error[1])',
                   'draws = sweep(config -> {draw = round(rand(), 4)}, {rep = [1, 2, 3]}, seed = 7)\n'
                   'print(draws[:, ["rep", "seed", "draw"]])'],
         notes="A grid record's fields are the swept parameters: each a list (or vector) of values, "
               "or one value that every configuration shares; the configurations are every "
               "combination, the first field changing slowest. A list of records gives the "
               "configurations one by one. train_fn receives a record of the configuration's fields "
               "plus seed, and returns a number (the column result) or a record of numbers. The "
               "table has the configuration's columns, seed, the result's columns, seconds (the "
               "call's time) and error, in grid order. A configuration that raises does not stop "
               "the others: its error column reads \"ValueError at file:line: message\" and its "
               "numbers are NaN (\"\" where all went well). Ctrl-C cancels the configurations not "
               "yet finished and returns the rows of those that have; a progress bar counts them "
               "on a terminal. A grid field named seed gives its configurations their seeds. "
               "best(t, \"loss\") picks the winning row, sort_rows orders them, and plot(t, "
               "\"loss\") draws the column against the swept parameter with the most values, one "
               "line per setting of the others. " + WHERE + SENT)
def sweep(scope, /, train_fn, grid, *, workers=None, address=None, seed=None):
    refuse_tracked("sweep", (grid, seed, workers))
    from ..cluster import (
        sweep as SW,  # Ray's side is loaded on first use, not at start-up
    )
    return SW.sweep(scope, train_fn=train_fn, grid=grid, workers=workers, address=address, seed=seed)


@builtin("parallel_map", any_rank=True, tracked="refuses", category=CATEGORY, scoped=True,
         probes=["parallel_map(x -> x, p)", "parallel_map(x -> x * q, [1, 2])",
                 "parallel_map(x -> detach(x), [1, 2], seed = p[0])"],
         float32_probes=["parallel_map(x -> x, p)", "parallel_map(x -> x * q, [1, 2])"],
         shapes=[Shape("parallel_map(f, xs)", "function, vector or list", "vector or list",
                       "f applied to each item, in input order; numbers back give a vector."),
                 Shape("parallel_map(f, xs, workers = n)", "the same, whole number", "vector or list",
                       "n items at a time on a local Ray instance."),
                 Shape("parallel_map(f, xs, address = \"auto\", seed = s)", "the same, cluster address, "
                       "whole number", "vector or list", "On an existing Ray cluster, with a base seed."),
                 Shape("xs |> parallel_map(f)", "vector or list, function", "vector or list",
                       "The order of map, for a pipe.")],
         summary="Applies a function to every item of a vector or list, in parallel on Ray when "
                 "asked, and returns the results in input order.",
         examples=['print(parallel_map(x -> x ^ 2, [1, 2, 3]))',
                   'function describe_run(n)\n    return "{n} steps"\nend function\n'
                   'print([10, 20] |> parallel_map(describe_run))'],
         notes="The results come back in the order of xs whatever order the calls finish in; when "
               "every result is a number they form a vector, otherwise a list (as map's). A result "
               "must be data (numbers, tensors, strings, lists, records, tables). The first call "
               "that raises stops the others, and its error is reported where it happened in f, "
               "with a note naming the item. Ctrl-C cancels the calls still running and stops the "
               "program. " + WHERE + SENT)
def parallel_map(scope, /, f, xs, *, workers=None, address=None, seed=None):
    if isinstance(f, (list, np.ndarray)) and (is_function(xs) or isinstance(xs, str)):
        f, xs = xs, f            # xs |> parallel_map(f), in map's order
    refuse_tracked("parallel_map", (xs, seed, workers))
    from ..cluster import sweep as SW
    return SW.parallel_map(scope, f=f, xs=xs, workers=workers, address=address, seed=seed)
