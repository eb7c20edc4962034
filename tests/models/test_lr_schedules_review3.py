"""LR schedules (review 3): a floor above the starting rate, a start above the cap."""
import pytest

from lamina.errors import LaminaError

XOR = 'X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\nY = [0.0; 1.0; 1.0; 2.0]\n' \
      'spec = input(2) |> dense(4, activation = "relu") |> dense(1, activation = "none")\n'


@pytest.mark.parametrize("source, words", [
    # lr_plateau used to *raise* the rate 0.1 -> 0.5 on a plateau (Keras and torch never raise it);
    # lr_step's help says epoch 0 uses max(lr, min_lr) = 0.5 but fit ran it at 0.1, then 0.5.
    ('lr_plateau(lr = 0.1, patience = 1, min_lr = 0.5)', "lr_plateau's min_lr (0.5) must be at most its lr (0.1)."),
    ('lr_plateau(patience = 1, min_lr = 0.5, base = sgd(lr = 0.2))', "lr_plateau's min_lr (0.5) must be at most its lr (0.2)."),
    ('lr_step(lr = 0.1, every = 1, min_lr = 0.5)', "lr_step's min_lr (0.5) must be at most its lr (0.1)."),
    # lr_adaptive's rate is "kept within [min_lr, max_lr]", yet its first epoch ran outside it.
    ('lr_adaptive(lr = 0.1, max_lr = 0.01)', "lr_adaptive's lr (0.1) must be at most its max_lr (0.01)."),
    ('lr_adaptive(lr = 0.1, min_lr = 0.5, max_lr = 0.2)', "lr_adaptive's min_lr (0.5) must be at most its lr (0.1)."),
])
def test_a_rate_outside_its_bounds_is_a_value_error(run, source, words):
    with pytest.raises(LaminaError) as e:
        run(XOR + f"net = spec |> compile(optimizer = {source}, seed = 7)\n"
                  "net = net.fit(X, Y, epochs = 30)\nprint(net.lr_history)")
    assert e.value.kind == "ValueError" and e.value.message == words, e.value.message

