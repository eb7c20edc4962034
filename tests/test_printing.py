"""Printing and format specs: bugs found by the third review, each checked against NumPy or C."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from lamina.errors import LaminaError


def c_printf(spec: str, x: float) -> str:
    """What C's printf writes (the reference for zero-padding NaN and Inf)."""
    buf = ctypes.create_string_buffer(64)
    ctypes.CDLL(None).snprintf(buf, 64, f"%{spec}".encode(), ctypes.c_double(x))
    return buf.value.decode()


def test_a_float32_vector_in_a_block_at_12_digits_writes_each_elements_float32_text(run):
    # docs: "A float32 tensor prints each element as the shortest text that reads back to the
    # same float32"; at 12 digits the block wrote 0.10000000149 (float64's view of it)
    lines, _ = run("print_options(digits = 12, width = 20)\nv = float32([0.1, 0.7, 1.1, 3.3, 0.2])\n"
                   "print(v)\nprint([v])")
    cells = [str(np.float32(x)) for x in (0.1, 0.7, 1.1, 3.3, 0.2)]          # NumPy's float32 text
    assert lines == ["vector of length 5:", " " + "  ".join(cells[:3]), " " + "  ".join(cells[3:]),
                     "[[" + ", ".join(cells) + "]]"]


def test_a_float32_matrix_in_column_blocks_at_10_digits_writes_float32_text(run):
    lines, _ = run("print_options(digits = 10, width = 12)\nprint(float32([0.1, 0.3, 0.7; 1.1, 2.2, 3.3]))")
    assert lines == ["2x3 matrix:", " columns 0 to 1:", " 0.1  0.3", " 1.1  2.2", " column 2:", " 0.7", " 3.3"]


def test_more_digits_than_the_shortest_text_has_write_the_shortest_text(run):
    # print_options(digits = 20) wrote 0.10000000000000000555; NumPy's precision=20 writes 0.1
    lines, _ = run("print_options(digits = 20, width = 20)\nprint([0.1, 0.7, 1.1, 3.3, 0.2])")
    with np.printoptions(precision=20):
        want = np.array2string(np.array([0.1, 0.7, 1.1, 3.3, 0.2]), separator=", ")
    assert want == "[0.1, 0.7, 1.1, 3.3, 0.2]"
    assert lines == ["vector of length 5:", " 0.1  0.7  1.1", " 3.3  0.2"]


def test_format_of_a_wide_vector_is_laid_out_as_print_lays_it_out(run):
    # help(format): "Each number written with the spec, laid out as print does"; it was one 200-character line
    lines, _ = run('print(format(range(0, 30) / 7, ".3f"))')
    cells = [f"{x:.3f}" for x in np.arange(30) / 7]
    assert lines == ["vector of length 30:"] + [" " + "  ".join(cells[i:i + 11]) for i in (0, 11, 22)]


def test_a_spec_on_a_large_matrix_elides_its_middle_as_print_does(run):
    lines, _ = run('m = reshape(range(0, 10000) / 7, 100, 100)\nprint(format(m, "8.2f"))\ns = "{m:.2f}"\n'
                   'print(length(s))\nprint(s[0:30])')
    a = np.arange(10000).reshape(100, 100) / 7
    assert len(lines) == 12 + 2 and lines[0] == "100x100 matrix:"
    assert lines[1].split() == [f"{x:.2f}" for x in a[0, :4]] + ["…"] + [f"{x:.2f}" for x in a[0, -3:]]
    assert lines[6].split() == ["⋮"] * 4 + ["⋱"] + ["⋮"] * 3
    assert int(lines[12]) < 1000                                      # was 82230 characters
    row = ", ".join(f"{x:.2f}" for x in a[0, :3]) + ", …, " + ", ".join(f"{x:.2f}" for x in a[0, -3:])
    assert lines[13] == ("[" + row)[:30]


def test_a_1_by_n_matrix_inside_a_formatted_list_keeps_its_row_end(run):
    # print([r]) writes [[1, 2, 3;]]; with a spec the ';' was lost, so it read as a vector
    lines, _ = run("r = [1, 2, 3]'\nprint(format([r], \".1f\"), \"{[r]:.1f}\", \"{r:.1f}\", format({a = r}, \".1f\"))")
    assert lines == ["[[1.0, 2.0, 3.0;]] [[1.0, 2.0, 3.0;]] [1.0, 2.0, 3.0] {a=[1.0, 2.0, 3.0;]}"]


def test_an_elided_vector_is_aligned_to_the_cells_it_shows(run):
    # the hidden 1e-300 set the column width: lines of 7 characters where 6 are needed
    lines, _ = run("print_options(limit = 0, width = 10)\nprint([0.5, 0.25, 0.125, 2, 1e-300, 3, 4, 0.5, 0.25, 0.125])")
    assert lines == ["vector of length 10:", "   0.5", "  0.25", " 0.125", "     ⋮", "   0.5", "  0.25", " 0.125"]


def test_zero_padding_pads_nan_and_inf_with_spaces_as_c_does(run):
    # it wrote 00000NaN and -000000Inf; finite numbers and an explicit fill keep their zeros
    want = [c_printf(spec, x).replace("nan", "NaN").replace("inf", "Inf")
            for spec, x in [("08.2f", float("nan")), ("+010.1e", float("-inf")), ("010g", float("inf")),
                            ("08.2f", -2.5)]]
    assert want == ["     NaN", "      -Inf", "       Inf", "-0002.50"]
    lines, _ = run('print(format(NaN, "08.2f"), format(-Inf, "+010.1e"), format(Inf, "010g"), format(-2.5, "08.2f"))\n'
                   'print(format(NaN, "*>6"), format(Inf, "0>5"), format([1, NaN], "05.1f"))')
    assert lines == ["|".join(want).replace("|", " "), "***NaN 00Inf [001.0,   NaN]"]


@pytest.mark.parametrize("code", ["1e9", "-1", "1e300", "55296"])
def test_c_of_a_number_that_is_no_code_point_is_a_value_error(run, code):
    # 1e9 and 1e300 were InternalError: OverflowError; 55296 (a surrogate) an InternalError when printed
    with pytest.raises(LaminaError) as err:
        run(f'print(format({code}, "c"))')
    assert err.value.kind == "ValueError" and "code point" in str(err.value)
    assert run('print(format(65, "c"), format(8364, "c"))')[0] == [f"{65:c} {8364:c}"]


def test_n_writes_a_fraction_as_python_does_and_a_whole_number_as_a_whole(run):
    # 'n' was taken for a whole-number type: format(1.5, "n") was a ValueError
    lines, _ = run('print(format(1.5, "n"), format(123456789, "n"), format(2 / 3, ".3n"), format(1e20, "n"))')
    assert lines == [" ".join([format(1.5, "n"), format(123456789, "n"), format(2 / 3, ".3n"), format(1e20, "n")])]


@pytest.mark.parametrize("value", ["Inf", "NaN"])
def test_a_whole_number_spec_on_inf_or_nan_does_not_say_round_it(run, value):
    with pytest.raises(LaminaError) as err:
        run(f'print(format({value}, "d"))')
    assert err.value.kind == "ValueError"
    assert err.value.message == (f"The format spec 'd' writes whole numbers, but got {value}; "
                                     f"a spec like .0f writes {value}.")


def test_a_matrix_cut_to_its_first_column_still_marks_the_columns_left_out(run):
    # with room for one column only, 39 columns vanished without the `…` that says so
    lines, _ = run("print_options(limit = 0, width = 15)\nprint(reshape(range(0, 920), 23, 40) * 7)")
    a = np.arange(920).reshape(23, 40) * 7
    rows = [f"{a[i, 0]:4d}  …" for i in range(5)] + ["   ⋮  ⋱"] + [f"{a[i, 0]:4d}  …" for i in range(18, 23)]
    assert lines == ["23x40 matrix:"] + [" " + r for r in rows]
