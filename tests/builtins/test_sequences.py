"""The sequence and core builtins (append, concat, print_options, reverse, cumprod, diff): the
behaviour the docs promise."""
from __future__ import annotations

import pytest

from lamina.errors import LaminaError


def _error(run, program):
    with pytest.raises(LaminaError) as e:
        run(program)
    return e.value.kind, e.value.message


def test_append_of_a_number_to_a_mask_keeps_the_number(run):
    # np.append cast the number to the mask's dtype: append(m, 3) was [0, 1, 1], a mask
    lines, _ = run("m = [1, 2] > 1\nprint(append(m, 3), append(m, 0.5), dtype(append(m, 3)))")
    assert lines == ["[0, 1, 3] [0, 1, 0.5] float64"]


def test_append_to_a_mask_of_anything_but_a_number_lists_its_items_as_bools(run):
    # the list holds the mask's items as m[0] and `for x in m` give them (false, true), not 0/1
    lines, _ = run('m = [1, 2] > 1\nprint(append(m, "a"), m[0])')
    assert lines == ['[false, true, "a"] false']


def test_print_options_refuses_a_digit_count_that_would_hang_printing(run):
    # digits = 1e9 was accepted and the next print of a tensor computed 10 ^ 1e9 (a hang)
    assert _error(run, "print_options(digits = 1e9)") == (
        "ValueError", "print_options' digits must be at most 22, not 1000000000: a float64 has 17 "
                      "significant digits.")
    lines, _ = run("print_options(digits = 22)\nprint(print_options().digits)")
    assert lines == ["22"]


def test_reverse_of_a_number_checks_its_axis(run):
    # reverse(3, axis = 1) gave 3, where cumprod(3, axis = 1) and sum say the axis is wrong
    assert _error(run, "reverse(3, axis = 1)") == ("ValueError", "reverse of a number takes axis 0, not 1.")
    lines, _ = run("print(reverse(3, axis = 0), reverse(param(2.0)))")
    assert lines == ["3 2"]


def test_cumprod_gradient_where_g_times_the_products_overflows(run):
    # the shortcut sum(g y) / x overflowed to Inf (as torch does); the gradient is finite:
    # d/dx0 = c1 x1 = 1e10 * 1e100 and d/dx1 = c1 x0 = 1e10 * 1e200
    lines, _ = run("w = param([1e200, 1e100])\nprint(grad(sum(cumprod(w) .* [0, 1e10]), wrt = w))")
    assert lines == ["[1e+110, 1e+210]"]


@pytest.mark.parametrize("arg, what", [("[true, false]", "a list"), ('"abc"', "a string"), ("true", "a bool")])
def test_diff_of_a_non_tensor_says_it_needs_a_vector_or_matrix(run, arg, what):
    # the message was "diff's argument must be a number or tensor", yet diff(3) is refused too
    assert _error(run, f"diff({arg})") == ("TypeError", f"diff needs a vector or matrix, not {what}.")


def test_append_to_a_vector_of_anything_but_a_number_gives_a_list(run):
    # "Appending a number to a vector (or to []) gives a vector; appending anything else gives a list."
    lines, _ = run('print(append([1, 2], "a"), append([1, 2], [3, 4]), append([1], none), append([1, 2], 3))')
    assert lines == ['[1, 2, "a"] [1, 2, [3, 4]] [1, none] [1, 2, 3]']
    lines, _ = run('v = param([1.0, 2.0])\nl = append(v, "a")\nprint(grad(3 * l[0] + l[1], wrt = v))')
    assert lines == ["[3, 1]"]


def test_concat_takes_the_empty_vector_as_the_empty_list(run):
    lines, _ = run('acc = []\nfor w in ["x", "y"]\n    acc = concat(acc, [w, w])\nend for\n'
                   'print(acc, concat(["a"], []), concat([], []), concat([1], [2]))')
    assert lines == ['["x", "x", "y", "y"] ["a"] [] [1, 2]']
    with pytest.raises(LaminaError, match="concat needs two lists or two vectors"):
        run('concat([1, 2], ["a"])')
