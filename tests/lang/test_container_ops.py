"""Arithmetic on records and lists member by member (lang/container_ops.py), and map over a
record's values: what a training loop by hand does with gradients."""
import contextlib
import io

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter


def run(source: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run(source, "prog.lam")
    return out.getvalue().splitlines()


def test_records_and_lists_combine_member_by_member():
    assert run("g = {w = [1, 2], b = 0.5}\nh = {b = 1, w = [3, 4]}\n"
               "print(0.5 * g, g + h, g - h)\nprint(-g, g / 2, g .* h, 2 - g)\n"
               "print([1, [2, 3]] + [10, [20, 30]], 3 * [[1, 2; 3, 4], 1])") == [
        "{w=[0.5, 1], b=0.25} {w=[4, 6], b=1.5} {w=[-2, -2], b=-0.5}",
        "{w=[-1, -2], b=-0.5} {w=[0.5, 1], b=0.25} {w=[3, 8], b=0.5} {w=[1, 0], b=1.5}",
        "[11, [22, 33]] [[3, 6; 9, 12], 3]"]


def test_averaging_two_gradient_records_matches_numpy():
    rng = np.random.default_rng(3)
    W1, W2 = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    interp = Interpreter()
    interp.run("x = 1", "prog.lam")
    interp.namespace["L_g1"] = interp_record(W1, 0.25)
    interp.namespace["L_g2"] = interp_record(W2, -1.0)
    interp.run("avg = (g1 + g2) / 2", "prog.lam")
    avg = interp.namespace["L_avg"]
    np.testing.assert_array_equal(avg.fields["W"], (W1 + W2) / 2)
    assert avg.fields["b"] == -0.375


def interp_record(W, b):
    from lamina.values import Record
    return Record({"W": W, "b": b})


def test_gradients_flow_through_record_arithmetic():
    assert run("p = param({w = [1.0, 2.0], b = 3.0})\nq = 2 * p + p\n"
               "print(grad(sum(q.w) + q.b ^ 2, wrt = p))") == ["{w=[3, 3], b=54}"]


@pytest.mark.parametrize("expr, words", [
    ("{a = 1} * {a = 2}", "Between two records, write the elementwise '.*'"),
    ("{a = 1} + {b = 2}", "The fields differ: {a} and {b}."),
    ("[{a = 1}, 2] + [{a = 1}]", "The lengths differ: 2 and 1."),
    ("{a = 1} + [1, 2]", "A record meets a number (each member)"),
    ("{a = [1, 2]} + {a = [1, 2, 3]}", "In field 'a': Elementwise + needs shapes that broadcast"),
    ("{a = 1} \\ 2", "Cannot apply '\\' to a record and a number."),
    ("-{a = \"x\"}", "Cannot negate"),
])
def test_mismatched_containers_are_type_errors_that_say_why(expr, words):
    with pytest.raises(LaminaError) as info:
        run(f"x = {expr}")
    assert words in info.value.message and info.value.span.line == 1


def test_map_over_a_record_maps_its_values_and_keeps_its_fields():
    assert run("g = {w = [0.5, -2.0], b = 3.0}\nprint(map(g, v -> clamp(v, -1, 1)))\n"
               "print(map({}, v -> v))") == ["{w=[0.5, -1], b=1}", "{}"]


EMPTY = ", and only records and lists of numbers and tensors take arithmetic member by member."


@pytest.mark.parametrize("expr, message", [
    ('filter(["a", "b"], s -> s == "c") + 1',
     "Cannot apply '+' to a list and a number. An empty list holds no numbers" + EMPTY),
    ("2 * {}", "Cannot apply '*' to a number and a record. An empty record holds no numbers" + EMPTY),
    ("{} .* {}", "Cannot apply '.*' to a record and a record. An empty record holds no numbers" + EMPTY),
    ("-{}", "Cannot negate a record. An empty record holds no numbers" + EMPTY),
])
def test_an_empty_list_or_record_holds_no_numbers(expr, message):
    # An empty list has no element type (filter of text can make one): `+ 1` gave `[]` silently.
    with pytest.raises(LaminaError) as info:
        run(f"x = {expr}")
    assert (info.value.kind, info.value.message) == ("TypeError", message)


def test_an_empty_vector_is_numbers_and_stays_empty():
    # `[]` is a vector (of no numbers), as Julia's Float64[] .+ 1 == []
    assert run("print([] + 1, [[]] * 2, type([] + 1))") == ["[] [[]] vector"]


INTERPOLATE = ' To build text, use interpolation: "{a} and {b}".'


@pytest.mark.parametrize("expr, message", [
    ('"a" + [w]', "Cannot apply '+' to a string and a list." + INTERPOLATE),
    ('"loss: " + {w = w}', "Cannot apply '+' to a string and a record." + INTERPOLATE),
    ('[w] + "a"', "Cannot apply '+' to a list and a string." + INTERPOLATE),
    ('"a" * {w = 1}', "Cannot apply '*' to a string and a record." + INTERPOLATE),
])
def test_a_string_meeting_a_list_or_record_says_to_interpolate(expr, message):
    with pytest.raises(LaminaError) as info:
        run(f"w = [1, 2]\nx = {expr}")
    assert (info.value.kind, info.value.message) == ("TypeError", message)
