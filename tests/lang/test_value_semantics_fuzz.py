"""Every binding is a value: random programs of stores and bindings among vectors, records, a
list, tables (with a date column) and vectors of dates, run by Lamina (at top level, inside a function, and in a loop) and by a
model in Python that copies on every binding, must end with the same values.

The interpreter changes an unshared vector, record or table in place (`v[i] = x`,
`r.v[i] = x`, `t[i, "x"] = x`), deciding by reference counts; a wrong decision would change a
value another name still holds, silently. This test holds that decision to the semantics."""
from __future__ import annotations

import copy
import os

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from lamina.interpreter import Interpreter
from lamina.stats.dates import Dates
from lamina.values import Record

pytestmark = pytest.mark.ownership      # .ci/run runs these on every Python

VECTORS, RECORDS, TABLES, DATES = ["a", "b", "c"], ["r", "s"], ["t", "u"], ["d", "e"]
START = {
    "a": np.array([1.0, 2.0, 3.0]), "b": np.array([4.0, 5.0, 6.0]), "c": np.array([7.0, 8.0, 9.0]),
    "r": {"v": np.array([10.0, 11.0, 12.0]), "k": 1.0},
    "s": {"v": np.array([13.0, 14.0, 15.0]), "k": 2.0},
    "L": [np.array([16.0, 17.0, 18.0]), np.array([19.0, 20.0, 21.0])],
    "t": {"x": np.array([22.0, 23.0, 24.0]), "w": np.array(["2024-01-01", "2024-01-02", "2024-01-03"], "M8[D]")},
    "u": {"x": np.array([25.0, 26.0, 27.0]), "w": np.array(["2024-04-01", "2024-04-02", "2024-04-03"], "M8[D]")},
    "d": np.array(["2024-02-01", "2024-02-02", "2024-02-03"], "M8[D]"),
    "e": np.array(["2024-03-01", "2024-03-02", "2024-03-03"], "M8[D]"),
}
PRELUDE = """function bump(q)
    q[0] = q[0] + 100
    return q
end function
function bumpd(q)
    q[0] = q[0] + 100
    return q
end function
function bumpr(q)
    q.v[1] = q.v[1] + 1000
    q.k = q.k + 1
    return q
end function
"""
INIT = """a = [1, 2, 3]; b = [4, 5, 6]; c = [7, 8, 9]
r = {v = [10, 11, 12], k = 1}; s = {v = [13, 14, 15], k = 2}
L = [[16, 17, 18], [19, 20, 21]]
t = table({x = [22, 23, 24], w = date(2024, 1, [1, 2, 3])}); u = table({x = [25, 26, 27], w = date(2024, 4, [1, 2, 3])})
d = date(2024, 2, [1, 2, 3]); e = date(2024, 3, [1, 2, 3])
"""

vec, rec, tab = st.sampled_from(VECTORS), st.sampled_from(RECORDS), st.sampled_from(TABLES)
day = st.sampled_from(DATES)
DAY = np.timedelta64(1, "D")
i3, i2 = st.integers(0, 2), st.integers(0, 1)
num = st.integers(-9, 99).map(float)


def _fmt(n: float) -> str:
    return str(int(n))


# Each statement: (Lamina text, the same step on the model's dict of values).
def _stmts():
    def op(text, step):
        return (text, step)
    return st.one_of(
        st.tuples(vec, vec).map(lambda p: op(f"{p[0]} = {p[1]}", lambda m: m.__setitem__(p[0], m[p[1]].copy()))),
        st.tuples(vec, i3, num).map(lambda p: op(f"{p[0]}[{p[1]}] = {_fmt(p[2])}",
                                                 lambda m: m[p[0]].__setitem__(p[1], p[2]))),
        st.tuples(vec, i3, num).map(lambda p: op(f"{p[0]}[{p[1]}] += {_fmt(p[2])}",
                                                 lambda m: m[p[0]].__setitem__(p[1], m[p[0]][p[1]] + p[2]))),
        st.tuples(vec, i3, vec, i3).map(lambda p: op(f"{p[0]}[{p[1]}] = {p[2]}[{p[3]}]",
                                                     lambda m: m[p[0]].__setitem__(p[1], m[p[2]][p[3]]))),
        st.tuples(vec, num, num).map(lambda p: op(f"{p[0]}[[0, 2]] = [{_fmt(p[1])}, {_fmt(p[2])}]",
                                                  lambda m: m[p[0]].__setitem__([0, 2], [p[1], p[2]]))),
        st.tuples(vec, num).map(lambda p: op(f"{p[0]}[{p[0]} > 50] = {_fmt(p[1])}",
                                             lambda m: m[p[0]].__setitem__(m[p[0]] > 50, p[1]))),
        st.tuples(rec, vec).map(lambda p: op(f"{p[0]}.v[{p[1]} > 50] = 0",
                                             lambda m: m[p[0]]["v"].__setitem__(m[p[1]] > 50, 0.0))),
        st.tuples(vec, rec).map(lambda p: op(f"{p[0]} = {p[1]}.v", lambda m: m.__setitem__(p[0], m[p[1]]["v"].copy()))),
        st.tuples(rec, vec).map(lambda p: op(f"{p[0]}.v = {p[1]}", lambda m: m[p[0]].__setitem__("v", m[p[1]].copy()))),
        st.tuples(rec, rec).map(lambda p: op(f"{p[0]}.v = {p[1]}.v",
                                             lambda m: m[p[0]].__setitem__("v", m[p[1]]["v"].copy()))),
        st.tuples(rec, i3, num).map(lambda p: op(f"{p[0]}.v[{p[1]}] = {_fmt(p[2])}",
                                                 lambda m: m[p[0]]["v"].__setitem__(p[1], p[2]))),
        st.tuples(rec, i3, num).map(lambda p: op(f"{p[0]}.v[{p[1]}] += {_fmt(p[2])}",
                                                 lambda m: m[p[0]]["v"].__setitem__(p[1], m[p[0]]["v"][p[1]] + p[2]))),
        st.tuples(rec, num).map(lambda p: op(f"{p[0]}.k = {_fmt(p[1])}", lambda m: m[p[0]].__setitem__("k", p[1]))),
        st.tuples(rec, rec).map(lambda p: op(f"{p[0]} = {p[1]}", lambda m: m.__setitem__(p[0], copy.deepcopy(m[p[1]])))),
        st.tuples(rec, vec, num).map(lambda p: op(f"{p[0]} = {{v = {p[1]}, k = {_fmt(p[2])}}}",
                                                  lambda m: m.__setitem__(p[0], {"v": m[p[1]].copy(), "k": p[2]}))),
        st.tuples(vec, i2).map(lambda p: op(f"{p[0]} = L[{p[1]}]", lambda m: m.__setitem__(p[0], m["L"][p[1]].copy()))),
        st.tuples(i2, vec).map(lambda p: op(f"L[{p[0]}] = {p[1]}", lambda m: m["L"].__setitem__(p[0], m[p[1]].copy()))),
        st.tuples(i2, i3, num).map(lambda p: op(f"L[{p[0]}][{p[1]}] = {_fmt(p[2])}",
                                                lambda m: m["L"][p[0]].__setitem__(p[1], p[2]))),
        st.tuples(tab, i3, num).map(lambda p: op(f"{p[0]}[{p[1]}, \"x\"] = {_fmt(p[2])}",
                                                 lambda m: m[p[0]]["x"].__setitem__(p[1], p[2]))),
        st.tuples(vec, tab).map(lambda p: op(f"{p[0]} = {p[1]}.x", lambda m: m.__setitem__(p[0], m[p[1]]["x"].copy()))),
        st.tuples(tab, vec).map(lambda p: op(f"{p[0]}.x = {p[1]}", lambda m: m[p[0]].__setitem__("x", m[p[1]].copy()))),
        st.tuples(tab, tab).map(lambda p: op(f"{p[0]} = {p[1]}", lambda m: m.__setitem__(p[0], copy.deepcopy(m[p[1]])))),
        st.tuples(day, day).map(lambda p: op(f"{p[0]} = {p[1]}", lambda m: m.__setitem__(p[0], m[p[1]].copy()))),
        st.tuples(day, i3, day, i3).map(lambda p: op(f"{p[0]}[{p[1]}] = {p[2]}[{p[3]}]",
                                                     lambda m: m[p[0]].__setitem__(p[1], m[p[2]][p[3]]))),
        st.tuples(day, i3, i2).map(lambda p: op(f"{p[0]}[{p[1]}] = {p[0]}[{p[2]}] + 1",
                                                lambda m: m[p[0]].__setitem__(p[1], m[p[0]][p[2]] + DAY))),
        st.tuples(day, day).map(lambda p: op(f"{p[0]} = bumpd({p[1]})", lambda m: m.__setitem__(
            p[0], np.concatenate([[m[p[1]][0] + 100 * DAY], m[p[1]][1:]])))),
        st.tuples(i3, day, i3).map(lambda p: op(f"t[{p[0]}, \"w\"] = {p[1]}[{p[2]}]",
                                                lambda m: m["t"]["w"].__setitem__(p[0], m[p[1]][p[2]]))),
        st.tuples(day, i3, day, i3).map(lambda p: op(f"t.w[{p[1]}] = {p[2]}[{p[3]}]\n{p[0]} = t.w",
                                                     lambda m: (m["t"]["w"].__setitem__(p[1], m[p[2]][p[3]]),
                                                                m.__setitem__(p[0], m["t"]["w"].copy())))),
        st.just(op("t.w = d", lambda m: m["t"].__setitem__("w", m["d"].copy()))),
        st.tuples(vec, vec).map(lambda p: op(f"{p[0]} = bump({p[1]})", lambda m: m.__setitem__(
            p[0], np.concatenate([[m[p[1]][0] + 100], m[p[1]][1:]])))),
        st.tuples(rec, rec).map(lambda p: op(f"{p[0]} = bumpr({p[1]})", lambda m: m.__setitem__(p[0], {
            "v": np.array([m[p[1]]["v"][0], m[p[1]]["v"][1] + 1000, m[p[1]]["v"][2]]), "k": m[p[1]]["k"] + 1}))),
    )


def _block():
    """A statement, or a few in a loop that runs them twice."""
    loop = st.lists(_stmts(), min_size=1, max_size=4).map(
        lambda body: ("for rep = 0 to 1\n" + "".join(f"    {t}\n" for t, _ in body) + "end for",
                      lambda m: [step(m) for _ in range(2) for _, step in body]))
    return st.one_of(_stmts(), _stmts(), _stmts(), loop)


def _model(blocks) -> dict:
    m = copy.deepcopy(START)
    for _, step in blocks:
        step(m)
    return m


def _plain(value):
    """A Lamina value in the model's terms."""
    if isinstance(value, Record):
        return {k: _plain(v) for k, v in value.fields.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "columns"):
        return {k: v.values if isinstance(v, Dates) else np.asarray(v, float) for k, v in value.columns.items()}
    if isinstance(value, Dates):
        return value.values
    return value


def _same(got, want, name):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), name
        for k in want:
            _same(got[k], want[k], f"{name}.{k}")
    elif isinstance(want, list):
        assert len(got) == len(want), name
        for j, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{name}[{j}]")
    elif isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want, err_msg=name)
    else:
        assert got == want, name


NAMES = [*VECTORS, *RECORDS, "L", *TABLES, *DATES]


@settings(max_examples=int(150 * float(os.environ.get("LAMINA_FUZZ_SCALE", "1"))), deadline=None)
@given(st.lists(_block(), min_size=1, max_size=12))
def test_stores_and_bindings_keep_value_semantics(blocks):
    body = "".join(text + "\n" for text, _ in blocks)
    note(body)                     # the program, when an example fails
    want = _model(blocks)
    # At top level (globals).
    interp = Interpreter()
    interp.run(PRELUDE + INIT + body, "<fuzz>")
    for name in NAMES:
        _same(_plain(interp.get(name)), want[name], name)
    # Inside a function (locals), its result a record of every name.
    indented = "".join("    " + line + "\n" for line in (INIT + body).splitlines())
    fields = ", ".join(f"{n} = {n}" for n in NAMES)
    interp = Interpreter()
    interp.run(f"{PRELUDE}function main()\n{indented}    return {{{fields}}}\nend function\nout = main()\n", "<fuzz>")
    out = _plain(interp.get("out"))
    for name in NAMES:
        _same(out[name], want[name], name)
