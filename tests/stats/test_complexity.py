"""Hidden quadratic cost in ordinary programs: group_by with many groups, a column read in a
loop, contains on a long list, join of a long list."""
import signal

import numpy as np
import pytest

import lamina.builtins.text as text
from lamina.stats.table import Table


@pytest.fixture
def alarm():
    def expired(signum, frame):
        raise TimeoutError("took longer than 20 s")
    before = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, before)


def test_group_by_with_a_group_per_row_is_not_quadratic(lam, alarm):
    # every row its own group: the groups' rows were found by scanning every row for each
    # group (n^2 comparisons: 45 s for 300000 rows), now by one sort
    n = 300000
    ids = np.random.default_rng(1).permutation(n).astype(float)
    out = lam.run('g = group_by(t, "id")\nprint(length(g.sizes), max(g.sizes), min(g.sizes))\n'
                  'a = aggregate(group_by(head(t, 6), "k"), sum)\nprint(a.k, a.id, a.v)',
                  t=Table({"id": ids, "k": np.array([2.0, 1, 2, 3, 1, 2] * (n // 6)),
                           "v": np.arange(n, dtype=float)}))
    i = ids.astype(int)
    assert out == ["300000 1 1",
                   f"[1, 2, 3] [{i[1] + i[4]}, {i[0] + i[2] + i[5]}, {i[3]}] [5, 7, 3]"]


def test_a_column_read_is_the_column_not_a_copy(lam):
    # t.x[i] in a loop copied the whole column at every step (quadratic: 11 s for 40000 rows of
    # text); the column is shared as any value is, and a write still never reaches the table
    t = Table({"x": np.array([1.0, 2.0, 3.0]), "s": ["a", "b", "c"]})
    out = lam.run('c = t.x\ns = t.s\nc[0] = 99\ns[1] = "z"\nprint(c, s, t.x, t.s)', t=t)
    assert out == ['[99, 2, 3] ["a", "z", "c"] [1, 2, 3] ["a", "b", "c"]']
    lam.run('c = t.x\ns = t.s', t=t)
    assert lam.interp.get("c") is t.columns["x"] and lam.interp.get("s") is t.columns["s"].cells()


def test_contains_on_a_list_compares_strings_and_numbers_directly(lam, monkeypatch):
    calls = []
    real = text.values_equal
    monkeypatch.setattr(text, "values_equal", lambda a, b: calls.append(1) or real(a, b))
    words = [f"w{i}" for i in range(1000)]
    assert lam.run('print(contains(xs, "w999"), contains(xs, "zz"), contains(xs, 3), '
                   'contains([1, "a", true, none], 1), contains([true, "1"], 1), contains([0/0], 0/0))',
                   xs=words) == ["true false false true false false"]
    assert calls == []
    # other items still compare as == does: a tracked number, a list
    assert lam.run('print(contains(["a", track(2)], 2), contains([[1, "a"]], [1, "a"]))') == ["true true"]
    assert len(calls) == 2


def test_join_writes_strings_and_numbers_directly(lam, monkeypatch):
    calls = []
    real = text.format_value
    monkeypatch.setattr(text, "format_value", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert lam.run('print(join(["a", 1.5, 2, -0, 0/0, 1e20, 1/0], "|"))\nprint(join([0.1, 3]))') == \
        ["a|1.5|2|0|NaN|1e+20|Inf", "0.13"]
    assert calls == []
    assert lam.run('print(join([true, none, [1, "b"]], ","))') == ['true,none,[1, "b"]']
    assert len(calls) == 3


def test_a_loop_over_the_rows_of_a_text_table_is_linear(lam, alarm):
    # t[i, :] made the whole text column an array to take one row: a pass over every row per
    # row (380 s for 100000 rows), now its cells one by one
    n = 50000
    out = lam.run('k = 0\nfor i = 0 to nrows(t) - 1\n    r = t[i, :]\n    if r.s[0] == "b"\n'
                  '        k = k + r.x[0]\n    end if\nend for\nprint(k)\n'
                  'print(t[[4, 1, -1], :].s, t[n - 2:, :].s, head(t, 3).s, sort_rows(head(t, 4), "s").s)',
                  t=Table({"x": np.arange(n, dtype=float), "s": ["a", "b"] * (n // 2)}), n=float(n))
    assert out == [str(sum(range(1, n, 2))), '["a", "b", "b"] ["a", "b"] ["a", "b", "a"] ["a", "a", "b", "b"]']


def test_one_long_text_cell_does_not_blow_up_sorting_and_grouping(lam):
    # the text column was ranked as a NumPy string array, where every cell takes the room of the
    # longest: one 10,000-character cell in 20,000 rows made 800 MB (and 5 s) for sort_rows
    import tracemalloc
    n = 20000
    words = [f"w{i % 7}" for i in range(n)]
    words[3] = "q" * 10000
    t = Table({"s": words, "x": np.arange(n, dtype=float)})
    tracemalloc.start()
    try:
        out = lam.run('u = sort_rows(t, "s", descending = true)\ng = group_by(t, "s")\n'
                      'print(u.x[0], u.x[1], u.x[n - 1], length(g.sizes), g.sizes[0])', t=t, n=float(n))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out == ["6 13 3 8 1"]
    assert peak < 100 * 2**20
