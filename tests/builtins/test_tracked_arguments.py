"""Every builtin, given tracked arguments, keeps its word about gradients (registry `tracked`).

No builtin may lose a gradient without a word. A differentiable builtin (one with GradCases)
must return a result recorded on the tape; the generic gradient check runs it against finite
differences. A `constant` builtin is declared to pass no gradient (sizes, counts, text,
decisions, output, training); its result must not be connected to the tracked argument. A
`refuses` builtin must answer a tracked argument with a TypeError that says so.

PROBES holds, for every builtin that is not differentiable, calls in Lamina with tracked
arguments (`param(...)` bound to p, q and c before the call); a builtin none of whose arguments
can carry a gradient says why instead. A builtin added without an entry fails here.
"""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from builtin_checks import fresh_tape, in_tmp_dir  # noqa: F401  (autouse fixtures)

from lamina.autodiff import reductions
from lamina.autodiff.grad import backward
from lamina.autodiff.gradcheck import random_input
from lamina.autodiff.tape import TAPE, is_live
from lamina.builtins.registry import Const, load_all
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.values import LibObject, Record, Tracked

REGISTRY = load_all()
NET = "net = input(2) |> dense(1, activation = \"none\") |> compile(optimizer = \"sgd\", loss = \"mse\", seed = 1)\n"
X, Y = "[0, 1; 1, 0; 1, 1; 0, 0]", "[1; 1; 2; 0]"


def none(reason: str) -> str:
    return reason


# name -> Lamina calls with tracked arguments p (and q), or a reason why none exists.
PROBES: dict[str, list[str] | str] = {
    # Autodiff
    "param": ["param(p)"], "track": ["track(p)"], "detach": ["detach(p)", "detach({a = p, b = [p, 1]})"],
    "grad": ["grad(sum(p .* p), wrt = p)"],
    "tape_limit": none("its argument is a count of entries"),
    "tape_reset": none("takes no argument"), "tape_size": none("takes no argument"),
    # Core
    "assert": ["assert(sum(p) > 0)"], "clock": none("takes no argument"),
    "error": none("stops the program with its message"), "has": none("takes a record and a name"),
    "help": none("takes a builtin's name"), "keys": ["keys({a = p})"], "length": ["length(p)"],
    "print": ["print(p, q)"], "args": none("takes no argument"),
    "exit": none("ends the program with a status"), "warn": ["warn(string(p))"],
    "warnings": none("takes true or false"),
    "print_options": ["print_options(digits = p[0] * 2)"],
    # Data
    "as_matrix": none("takes a table, and a table refuses tracked columns"),
    "columns": none("takes a table"), "nrows": none("takes a table"), "head": none("takes a table"),
    "read_csv": none("takes a path"), "write_csv": ['write_csv(q, "probe.csv")'],
    "table": ["table(q)"], "describe": ["describe(q)"], "train_test_split": ["train_test_split(q, p)"],
    "drop_missing": ["drop_missing(p)", "drop_missing(q)"], "sort_rows": ["sort_rows(q, 0)"],
    "with_column": ['with_column(table({a = [1, 2, 3, 4]}), "b", p)'],
    "drop_columns": none("takes a table and column names"), "group_by": none("takes a table and column names"),
    "aggregate": none("takes a grouped table and a function; a tracked result of the function is a TypeError"),
    "merge": none("takes tables and column names"),
    "best": none("takes a table, and a table refuses tracked columns"),
    # Figures
    "bar": ["bar(p)"], "hist": ["hist(p)"], "plot": ["plot(p)", "plot(p, p .* 2)"], "scatter": ["scatter(p, p)"],
    "figure": none("its arguments are a size in inches"), "savefig": none("takes a path"),
    "show": none("takes no argument"),
    # Math
    "all": ["all(p)"], "any": ["any(p)"], "ceil": ["ceil(p)"], "floor": ["floor(p)"],
    "round": ["round(p, 1)"], "sign": ["sign(p)"],
    "isnan": ["isnan(p)", "isnan(p[0])"], "isinf": ["isinf(q)"], "isfinite": ["isfinite(p)"],
    "argsort": ["argsort(p)", "argsort(q, axis = 1)", "argsort(q, by = row -> row[0] - p[0])"],
    # Linear algebra
    "eig": ["eig([1, 2; 2, 1] .* p[0])", "eig(q[0:2, :])"],
    # Models
    "compile": none("takes a model spec"), "input": none("its argument is a count of inputs"),
    "load_model": none("takes a path"), "save_model": none("takes a model and a path"),
    **{name: none("appends a layer to a model spec; its arguments are sizes and settings")
       for name in ("gru", "embedding", "layer_norm")},
    "evaluate": [NET + f"evaluate(net, q, {Y})"], "fit": [NET + f"fit(net, q, {Y})"],
    "predict": [NET + "predict(net, q)"], "quick_mlp": [f"quick_mlp(q, {Y}, epochs = 2)"],
    # Neural nets
    "gru_init": none("its arguments are sizes"),
    # Optimizers & training
    **{name: [f"{name}(p, 0.1)"] for name in ("adadelta", "adagrad", "adam", "adamax", "adamw", "nadam",
                                               "nesterov_sgd", "rmsprop", "sgd")},
    "optimizer_step": ["optimizer_step(sgd([1, 2, 3, 4], 0.1), p)"],
    "train_loop": ["train_loop(w -> sum((w - 1) .^ 2), p, 2, optimizer = sgd(lr = 0.1))"],
    **{name: none("its arguments are settings of a schedule")
       for name in ("lr_adaptive", "lr_cosine", "lr_plateau", "lr_step")},
    # Parallel
    "sweep": ["sweep(c -> c.x, {x = p})", "sweep(c -> sum(p) * c.x, {x = [1, 2]})",
              "sweep(c -> c.x, [{x = c}])"],
    "parallel_map": ["parallel_map(x -> x, p)", "parallel_map(x -> x * q, [1, 2])",
                     "parallel_map(x -> detach(x), [1, 2], seed = p[0])"],
    # Random
    **{name: none("its arguments are sizes and counts")
       for name in ("permutation", "rand", "randint", "randn", "seed")},
    # Statistics
    **{name: [f"{name}([1, 0, 1, 1], c)", f"{name}(c, [1, 0, 0, 1])"]
       for name in ("accuracy", "f1", "precision", "recall")},
    "confusion_matrix": ["confusion_matrix([1, 0, 1, 1], c)"],
    "sample": none("takes a distribution (which refuses tracked parameters) and counts"),
    "normal": ["normal(p[0], 1)", "normal(0, sigma = p[1])"], "uniform": ["uniform(p[0], 5)"],
    "binomial": ["binomial(10, p[0] / 4)"], "poisson": ["poisson(p[0])"], "exponential": ["exponential(p[0])"],
    "student_t": ["student_t(p[0])"], "chi2": ["chi2(df = p[1])"], "f_dist": ["f_dist(3, p[0])"],
    "gamma_dist": ["gamma_dist(p[0])", "gamma_dist(2, rate = p[1])"], "beta_dist": ["beta_dist(p[0], p[1])"],
    "t_test": ["t_test(p)", "t_test([1, 2, 3], p)", "t_test(c, mu = p[0])"],
    "chisq_test": ["chisq_test(p)", "chisq_test([10, 20, 30, 40], p = p ./ sum(p))"],
    "corr_test": ["corr_test(p, [1, 3, 2, 5])", "corr_test([1, 3, 2, 5], p, method = \"spearman\")"],
    "pdf": ["pdf(normal(0, 1), p)", "normal(0, 1).pdf(p)"], "cdf": ["cdf(normal(0, 1), p)"],
    "histogram": ["histogram(p)", "histogram([1, 2, 3], p)"], "kmeans": ["kmeans(q, 2, seed = 1)"],
    "linreg": ["linreg(q, p)", f"linreg({X}, p)"], "logreg": ["logreg(q, [1, 1, 1, 0])"],
    "pca": ["pca(q)"], "polyfit": ["polyfit(p, p .* 2, 1)"], "unique": ["unique(p)"],
    # Tensors
    "argmax": ["argmax(p)"], "find": ["find(p)", "find(q > 0)"], "argmin": ["argmin(q, axis = 0)"], "size": ["size(q)"], "dtype": ["dtype(p)"],
    "eye": none("its argument is a size"), "ones": none("its arguments are sizes"),
    "zeros": none("its arguments are sizes"), "range": ["range(p[0])", "range(0, p[3], 0.5)"],
    # Text & types
    "join": ["join([p[0], \"a\"], \", \")"], "string": ["string(p)"], "type": ["type(p)"],
    "format": ['format(p, ".2f")', 'format(q, "5.1f")'],
    **{name: none("takes text") for name in ("contains", "lower", "number", "replace", "split", "trim",
                                               "upper")},
}

# Arguments of differentiable builtins that take no gradient: refused, never ignored.
REFUSED_ARGUMENTS = ["quantile([1, 2, 3], p[0] / 10)", "choice([1, 2, 3, 4], 2, p = p ./ sum(p))",
                     "normal(0, 1).quantile(p[0] / 10)"]
SETUP = "p = param([1.5, 2.0, 2.5, 3.0])\nq = param([0, 1; 1, 0; 1, 1; 2, 0])\nc = param([1, 0, 1, 0])\n"


def run_probe(call: str):
    """(the result of `call`, the tracked p and q it was given); raises the LaminaError it raises."""
    interp = Interpreter()
    setup, _, last = (SETUP + call).rpartition("\n")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        interp.run(f"{setup}\nprobe_result = {last}\n", "<probe>")
    return interp.get("probe_result"), [interp.get(v) for v in ("p", "q", "c")]


def tracked_members(x) -> list:
    if isinstance(x, list):
        return [m for item in x for m in tracked_members(item)]
    if isinstance(x, Record):
        return [m for item in x.fields.values() for m in tracked_members(item)]
    if isinstance(x, LibObject):
        return [m for name in x.field_names() for m in tracked_members(_field(x, name))]
    return [x] if is_live(x) else []


def _field(obj: LibObject, name: str):
    try:
        return obj.get(name)
    except LaminaError:
        return None


def connected(result, inputs: list) -> bool:
    """Whether any tracked value in `result` depends on any of `inputs` on the tape."""
    wanted = {x.node for x in inputs if type(x) is Tracked}
    for member in tracked_members(result):
        loss = member if type(member.value) is float else reductions.sum(member)
        if backward(loss, wanted)[0]:
            return True
    return False


def test_every_builtin_declares_what_it_does_with_a_tracked_argument():
    for name, spec in REGISTRY.items():
        assert spec.tracked in ("differentiable", "constant", "refuses"), name
        assert (spec.tracked == "differentiable") == (spec.grad is not None), name
        if spec.tracked != "differentiable":
            assert name in PROBES, f"{name} needs an entry in PROBES: calls with tracked arguments"
    assert not set(PROBES) - set(REGISTRY), "PROBES names builtins that do not exist"


@pytest.mark.parametrize("name", sorted(n for n, s in REGISTRY.items() if s.tracked != "differentiable"))
def test_a_builtin_that_is_not_differentiable_keeps_its_word(name):
    spec, probes = REGISTRY[name], PROBES[name]
    if isinstance(probes, str):
        assert probes, f"{name}: say why no argument can be tracked"
        return
    for call in probes:
        if spec.tracked == "refuses":
            with pytest.raises(LaminaError) as info:
                run_probe(call)
            assert info.value.kind == "TypeError", f"{call}: {info.value.render()}"
            assert "tracked" in info.value.message and "detach" in info.value.message, call
        else:
            result, inputs = run_probe(call)
            assert not connected(result, inputs), f"{name} is declared constant but {call} passes a gradient"


@pytest.mark.parametrize("call", REFUSED_ARGUMENTS)
def test_arguments_that_take_no_gradient_are_refused(call):
    with pytest.raises(LaminaError) as info:
        run_probe(call)
    assert info.value.kind == "TypeError" and "detach" in info.value.message, info.value.render()


@pytest.mark.parametrize("name", sorted(n for n, s in REGISTRY.items() if s.tracked == "differentiable"))
def test_a_differentiable_builtin_records_its_result_for_every_case(name):
    """Each GradCase's tracked arguments give a result connected to every one of them (the
    gradient check then compares the numbers)."""
    rng = np.random.default_rng(7)
    for case in REGISTRY[name].grad:
        TAPE.reset()
        args = [a.value if isinstance(a, Const) else TAPE.leaf(random_input(a, case.domain, rng), False)
                for a in case.args]
        kwargs = {k: (v.value if isinstance(v, Const) else v) for k, v in case.kwargs.items()}
        if case.reseed:
            from lamina.rng import reseed
            reseed(0)
        out = REGISTRY[name].fn(*args, **kwargs)
        for x in args:
            if type(x) is Tracked and np.size(x.value):
                assert connected(out, [x]), f"{name}{case.args}: the result does not depend on an argument"
