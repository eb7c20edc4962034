"""GRU (review 3): a sequence of no steps."""
from lamina.autodiff.tape import TAPE


def test_a_matrix_of_no_columns_is_a_sequence_of_no_steps(run):
    # Was a ShapeError claiming wz "must be a 3x0 matrix for input size 0", though X has 2 rows;
    # an empty list of steps already gave [].
    lines, _ = run("w = gru_init(2, 3, seed = 1)\n"
                   "print(gru_forward(zeros(2, 0), [0.0, 0.0, 0.0], w))\n"
                   "print(length(gru_forward(param(zeros(2, 0)), param([0.0, 0.0, 0.0]), w)))")
    TAPE.reset()
    assert lines == ["[]", "0"]
