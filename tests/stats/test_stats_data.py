"""Tables and CSV files on real files, splits and scaling."""
import numpy as np
import pytest
import scipy.stats as st

from lamina.stats.table import Table


def test_write_then_read_round_trips_exactly(lam, tmp_path, rng):
    x = rng.normal(size=25) * 1e3
    x[3] = np.nan
    path = tmp_path / "data.csv"
    lam.run('write_csv({x = x, n = range(25), name = map(range(25), i -> "item, {i}")}, path)\nt = read_csv(path)',
            x=x, path=str(path))
    t = lam.interp.get("t")
    assert isinstance(t, Table) and t.names == ["x", "n", "name"] and t.nrows == 25
    np.testing.assert_array_equal(t.columns["x"], x)                  # bit for bit, NaN included
    np.testing.assert_array_equal(t.columns["n"], np.arange(25.0))
    assert t.columns["name"][7] == "item, 7"
    assert path.read_text().splitlines()[0] == "x,n,name"
    assert '"item, 7"' in path.read_text()


def test_matrix_and_table_round_trip(lam, tmp_path, rng):
    X = rng.normal(size=(6, 3))
    path = str(tmp_path / "m.csv")
    lam.run('write_csv(X, path, names = ["a", "b", "c"])\nback = as_matrix(read_csv(path))', X=X, path=path)
    np.testing.assert_array_equal(lam.interp.get("back"), X)
    lam.run('t = read_csv(path)\nwrite_csv(t, path2)\nu = read_csv(path2)', path=path, path2=str(tmp_path / "n.csv"))
    np.testing.assert_array_equal(as_np(lam.interp.get("u")), X)
    lam.run('write_csv(X, path)', X=X, path=path)
    assert (tmp_path / "m.csv").read_text().splitlines()[0] == "x0,x1,x2"


def test_float32_data_is_written_as_it_prints_and_reads_back_to_the_same_float32(lam, tmp_path, rng):
    X = rng.normal(size=(50, 3)).astype(np.float32)
    path = str(tmp_path / "f.csv")
    lam.run('write_csv(X, path)\nback = as_matrix(read_csv(path))', X=X, path=path)
    cells = [c for line in (tmp_path / "f.csv").read_text().splitlines()[1:] for c in line.split(",")]
    assert cells == [str(x) for x in X.ravel()]                      # NumPy's shortest float32 text
    np.testing.assert_array_equal(lam.interp.get("back").astype(np.float32), X)


def as_np(t):
    return np.column_stack([t.columns[k] for k in t.names])


def test_reading_details(lam, tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('\ufeffid;score;city\n"007";1,5;"Oslo"\n\n008;;Rome\n009;NA;"Bergen; Norway"\n'.replace(",5", ".5"))
    t = lam.eval('read_csv(path, sep = ";", text = ["id"])', path=str(path))
    assert t.columns["id"] == ["007", "008", "009"]
    np.testing.assert_array_equal(t.columns["score"], [1.5, np.nan, np.nan])
    assert t.columns["city"] == ["Oslo", "Rome", "Bergen; Norway"]
    t2 = lam.eval('read_csv(path, sep = ";")', path=str(path))
    np.testing.assert_array_equal(t2.columns["id"], [7, 8, 9])


def test_table_access(lam):
    lines = lam.run('t = table({x = [1, 2, 3, 4], g = ["a", "b", "c", "d"]})\n'
                    'print(t.x, t[:, "g"], t[1, "x"], t[2, "g"], t[-1, "x"])\n'
                    'print(t[1:3, "x"], t["x"], nrows(t[1:, :]), columns(t[:, ["g"]]), keys(t))\n'
                    'print(t[0])\nprint(type(t), nrows(head(t, 2)))')
    assert lines == ['[1, 2, 3, 4] ["a", "b", "c", "d"] 2 c 4',
                     '[2, 3] [1, 2, 3, 4] 3 ["g"] ["x", "g"]',
                     "table: 1 row x 2 columns", "   x  g", "0  1  a", "table 2"]


def test_long_tables_print_their_first_rows(lam):
    lines = lam.run("print(table({i = range(30)}))")
    assert lines[0] == "table: 30 rows x 1 column" and lines[-1] == "... 20 more rows" and len(lines) == 13


def test_columns_are_copies(lam):
    assert lam.run("t = table({x = [1, 2]})\nv = t.x\nv[0] = 9\nprint(t.x, v)") == ["[1, 2] [9, 2]"]


def test_describe_against_numpy(lam, rng):
    X = rng.normal(size=(40, 2))
    X[5, 1] = np.nan
    d = lam.eval("describe(table(X, [\"a\", \"b\"]))", X=X)
    assert d.columns["stat"] == ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]
    b = X[~np.isnan(X[:, 1]), 1]
    want = [39, b.mean(), b.std(ddof=1), b.min(), *np.quantile(b, [0.25, 0.5, 0.75]), b.max()]
    np.testing.assert_allclose(d.columns["b"], want)


MALFORMED = [
    ("a,b\n1,2\n3\n", 'read_csv: "{f}" line 3 has 1 field, but the header has 2 columns.'),
    ("a,b\n1,2\n3,4,5\n", 'read_csv: "{f}" line 3 has 3 fields, but the header has 2 columns.'),
    ("a,b\n1,2\n3,x7\n5,6\n", 'read_csv: "{f}" line 3, column 2 (\'b\'): "x7" is not a number, but the column '
                         'holds numbers. Fix the cell, or read the column as text with text = ["b"].'),
    ("a,a\n1,2\n", "read_csv: \"{f}\" names column 'a' twice."),
    ("a,\n1,2\n", 'read_csv: "{f}" line 1, column 2 has an empty column name.'),
    ("", 'read_csv: "{f}" is empty; it needs a header line of column names.'),
]


@pytest.mark.parametrize("text, message", MALFORMED)
def test_malformed_csv_is_a_clear_error(lam, tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    err = lam.error("t = read_csv(path)\nprint(t)", path=str(path))
    assert err.kind == "ValueError" and err.message == message.format(f=path)
    assert lam.interp.get("t") is None                      # nothing half-read


def test_missing_file_and_unwritable_path(lam, tmp_path):
    err = lam.error("read_csv(path)", path=str(tmp_path / "none.csv"))
    assert err.kind == "ValueError" and "cannot read" in err.message and "none.csv" in err.message
    err = lam.error("write_csv({a = [1]}, path)", path=str(tmp_path / "no" / "dir.csv"))
    assert err.kind == "ValueError" and "cannot write" in err.message


def test_train_test_split(lam, rng):
    X = np.arange(40.0).reshape(20, 2)
    Y = np.arange(20.0)
    s = lam.eval("train_test_split(X, Y, test = 0.25, seed = 3)", X=X, Y=Y).fields
    assert s["X_test"].shape == (5, 2) and s["X_train"].shape == (15, 2)
    np.testing.assert_array_equal(s["X_test"][:, 0] / 2, s["Y_test"])        # rows stay paired
    assert sorted(np.concatenate([s["Y_train"], s["Y_test"]])) == list(Y)
    s2 = lam.eval("train_test_split(X, Y, test = 0.25, seed = 3)", X=X, Y=Y).fields
    np.testing.assert_array_equal(s2["Y_test"], s["Y_test"])
    assert lam.run("seed(1)\na = train_test_split(Y).X_test\nseed(1)\nprint(all(a == train_test_split(Y).X_test))", Y=Y) == ["true"]
    tail = lam.eval("train_test_split(Y, test = 3, shuffle = false)", Y=Y).fields
    np.testing.assert_array_equal(tail["X_test"], [17, 18, 19])
    t = lam.eval('train_test_split(table({y = Y}), test = 0.5, seed = 0)', Y=Y).fields
    assert isinstance(t["X_test"], Table) and t["X_test"].nrows == 10
    assert lam.error("train_test_split([1, 2, 3], [1, 2])").kind == "ShapeError"
    assert lam.error("train_test_split([1, 2, 3], test = 0)").kind == "ValueError"
    assert lam.error("train_test_split([1], test = 0.5)").message.startswith("train_test_split with test = 0.5 would put")


def test_standardize_against_scipy(lam, rng):
    X = rng.normal(size=(12, 3)) * [1, 10, 100] + 5
    np.testing.assert_allclose(lam.eval("standardize(X)", X=X), st.zscore(X, axis=0, ddof=1))
    np.testing.assert_allclose(lam.eval("standardize(X, ddof = 0)", X=X), st.zscore(X, axis=0))
    T = rng.normal(size=(4, 3))
    np.testing.assert_allclose(lam.eval("standardize(T, like = X)", X=X, T=T),
                               (T - X.mean(axis=0)) / X.std(axis=0, ddof=1))
    C = np.column_stack([np.ones(5), np.arange(5.0)])
    np.testing.assert_allclose(lam.eval("standardize(C)", C=C)[:, 0], 0)
    assert lam.error("standardize(X, like = [1, 2; 3, 4])", X=X).kind == "ShapeError"


@pytest.mark.parametrize("source, kind, start", [
    ('as_matrix(table({a = [1], b = ["x"]}))', "TypeError", "as_matrix needs numeric columns, but b holds text"),
    ('table({a = [1, 2], b = [1]})', "ShapeError", "A table's columns must all have the same length"),
    ('table({a = [1, 2]}).z', "NameError", "The table has no column 'z'; its columns are a."),
    ('table({a = [1, 2]})[5, "a"]', "IndexError", "Index 5 is out of range for a table of 2 rows"),
    ('table({a = [1, 2]})[0, 1]', "TypeError", "A table's column index must be a column name"),
    ('nrows([1, 2])', "TypeError", "nrows counts the rows of a table or matrix, but got a vector of length 2"),
    ('read_csv("x.csv", sep = "ab")', "ValueError", "read_csv's sep must be one character"),
])
def test_table_errors(lam, source, kind, start):
    err = lam.error(source)
    assert err.kind == kind and err.message.startswith(start), err.message


def test_standardize_of_tiny_and_huge_data_as_of_ordinary(lam):
    torch = pytest.importorskip("torch")
    # s of 1e-200s underflowed to 0 (taken as 1: [-1e-200; 0; 1e-200]); of 1e200s it was Inf
    assert lam.run("print(standardize([1e-200; 2e-200; 3e-200]), standardize([1e200; -2e200; 4e200]))") == \
        ["[-1; 0; 1] [0; -1; 1]"]
    lam.run("w = param([1e-200, 2e-200, 4e-200])\ng = grad(sum(standardize(w) .* [1, 2, 3]), wrt = w)\n"
            "v = param([1.0, 2.0, 4.0])\nh = grad(sum(standardize(v) .* [1, 2, 3]), wrt = v)")
    g, h = lam.interp.get("g"), lam.interp.get("h")
    x = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64, requires_grad=True)
    (((x - x.mean()) / x.std()) * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(h, x.grad.numpy(), rtol=1e-14)
    np.testing.assert_allclose(g * 1e-200, x.grad.numpy(), rtol=1e-13)


def test_fit_predict_and_evaluate_take_a_tables_numeric_columns(lam):
    out = lam.run('t = table({a = [1, 2, 3, 4], b = [0, 1, 0, 1], y = [1, 3, 2, 4], g = ["x", "y", "x", "y"]})\n'
                  'net = compile(input(2) |> dense(1), loss = "mse", optimizer = "sgd", dtype = "float32", seed = 1)\n'
                  'a = fit(net, t[:, ["a", "b"]], t.y, epochs = 3, verbose = 0)\n'
                  'b = fit(net, as_matrix(t, ["a", "b"]), t.y, epochs = 3, verbose = 0)\n'
                  'print(predict(a, t[:, ["a", "b"]]) == predict(b, as_matrix(t, ["a", "b"])), '
                  'dtype(predict(a, t[:, ["a", "b"]])))\n'
                  'print(evaluate(a, t[:, ["a", "b"]], t.y).loss == evaluate(b, as_matrix(t, ["a", "b"]), t.y).loss)')
    assert out == ["[1; 1; 1; 1] float32", "true"]
    err = lam.error('t = table({a = [1, 2], g = ["x", "y"]})\n'
                    'net = compile(input(2) |> dense(1), loss = "mse")\nnet = fit(net, t, t.a)')
    assert err.message == ('fit\'s X needs numeric columns, but g holds text; pick the numeric columns: '
                           't[:, ["a", "b"]].')


def test_as_matrix_writes_the_dtype_asked_for_in_one_copy():
    import numpy as np
    from lamina.stats.data import as_matrix
    from lamina.stats.table import Table
    t = Table({"a": np.array([1.0, 2.0]), "b": np.array([3.0, 4.0])})
    m = as_matrix(t, dtype=np.float32)
    assert m.dtype == np.float32 and m.flags.c_contiguous and m.tolist() == [[1, 3], [2, 4]]


def test_write_csv_names_an_over_long_field_beside_a_date_column(lam, tmp_path):
    # the error path writes the rows one by one: each column's text is made once, not once a cell
    path = str(tmp_path / "w.csv")
    err = lam.error('t = table({d = date(["2024-01-31", "2024-02-01"]), s = ["x", join(map(range(140000), i -> "a"), "")]})\n'
                    'write_csv(t, path)', path=path)
    assert err.message == "write_csv: row 1, column 's' holds 140,000 characters, more than the 131,072 read_csv reads in one field."
