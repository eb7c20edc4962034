"""Large tensors print as aligned blocks (print_options: digits, limit, width), checked cell by
cell against NumPy's values; small ones keep their exact inline text."""
from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import numpy as np

from lamina.interpreter import Interpreter


def run(code: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run(code, "<test>")
    return out.getvalue().splitlines()


def cells(line: str) -> list[str]:
    return line.split()


def test_a_100_by_100_matrix_prints_a_header_and_eleven_lines_of_at_most_80_characters():
    a = np.arange(1, 10001).reshape(100, 100) / 7
    lines = run("print(reshape(range(1, 10001) / 7, 100, 100))")
    assert lines[0] == "100x100 matrix:" and len(lines) == 12
    assert all(len(line) <= 80 for line in lines)
    shown_rows = list(range(5)) + [None] + list(range(95, 100))
    for line, r in zip(lines[1:], shown_rows):
        row = cells(line)
        k = row.index("…") if r is not None else row.index("⋱")
        left, right = row[:k], row[k + 1:]
        if r is None:
            assert set(left + right) == {"⋮"}
            continue
        want = [f"{v:.6g}" for v in a[r, :len(left)]] + [f"{v:.6g}" for v in a[r, 100 - len(right):]]
        assert left + right == want
        assert len(left) >= 3 and len(right) >= 3


def test_columns_are_right_aligned_and_whole_numbers_print_without_a_point():
    a = np.arange(1, 31).reshape(5, 6) / 7
    lines = run("print_options(digits = 3)\nprint(reshape(range(1, 31) / 7, 5, 6))")
    assert lines[0] == "5x6 matrix:"
    body = lines[1:]
    assert [cells(line) for line in body] == [[f"{v:.3g}" for v in row] for row in a]
    # every column ends at the same character on every line
    ends = {tuple(i for i, ch in enumerate(line) if ch != " " and (i + 1 == len(line) or line[i + 1] == " "))
            for line in body}
    assert len(ends) == 1
    assert "2" in cells(body[2]) and "2.00" not in body[2]


def test_a_long_vector_wraps_and_its_middle_lines_are_elided_beyond_the_limit():
    v = np.arange(2000.0)
    lines = run("print(range(0, 2000))")
    assert lines[0] == "vector of length 2000:" and "⋮" in lines[4]
    head = [x for line in lines[1:4] for x in cells(line)]
    tail = [x for line in lines[5:] for x in cells(line)]
    assert head == [f"{x:.6g}" for x in v[:len(head)]] and tail == [f"{x:.6g}" for x in v[-len(tail):]]
    assert len(lines) == 8 and all(len(line) <= 80 for line in lines)


def test_under_the_limit_nothing_is_left_out_a_wide_matrix_prints_in_blocks_of_columns():
    a = np.arange(24.0).reshape(2, 12) / 3
    lines = run("print(reshape(range(0, 24) / 3, 2, 12))")
    assert lines[0] == "2x12 matrix:" and all(len(line) <= 80 for line in lines)
    assert lines[1] == " columns 0 to 10:" and lines[4] == " column 11:" and len(lines) == 7
    rows = [cells(lines[2]) + cells(lines[5]), cells(lines[3]) + cells(lines[6])]
    assert rows == [[f"{x:.6g}" for x in row] for row in a]
    b = np.arange(4 * 30).reshape(4, 30) / 7
    lines = run("print(reshape(range(0, 120) / 7, 4, 30))")
    headers = [i for i, line in enumerate(lines) if line.startswith(" column")]
    shown = [[] for _ in range(4)]
    for h in headers:
        for r in range(4):
            shown[r] += cells(lines[h + 1 + r])
    assert shown == [[f"{x:.6g}" for x in row] for row in b] and all(len(line) <= 80 for line in lines)


def test_what_fits_in_the_width_stays_exact_and_inline():
    assert run("print([1, 2; 3, 4], [0.1, 1 / 3])") == ["[1, 2; 3, 4] [0.1, 0.3333333333333333]"]
    assert run("print(range(1, 23))") == ["[" + ", ".join(str(i) for i in range(1, 23)) + "]"]   # 79 characters
    assert run("print(range(1, 24))")[0] == "vector of length 23:"     # 83 characters inline


def test_inside_a_list_a_record_or_a_string_a_large_tensor_stays_on_one_line():
    v = np.arange(3000) / 3
    want = "[" + ", ".join(f"{x:.6g}" for x in v[:3]) + ", …, " + ", ".join(f"{x:.6g}" for x in v[-3:]) + "]"
    lines = run('v = range(0, 3000) / 3\nprint({a = v})\nprint([v])\nprint("v = {v}")')
    assert lines == ["{a=" + want + "}", "[" + want + "]", "v = " + want]


def test_print_options_set_digits_limit_and_width_and_return_the_previous_ones():
    lines = run("before = print_options(digits = 3, limit = Inf, width = 40)\nprint(before)\n"
                "print(print_options())\nprint(range(0, 2000) / 7)")
    assert lines[0] == "{digits=6, limit=1000, width=80}"
    assert lines[1] == "{digits=3, limit=Inf, width=40}"
    shown = [x for line in lines[3:] for x in cells(line)]
    assert shown == [f"{x:.3g}" for x in np.arange(2000) / 7]       # limit = Inf: every element
    assert all(len(line) <= 40 for line in lines[3:])
    exact = run("print_options(width = Inf)\nprint(range(0, 100) / 7)")
    assert exact == ["[" + ", ".join(repr(float(x)).removesuffix(".0") for x in np.arange(100) / 7) + "]"]


def test_print_options_refuse_bad_settings():
    for call, message in [("print_options(digits = 0)", "digits"), ("print_options(limit = -1)", "limit"),
                          ("print_options(width = 5)", "width"), ('print_options(digits = "a")', "digits")]:
        r = subprocess.run([sys.executable, "-m", "lamina", "-e", call], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode != 0 and "Error" in r.stderr and message in r.stderr and "Traceback" not in r.stderr


def test_the_repl_echo_of_a_large_matrix_is_a_block():
    r = subprocess.run([sys.executable, "-m", "lamina"], input="randn(300, 300)\n", capture_output=True,
                       text=True, timeout=60)
    assert "300x300 matrix:" in r.stdout and len(r.stdout) < 2000


def test_a_vector_of_a_million_and_a_matrix_of_a_million_columns_show_their_edges():
    lines = run("v = range(0, 1000000) / 7\nprint(v)\nprint(reshape(v, 2, 500000))")
    v = np.arange(1000000) / 7
    assert lines[0] == "vector of length 1000000:" and lines[4].strip() == "⋮" and lines[8] == "2x500000 matrix:"
    head = [x for line in lines[1:4] for x in cells(line)]
    tail = [x for line in lines[5:8] for x in cells(line)]
    assert head == [f"{x:.6g}" for x in v[:len(head)]] and tail == [f"{x:.6g}" for x in v[-len(tail):]]
    m = v.reshape(2, 500000)
    for line, row in zip(lines[9:], m):
        left, right = line.split("…")
        assert cells(left) == [f"{x:.6g}" for x in row[:len(cells(left))]]
        assert cells(right) == [f"{x:.6g}" for x in row[500000 - len(cells(right)):]]
    assert all(len(line) <= 80 for line in lines)
