"""What package.py sends of a model spec or model that holds Lamina functions, and what the
worker rebuilds (worker.py), in this process; test_ray.py runs the same programs on Ray."""
from __future__ import annotations

import numpy as np
import pytest
from model_programs import (
    MODEL,
    assert_map_equals_direct,
    assert_model_sweep_equals_direct,
    assert_spec_sweep_equals_direct,
)
from sweep_helpers import run

from lamina.errors import LaminaError

REMEDY = ("A saved function may use its parameters and builtins only: pass what it needs as a parameter, "
          "or write the number into it.")


def test_a_spec_with_a_custom_layer_made_outside_trains_as_it_does_in_the_program():
    assert_spec_sweep_equals_direct()


def test_a_compiled_model_with_a_lamina_loss_goes_on_training_as_in_the_program():
    assert_model_sweep_equals_direct()


def test_parallel_map_sends_a_model_with_a_custom_layer_and_a_lamina_loss():
    assert_map_equals_direct()


def test_the_callers_model_is_left_as_it_was():
    _, interp = run(MODEL.replace("{workers}", ""))
    net = interp.get("net")
    before = [w.copy() for w in net.params]
    run("t = sweep(more, {epochs = [2]}, seed = 1)", interp=interp)
    assert net.epochs == 2 and len(net.loss_history) == 2
    for w, w0 in zip(net.params, before):
        np.testing.assert_array_equal(w, w0)


def error_of(code: str) -> LaminaError:
    with pytest.raises(LaminaError) as info:
        run(code)
    return info.value


def test_a_forward_that_reads_a_program_variable_is_refused_with_save_models_reason():
    err = error_of('k = 2\nfunction scaled(p, x)\n    return k * x * p.w\nend function\n'
                   'spec = input(4) |> custom_layer("scaled", params = {w = [4, 1]}, forward = scaled)\n'
                   'function train(config)\n    return {n = spec.outputs}\nend function\n'
                   't = sweep(train, {lr = [0.01, 0.1]}, seed = 1)')
    assert err.kind == "TypeError"
    assert err.message == ("sweep cannot send train to its workers: the variable spec holds a model spec, which "
                           "is sent as save_model would save it, and save_model cannot save the custom layer "
                           "scaled's forward (scaled): it reads the program's variable k. " + REMEDY)


def test_a_loss_that_captures_a_variable_is_refused_with_save_models_reason():
    err = error_of('function make(k)\n    return (p, y) -> k * mean((p - y) .^ 2)\nend function\n'
                   'net = input(4) |> dense(1) |> compile(loss = make(3))\n'
                   'print(parallel_map(x -> net.outputs + x, [1, 2]))')
    assert err.message == ("parallel_map cannot send the anonymous function to its workers: the variable net "
                           "holds a model, which is sent as save_model would save it, and save_model cannot "
                           "save the model's loss (the anonymous function): it captures k from the function "
                           "it was made in. " + REMEDY)


def test_a_sent_forward_runs_with_no_file_permissions(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("a\n1\n")
    _, interp = run(f'function shifted(p, x)\n    return x * p.w + read_csv("{data}").a[0]\nend function\n'
                    'spec = input(2) |> custom_layer("shifted", params = {w = [2, 1]}, forward = shifted)\n'
                    'function train(config)\n    return {n = spec.outputs}\nend function\n'
                    't = sweep(train, {lr = [0.01]}, seed = 1)')
    assert list(interp.get("t").columns["error"]) == [
        "ValueError: The worker could not rebuild the model spec it was sent, whose functions run there as "
        "load_model's do, with no permission to read or write files: layers[0] (custom_layer): read_csv may "
        f'not read "{data}": this run may read no files (--sandbox); run lamina with --allow-read={tmp_path} '
        "to allow it."]
