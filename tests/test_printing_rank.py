"""Arrays of rank 3 and more print as Julia prints them: the shape, then each matrix of the last two
axes labelled `[i, :, :] =`, laid out as one matrix block (printing.py says why those axes). The
expected text is written out by hand, or built from NumPy's numbers where an array is large."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from lamina.autodiff.tape import TAPE
from lamina.completion import LiveNames
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.kernel.display import value_bundle
from lamina.lang.scope import mangle


def run(source: str, echo: bool = False, **values) -> list[str]:
    """The lines a program prints, its variables `values` set first (NumPy arrays of any rank,
    which no literal writes)."""
    interp = Interpreter()
    for name, value in values.items():
        interp.namespace[mangle(name)] = value
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        interp.run(source, "<test>", echo=echo)
    TAPE.reset()
    return out.getvalue().splitlines()


A = np.arange(24.0).reshape(2, 3, 4)
A_TEXT = """\
2x3x4 array:
[0, :, :] =
  0   1   2   3
  4   5   6   7
  8   9  10  11

[1, :, :] =
 12  13  14  15
 16  17  18  19
 20  21  22  23"""
A_LINE = ("<2x3x4 array: [0, :, :] = [0, 1, 2, 3; 4, 5, 6, 7; 8, 9, 10, 11], "
          "[1, :, :] = [12, 13, 14, 15; 16, 17, 18, 19; 20, 21, 22, 23]>")


def test_a_rank_3_array_prints_its_shape_then_each_matrix_of_its_last_two_axes():
    assert run("print(a)", a=A) == A_TEXT.splitlines()


def test_print_string_the_repl_echo_a_tracked_array_and_the_kernel_write_the_same_block():
    assert run("print(string(a))\nprint(param(a))", a=A) == A_TEXT.splitlines() * 2
    assert run("a", echo=True, a=A) == A_TEXT.splitlines()
    assert value_bundle(A) == {"text/plain": A_TEXT}            # no text/html, as for a matrix
    interp = Interpreter()
    interp.namespace[mangle("a")] = A
    assert LiveNames(interp).describe("a") == "a: a 2x3x4 array\n" + A_TEXT


def test_inside_a_string_a_list_or_a_record_it_is_one_line_that_no_literal_reads_as():
    assert run('print("a = {a}")\nprint([a, 1])\nprint({x = a})', a=A) == \
        ["a = " + A_LINE, f"[{A_LINE}, 1]", f"{{x={A_LINE}}}"]


def test_every_column_is_as_wide_in_every_slice():
    # alone, the second slice would be " 0  1"; it lines up with the first's "-4  -3"
    assert run("print(a)", a=np.arange(-4.0, 4.0).reshape(2, 2, 2)) == [
        "2x2x2 array:", "[0, :, :] =", " -4  -3", " -2  -1", "", "[1, :, :] =", "  0   1", "  2   3"]


def test_a_rank_4_array_labels_each_matrix_by_its_two_leading_indices_and_bools_print_as_0_and_1():
    assert run("print(a > 5)\nprint(type(a > 5), type(a), type([1, 2; 3, 4]))",
               a=np.arange(16.0).reshape(2, 2, 2, 2)) == [
        "2x2x2x2 logical array:",
        "[0, 0, :, :] =", " 0  0", " 0  0", "",
        "[0, 1, :, :] =", " 0  0", " 1  1", "",
        "[1, 0, :, :] =", " 1  1", " 1  1", "",
        "[1, 1, :, :] =", " 1  1", " 1  1",
        "logical array array matrix"]


def test_format_and_a_spec_in_a_string_write_every_number_with_the_spec():
    a = np.arange(8.0).reshape(2, 2, 2) / 10
    assert run('print(format(a, ".2f"))\nprint("{a:.1f}")', a=a) == [
        "2x2x2 array:", "[0, :, :] =", " 0.00  0.10", " 0.20  0.30", "",
        "[1, :, :] =", " 0.40  0.50", " 0.60  0.70",
        "<2x2x2 array: [0, :, :] = [0.0, 0.1; 0.2, 0.3], [1, :, :] = [0.4, 0.5; 0.6, 0.7]>"]


def test_an_empty_array_prints_its_shape_alone():
    assert run("print(a)\nprint(b)\nprint(c > 0)\nprint([a])\nprint(type(a))", a=np.zeros((0, 3, 4)),
               b=np.zeros((2, 0, 4)), c=np.zeros((0, 2, 2))) == [
        "0x3x4 array", "2x0x4 array", "0x2x2 logical array", "[<0x3x4 array>]", "array"]


def test_a_float32_array_writes_each_element_as_its_float32_text_reads():
    a = np.array([1 / 3, 2 / 3, 1, 4 / 3], dtype=np.float32).reshape(1, 2, 2)
    third, two_thirds, four_thirds = (str(np.float32(x)) for x in (1 / 3, 2 / 3, 4 / 3))
    assert (third, two_thirds, four_thirds) == ("0.33333334", "0.6666667", "1.3333334")   # NumPy's text
    assert run("print_options(digits = 10)\nprint(a)\nprint(a * 1)", a=a) == [
        "1x2x2 array:", "[0, :, :] =", " 0.33333334  0.6666667", "          1  1.3333334"] * 2
    # the same numbers held as float64 show the digits float32 never stored
    as_float64 = [f"{float(np.float32(x)):.10g}" for x in (1 / 3, 2 / 3)]
    assert as_float64 == ["0.3333333433", "0.6666666865"]
    assert run("print_options(digits = 10)\nprint(a)", a=a.astype(np.float64))[2] == " " + "  ".join(as_float64)


def test_a_large_array_keeps_its_first_and_last_three_slices_each_elided_as_a_matrix_is():
    a = np.arange(1_000_000).reshape(100, 100, 100) / 7
    lines = run("print(a)", a=a)
    assert lines[0] == "100x100x100 array:" and all(len(line) <= 80 for line in lines)
    blocks = "\n".join(lines[1:]).split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == [
        "[0, :, :] =", "[1, :, :] =", "[2, :, :] =", "⋮", "[97, :, :] =", "[98, :, :] =", "[99, :, :] ="]
    assert len(lines) == 1 + 6 * (1 + 11) + 1 + 6          # header, 6 slices of 11 rows, ⋮, 6 blank lines
    for block, i in zip(blocks[:3] + blocks[4:], [0, 1, 2, 97, 98, 99]):
        rows = block.splitlines()[1:]
        n_left, n_right = (len(part.split()) for part in rows[0].split("…"))
        assert rows[5].split() == ["⋮"] * n_left + ["⋱"] + ["⋮"] * n_right and n_left >= 3 and n_right >= 3
        for line, r in zip(rows[:5] + rows[6:], [0, 1, 2, 3, 4, 95, 96, 97, 98, 99]):
            left, right = line.split("…")
            assert left.split() == [f"{x:.6g}" for x in a[i, r, :len(left.split())]]
            assert right.split() == [f"{x:.6g}" for x in a[i, r, 100 - len(right.split()):]]
    assert len({len(line) for line in lines[2:13] + lines[-11:]}) == 1      # one width for all slices


def test_under_the_limit_a_wide_array_shows_every_element_in_blocks_of_columns():
    a = np.arange(48.0).reshape(2, 2, 12) / 3
    lines = run("print(a)", a=a)
    assert lines[0] == "2x2x12 array:" and all(len(line) <= 80 for line in lines)
    first, second = "\n".join(lines[1:]).split("\n\n")
    for block, i in [(first, 0), (second, 1)]:
        block = block.splitlines()
        assert block[0] == f"[{i}, :, :] ="
        starts = [k for k, line in enumerate(block) if line.startswith(" column")]
        assert block[starts[0]].startswith(" columns 0 to ") and len(starts) >= 2
        shown = [[], []]
        for k in starts:
            for r in range(2):
                shown[r] += block[k + 1 + r].split()
        assert shown == [[f"{x:.6g}" for x in row] for row in a[i]]


def test_beyond_the_limit_each_long_leading_axis_keeps_three_slices_at_each_end():
    lines = run("print_options(limit = 0)\nprint(a)\nprint([b])", a=np.arange(49.0).reshape(7, 7, 1, 1),
                b=np.arange(7.0).reshape(7, 1, 1))
    labels = [line for line in lines[1:-1] if line.startswith(("[", "⋮"))]
    edge = [0, 1, 2, None, 4, 5, 6]
    want = []
    for i in edge:
        if i is None:
            want.append("⋮")
            continue
        want += ["⋮" if j is None else f"[{i}, {j}, :, :] =" for j in edge]
    assert labels == want
    assert lines[0] == "7x7x1x1 array:" and lines[1:3] == ["[0, 0, :, :] =", "  0"]   # as wide as 48
    assert lines[-1] == ("[<7x1x1 array: [0, :, :] = [0;], [1, :, :] = [1;], [2, :, :] = [2;], …, "
                         "[4, :, :] = [4;], [5, :, :] = [5;], [6, :, :] = [6;]>]")


def test_contains_looks_at_every_element():
    assert run("print(contains(a, 23), contains(a, 24), contains(a, \"a\"))", a=A) == ["true false false"]


def test_join_which_takes_a_list_or_a_vector_refuses_an_array():
    with pytest.raises(LaminaError) as e:
        run('join(a, ", ")', a=A)
    assert e.value.kind == "ShapeError"
    assert e.value.message.startswith("join takes numbers, vectors and matrices, not a 2x3x4 array.")
