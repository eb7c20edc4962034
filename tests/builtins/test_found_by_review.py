"""Bugs an exploratory review found (wrong numbers, InternalErrors, behaviour the docs contradict),
each kept as a test of the behaviour the docs promise."""
from __future__ import annotations

import numpy as np
import pytest

from lamina.errors import LaminaError


@pytest.mark.parametrize("program, printed", [
    # LAPACK's pivoting stepped around a NaN pivot: det was 0 and inv held Inf
    ("print(det([NaN, 1; 1, 1]), det([1, NaN; 1, 1]), det([1, 2; 3, NaN]))", "NaN NaN NaN"),
    ("print(inv([NaN, 1; 1, 1]))", "[NaN, NaN; NaN, NaN]"),
    ("print(solve([NaN, 1; 1, 1], [1, 2]), solve([NaN, 1; 1, 1], [1, 2; 3, 4]))",
     "[NaN, NaN] [NaN, NaN; NaN, NaN]"),
    ("print(det(float32([NaN, 1; 1, 1])), dtype(inv(float32([NaN, 1; 1, 1]))))", "NaN float32"),
])
def test_a_nan_in_a_square_matrix_gives_nan(run, program, printed):
    assert run(program)[0] == [printed]


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


def test_choice_of_a_tracked_count_draws_as_of_the_plain_count(run):
    lines, _ = run("seed(1)\nprint(choice(param(5.0)), choice(param(5.0), 4), choice(track(5.0), 3, replace = false))\n"
                   "seed(1)\nprint(choice(5), choice(5, 4), choice(5, 3, replace = false))")
    assert lines[0] == lines[1]


@pytest.mark.parametrize("text, value", [("2.5", 2.5), (" -2.5e3 ", -2500.0), ("+.5", 0.5), ("5.", 5.0),
                                         ("NaN", np.nan), ("nan", np.nan), ("Inf", np.inf), ("-inf", -np.inf)])
def test_number_reads_the_literal_syntax(run, text, value):
    _, interp = run(f'x = number("{text}")')
    assert np.array_equal(interp.get("x"), value, equal_nan=True)


@pytest.mark.parametrize("text", ["1_000", "\u0661\u0662", "infinity", "0x10", "1e", "", "- 1", "1 2"])
def test_number_refuses_what_pythons_float_would_take(run, text):
    with pytest.raises(LaminaError) as e:
        run(f'x = number("{text}")')
    assert (e.value.kind, e.value.message) == ("ValueError", f'"{text}" is not a number.')


def test_pca_of_no_columns_says_so(run):
    with pytest.raises(LaminaError) as e:
        run("r = pca(zeros(3, 0))")
    assert (e.value.kind, e.value.message) == ("ValueError", "pca needs at least one column (variable); X is 3x0.")


@pytest.mark.parametrize("program, message", [
    ("choice([1, 2, 3], 3, replace = false, p = [0.5, 0.5, 0])",
     "choice cannot draw 3 distinct items when p gives only 2 of them a probability above 0."),
    ("choice([1, 2, 3], 2, p = [0 / 0, 0.5, 0.5])",
     "choice's p must hold 3 probabilities (one per item), each at least 0, summing to 1."),
])
def test_choice_with_bad_probabilities_says_so(run, program, message):
    # both were InternalErrors from NumPy's generator
    with pytest.raises(LaminaError) as e:
        run(program)
    assert (e.value.kind, e.value.message) == ("ValueError", message)
