"""input() of any rank: the example's shape each layer is asked about, the sizes' names in its
messages, and what a spec says about its input."""
import pytest

from lamina.errors import LaminaError
from lamina.models.layer import DataShape


@pytest.mark.parametrize("call, shape, text", [
    ("input(3)", (3,), "3 inputs"),
    ("input(1)", (1,), "1 input"),
    ("input(20, 8)", (20, 8), "160 inputs (20 steps of 8)"),
    ("input(28, 28, 1)", (28, 28, 1), "784 inputs (28 x 28 x 1)"),
    ("input(2, 3, 4, 5)", (2, 3, 4, 5), "120 inputs (2 x 3 x 4 x 5)"),
])
def test_the_example_shape(run, call, shape, text):
    _, interp = run(f"s = {call}")
    s = interp.get("s")
    assert s.example == shape and s.shapes == [DataShape(shape)] and s.input_text() == text
    assert s.inputs == DataShape(shape).width and s.steps == (shape[0] if len(shape) == 2 else None)


@pytest.mark.parametrize("call, kind, message", [
    ("input()", "TypeError", "input needs the shape of one example: input(n) for rows of n numbers, "
                             "input(steps, features) for sequences, input(height, width, channels) for images."),
    ("input(0)", "ValueError", "input's width must be at least 1, not 0."),
    ("input(3, 0)", "ValueError", "input's features must be at least 1, not 0."),
    ("input(28, 28, 0)", "ValueError", "input's channels must be at least 1, not 0."),
    ("input(28, 2.5, 1)", "TypeError", "input's width must be a whole number, not 2.5."),
    ("input(2, 2, 2, 1.5)", "TypeError", "input's size 3 must be a whole number, not 1.5."),
    ("input(\"28\")", "TypeError", "input's width must be a number, not a string."),
])
def test_bad_sizes(run, call, kind, message):
    with pytest.raises(LaminaError) as e:
        run(f"s = {call}")
    assert (e.value.kind, e.value.message) == (kind, message)


def test_a_layer_that_cannot_take_the_shape_says_so(run):
    with pytest.raises(LaminaError) as e:
        run("s = input(28, 28, 1) |> gru(4)")
    assert e.value.kind == "ShapeError" and e.value.message == (
        "gru reads sequences (steps x features per example), but its input is 28 x 28 x 1 per example.")


@pytest.mark.parametrize("dims, text", [((784,), "784"), ((20, 8), "20 steps x 8"), ((1, 3), "1 step x 3"),
                                        ((28, 28, 1), "28 x 28 x 1")])
def test_data_shape(dims, text):
    d = DataShape(dims)
    assert d.describe() == text and d.rank == len(dims) and d.features == dims[-1]


IMAGE_NET = ('net = input(28, 28, 1) |> flatten() |> dense(32, activation = "relu") |> dropout(0.2) |>\n'
             '      dense(10, activation = "softmax") |> compile(loss = "cross_entropy", seed = 1)\n')


def test_print_and_summary_show_each_layers_output_shape_and_parameters(run):
    lines, interp = run(IMAGE_NET + "print(net)\nprint(summary(net))")
    table = ["Model: 784 inputs (28 x 28 x 1) -> 10 outputs, loss cross_entropy, optimizer adam(lr = 0.001), seed 1",
             "  #  layer                              output shape     parameters",
             "  -----------------------------------------------------------------",
             "     input(28, 28, 1)                   m x 28 x 28 x 1           0",
             "  0  flatten()                          m x 784                   0",
             "  1  dense(32, activation = \"relu\")     m x 32                25120",
             "  2  dropout(0.2)                       m x 32                    0",
             "  3  dense(10, activation = \"softmax\")  m x 10                  330",
             "  total parameters: 25450",
             "  not trained yet"]
    assert lines == table + table
    weights = interp.get("net").get("weights")
    assert 784 * 32 + 32 + 32 * 10 + 10 == sum(w.size for r in weights for w in r.fields.values()) == 25450


def test_the_summarys_fields_and_html(run):
    _, interp = run(IMAGE_NET + "s = summary(net)\nt = summary(input(20, 8) |> gru(16, return_sequences = true))")
    s, t = interp.get("s"), interp.get("t")
    assert s.get("layer") == ["input(28, 28, 1)", "flatten()", 'dense(32, activation = "relu")', "dropout(0.2)",
                              'dense(10, activation = "softmax")']
    assert [list(o) for o in s.get("output")] == [[28, 28, 1], [784], [32], [32], [10]]
    assert list(s.get("parameters")) == [0, 0, 25120, 0, 330] and s.get("total") == 25450
    assert t.describe().splitlines() == [
        "Model spec: 160 inputs (20 steps of 8) (not compiled yet)",
        "  #  layer                             output shape  parameters",
        "  -------------------------------------------------------------",
        "     input(20, 8)                      m x 20 x 8             0",
        "  0  gru(16, return_sequences = true)  m x 20 x 16         1200",
        "  total parameters: 1200"]
    html = s.html()
    assert "<th style=\"text-align: left\">output shape</th>" in html and "m x 28 x 28 x 1" in html
    assert "total parameters: 25450" in html


def test_summary_of_something_else(run):
    with pytest.raises(LaminaError) as e:
        run("s = summary(3)")
    assert e.value.kind == "TypeError" and e.value.message == (
        "summary takes a model or a model spec (input(n) |> layers |> compile(...)), a fitted model "
        "(linreg, glm, logreg, mle) or a table, not a number.")
