"""A table keeps its row count when every column is dropped (as pandas' and R's do)."""

T = 't = table({x = [1, 2, 3], y = [4, 5, 6]})\nu = drop_columns(t, columns(t))\n'


def test_dropping_every_column_keeps_the_rows(lam):
    assert lam.run(T + 'print(u)\nprint(nrows(u), nrows(u[[0, 2], :]), nrows(u[1:, :]), nrows(u[1, :]))\n'
                   'print(nrows(u[[1, 0, 1] > 0, :]), nrows(head(u, 2)), nrows(filter(u, r -> true)))') == \
        ["table: 3 rows x 0 columns", "3 2 2 1", "2 2 3"]


def test_a_new_column_fills_the_kept_rows(lam):
    assert lam.run(T + 'u.z = 7\nprint(u.z)') == ["[7, 7, 7]"]
    assert "needs one value per row: the table has 3 rows, but the column has 2 values" in \
        str(lam.error(T + 'u.w = [1, 2]'))
