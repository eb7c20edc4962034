"""Review 3: quick_mlp's optimizer and output-layer handling (models/quick.py)."""
import pytest

from lamina.errors import LaminaError

XOR = "X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\n"


def test_quick_mlp_one_column_of_class_indices_gets_one_unit_per_class(run):
    # fit reads one column of Y as class indices for cross_entropy (models/data.py); quick_mlp
    # made a 1-unit output layer for it and failed with "cross_entropy needs ... 2 units"
    out, interp = run(XOR + 'm = quick_mlp(X, [0; 1; 1; 2], loss = "cross_entropy", epochs = 2, '
                            'verbose = 0)\nprint(m.outputs, m.layers[1].activation)')
    assert out == ["3 softmax"]


def test_quick_mlp_schedule_with_lr_starts_the_schedule_at_lr(run):
    # was: TypeError "An optimizer must be ... not a schedule", though the help allows a schedule
    out, _ = run(XOR + 'm = quick_mlp(X, [0; 1; 1; 2], optimizer = lr_step(lr = 0.1, every = 2, '
                       'base = sgd(momentum = 0.5)), lr = 0.3, epochs = 3, verbose = 0)\n'
                       'print(m.schedule)\nprint(m.lr_history, m.optimizer.momentum)')
    assert out == ['lr_step(lr = 0.3, every = 2, factor = 0.5, min_lr = 0, base = "sgd")',
                   "[0.3, 0.3, 0.15] 0.5"]


def test_quick_mlp_optimizer_that_is_a_vector_is_a_type_error(run):
    # was: InternalError (the truth value of an array ...) from `optimizer == "adam"`
    with pytest.raises(LaminaError) as e:
        run(XOR + "m = quick_mlp(X, [1; 2; 3; 4], optimizer = [1, 2], epochs = 2, verbose = 0)")
    assert e.value.kind == "TypeError"
    assert "compile's optimizer must be an optimizer's name" in e.value.message
    assert "not a vector of length 2" in e.value.message


def test_a_sequence_of_one_step_is_printed_as_one_step(run):
    # was "3 inputs (1 steps of 3)" and "1 steps x 3"
    out, _ = run("print(input(1, 3) |> gru(2, return_sequences = true))")
    assert out == ["Model spec: 3 inputs (1 step of 3) (not compiled yet)",
                   "  #  layer                                output  parameters",
                   "  ----------------------------------------------------------",
                   "     input                            1 step x 3           0",
                   "  0  gru(2, return_sequences = true)  1 step x 2          36",
                   "  total parameters: 36"]


def test_predicts_shape_error_says_one_step(run):
    with pytest.raises(LaminaError) as e:
        run("net = input(1, 3) |> gru(2) |> dense(1) |> compile(seed = 1)\npredict(net, [1, 2; 3, 4])")
    assert "X needs 3 columns (1 step of 3, step after step)" in e.value.message


def test_embedding_after_another_layer_is_refused_when_the_spec_is_built(run):
    # it used to build and compile, then fail at predict or fit on numbers that are no tokens
    with pytest.raises(LaminaError) as e:
        run('net = input(2) |> dense(3, activation = "relu") |> embedding(5, 2) |> dense(1)')
    assert (e.value.kind, e.value.message) == (
        "ValueError", 'embedding reads tokens, so it must come right after input(), not after '
                      'dense(3, activation = "relu").')
