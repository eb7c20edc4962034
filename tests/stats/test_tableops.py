"""A missing text key (null: "" or NA in a table's text column) matches nothing in merge, as a NaN key does."""


def test_merge_missing_text_key_matches_nothing(lam):
    out = lam.run('a = table({k = ["x", "", "NA"], v = [1, 2, 3]})\n'
                  'b = table({k = ["x", "", " N/A"], w = [4, 5, 6]})\n'
                  'print(merge(a, b, on = "k").v)\n'
                  'm = merge(a, b, on = "k", how = "outer")\nprint(m.k)\nprint(m.v)\nprint(m.w)')
    assert out == ["[1]", '["x", "", "", "", " N/A"]', "[1, 2, 3, NaN, NaN]", "[4, NaN, NaN, 5, 6]"]
