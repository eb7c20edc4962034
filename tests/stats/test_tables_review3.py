"""Review 3 of tables: repeated column names, sort_rows (matrix by several columns, a vector,
missing text last), column names, new columns by index, float32 columns."""
import numpy as np

from lamina.builtins.registry import REGISTRY

T = 't = table({a = [2, 1, 2], b = ["x", "y", "z"], v = [1, 2, 3]})\n'


def test_a_column_named_twice_counts_once(lam):
    out = lam.run(T + 'g = group_by(t, ["a", "a"])\nprint(g)\nprint(g.by)\n'
                  'print(columns(aggregate(g, sum)))\n'
                  'print(sort_rows(t, ["a", "a"]).b)\nprint(columns(drop_columns(t, ["a", "a"])))\n'
                  'print(columns(merge(t, t, on = ["a", "a"])), nrows(merge(t, t, on = ["a", "a"])))')
    assert out == ["grouped table: 3 rows in 2 groups by a", "  a  rows", "  1     1", "  2     2",
                   '["a"]', '["a", "v"]', '["y", "x", "z"]', '["b", "v"]', '["a", "b_x", "v_x", "b_y", "v_y"] 5']
    for name in ("group_by", "sort_rows", "drop_columns", "merge"):
        assert "A column named twice counts once" in REGISTRY[name].notes


def test_sort_rows_of_a_matrix_by_several_columns(lam):
    X = np.array([[3, 1], [1, 2], [2, 0], [0, 2]], dtype=float)
    out = lam.eval("sort_rows(X, [1, 0])", X=X)
    np.testing.assert_array_equal(out, X[np.lexsort((X[:, 0], X[:, 1]))])
    np.testing.assert_array_equal(lam.eval("sort_rows(X, [1, 0], descending = true)", X=X),
                                  [[1, 2], [0, 2], [3, 1], [2, 0]])


def test_sort_rows_of_a_vector_gives_a_vector(lam):
    assert lam.run("print(sort_rows([3, 1, 2], 0), sort_rows([3, 1, 2], 0, descending = true))") == \
        ["[1, 2, 3] [3, 2, 1]"]


def test_missing_text_sorts_last_in_both_directions(lam):
    # pandas' sort_values and R's order put NA last whichever the direction
    src = 't = table({s = ["b", "", "a", "NA", " N/A"], v = [1, 2, 3, 4, 5]})\n'
    assert lam.run(src + 'print(sort_rows(t, "s").v)\nprint(sort_rows(t, "s", descending = true).v)\n'
                   'print(sort_rows(table({k = [1, 1, 1], s = ["", "b", "a"]}), ["k", "s"]).s)') == \
        ["[3, 1, 2, 4, 5]", "[1, 3, 2, 4, 5]", '["a", "b", ""]']


def test_a_column_name_cannot_be_blank(lam):
    for source in ('table([1, 2; 3, 4], ["a", ""])', 'table([1, 2; 3, 4], ["a", "  "])',
                   'with_column(table({}), "", [1, 2])', 'with_column(table({a = [1]}), " ", 1)',
                   'write_csv([1, 2], path, names = [""])'):
        err = lam.error(source, path="never.csv")
        assert err.kind == "ValueError" and err.message.startswith("A column name cannot be empty or only spaces")


def test_a_new_column_by_index_is_a_new_column_as_by_field(lam):
    out = lam.run(T + 't["n"] = 5\nt[:, "s"] = "q"\nt[:, "w"] = [7, 8, 9]\nprint(t.n, t.s, t.w)')
    assert out == ['[5, 5, 5] ["q", "q", "q"] [7, 8, 9]']
    err = lam.error(T + 't[:, "w"] = [7, 8]')
    assert err.kind == "ShapeError" and "Column 'w' needs one value per row: the table has 3 rows" in err.message


def test_table_of_a_table_refuses_names(lam):
    err = lam.error('table(table({a = [1]}), ["z"])')
    assert (err.kind, err.message) == ("TypeError", "Column names are for a matrix's columns; a table's "
                                                    "columns have their names already.")


def test_a_grouped_table_prints_its_keys_as_a_table_does(lam):
    # ids in full (they printed as 1234570 twice), text with a line break escaped
    out = lam.run('t = table({id = [1234567, 1234568, 1234567], s = ["a\\nb", "c", "a\\nb"]})\n'
                  'print(group_by(t, "id"))\nprint(group_by(t, "s"))')
    assert out == ["grouped table: 3 rows in 2 groups by id", "       id  rows", "  1234567     2",
                   "  1234568     1", "grouped table: 3 rows in 2 groups by s", "  s     rows",
                   "  a\\nb     2", "  c        1"]


def test_a_list_of_names_as_the_row_index_says_how_to_pick_columns(lam):
    # was "A row index must be ... an index list or a mask, not a list", for a list of names
    err = lam.error(T + 'print(t[["a", "b"]])')
    assert (err.kind, err.message) == ("TypeError", "A table's first index picks rows, by number or mask; "
                                                    "pick columns by name with t[:, [\"a\", \"b\"]].")


def test_a_sweeps_table_keeps_its_swept_columns_when_columns_change(lam):
    # plot(t, "l2") draws l2 against lr (a line per b) only while t knows its swept columns
    lam.run('t = sweep(c -> {loss = c.lr * c.b}, {lr = [0.01, 0.1], b = [1, 2]}, seed = 1)\n'
            't.l2 = t.loss * 2\nu = with_column(t, "q", 1)\nt[0, "loss"] = 5\nd = drop_columns(t, "b")')
    assert (lam.interp.get("t").swept, lam.interp.get("u").swept, lam.interp.get("d").swept) == \
        (("lr", "b"), ("lr", "b"), ("lr",))


def test_describe_of_a_column_named_stat_keeps_both(lam):
    # the column's numbers used to overwrite the names of the statistics
    out = lam.run('d = describe(table({stat = [1, 2, 3], x = [4, 5, 6]}))\nprint(columns(d))\n'
                  'print(d.stat_)\nprint(d.stat)')
    assert out == ['["stat_", "stat", "x"]', '["count", "mean", "std", "min", "25%", "50%", "75%", "max"]',
                   "[3, 2, 1, 1, 1.5, 2, 2.5, 3]"]


def test_a_column_name_with_a_line_break_prints_escaped(lam):
    out = lam.run('t = table([1, 2; 3, 4], ["a\\nb", "c\\td"])\nprint(t)\nprint(group_by(t, "a\\nb"))')
    assert out == ["table: 2 rows x 2 columns", "   a\\nb  c\\td", "0     1     2", "1     3     4",
                   "grouped table: 2 rows in 2 groups by a\\nb", "  a\\nb  rows", "     1     1", "     3     1"]
