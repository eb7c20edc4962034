"""Review 3 of CSV files: write_csv keeps -0.0, and never writes a file that
read_csv cannot read back (a blank or missing header, an over-long field or line)."""
import math


def test_minus_zero_round_trips(lam, tmp_path):
    path = str(tmp_path / "z.csv")
    lam.run('write_csv({x = [-0.0, 0, 1]}, path)', path=path)
    assert (tmp_path / "z.csv").read_text() == "x\n-0\n0\n1\n"
    x = lam.eval("read_csv(path).x", path=path)
    assert [math.copysign(1, v) for v in x] == [-1, 1, 1]        # Python's repr keeps -0.0
    lam.run('write_csv(float32([-0.0, 2]), path)', path=path)
    assert (tmp_path / "z.csv").read_text() == "x0\n-0\n2\n"


def test_what_read_csv_cannot_read_is_not_written(lam, tmp_path):
    target = tmp_path / "keep.csv"
    target.write_text("a,b\n1,2\n")
    path = str(target)
    long = 'u = "x"\nfor i = 1 to 17\n  u = "{u}{u}"\nend for\n'          # 131,072 characters
    cases = [
        ("write_csv(table({}), path)", "write_csv: the table has no columns, so the file would have "
                                       "no header line and read_csv could not read it back."),
        ('write_csv([1, 2; 3, 4], path, names = ["a", ""])', "A column name cannot be empty or only spaces"),
        (long + 'write_csv({s = ["a", "{u}y"]}, path)', "write_csv: row 1, column 's' holds 131,073 "
                                                         "characters, more than the 131,072 read_csv reads"),
        (long + 'write_csv(table({a = [u], b = [u], c = [u], d = [u], e = [u], f = [u], g = [u], '
                'h = [u], i = ["x"]}), path)', "write_csv: row 0 would make a line longer than 1,048,576 "
                                               "bytes, the most read_csv reads in one line."),
        ('write_csv(table({a = [1]}), path, names = ["q"])', "Column names are for a matrix's columns"),
    ]
    for source, message in cases:
        err = lam.error(source, path=path)
        assert message in err.message, (source, err.message)
        assert target.read_text() == "a,b\n1,2\n"          # the old file is untouched
    # at the limit the file is written and reads back whole
    assert lam.run(long + 'write_csv({s = [u]}, path)\nprint(length(read_csv(path).s[0]))', path=path) == ["131072"]
