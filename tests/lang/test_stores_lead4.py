"""A tracked value stored into a list item or a record field is stored as a plain value would be
(it went down the tensor path: 'Cannot assign into a list by index')."""
import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter


def test_a_tracked_value_goes_into_a_list_item_and_a_record_field():
    interp = Interpreter()
    interp.run('ps = [param([1.0, 2.0]), param(0.5)]\nps[1] = param(1.0)\np = {w = [1.0, 2.0], b = 0.5}\n'
               'p["b"] = param(4.0)\ng = grad(p.b * 3 + sum(ps[0]) * ps[1], wrt = [p.b, ps[0], ps[1]])', "<test>")
    g = interp.get("g")
    assert g[0] == 3.0 and g[2] == 3.0
    np.testing.assert_array_equal(g[1], [1.0, 1.0])


def test_none_is_named_as_the_value_it_is():
    for code, said in [("for x in none\nend for", "Cannot loop over none;"),
                       ("if none\nend if", "A condition must be true or false, not none."),
                       ("print(none + 1)", "Cannot apply '+' to none and a number.")]:
        with pytest.raises(LaminaError) as e:
            Interpreter().run(code, "<test>")
        assert said in e.value.message
