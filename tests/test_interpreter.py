"""The Interpreter as composition root: its own compile state, freed with it."""
from __future__ import annotations

import gc
import weakref

import pytest

from lamina import interpreter
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

PROGRAM = "m = [1, 2; 3, 4]\nf = x -> x * 2\nprint(sum(f(m)), [5, 6, 7])\n"


def test_200_programs_in_one_process_leave_compile_state_bounded(capsys):
    shared = len(interpreter.builtins_namespace())
    gc.collect()
    alive = []
    for _ in range(200):
        interp = Interpreter()
        interp.run(PROGRAM, "<loop>")
        alive.append(weakref.ref(interp))
        nodes = len(interp.namespace["__lamina_nodes__"])
        del interp
    gc.collect()
    assert sum(ref() is not None for ref in alive) == 0          # every interpreter was freed
    assert len(interpreter.builtins_namespace()) == shared       # the shared builtins did not grow
    assert 0 < nodes < 50                                         # one program's nodes, not 200
    assert capsys.readouterr().out == "20 [5, 6, 7]\n" * 200


def test_a_repl_session_keeps_its_nodes_across_runs():
    interp = Interpreter()
    interp.run("f = x -> x / [1, 2]", "<repl>")
    first = len(interp.namespace["__lamina_nodes__"])
    interp.run("y = 3", "<repl>")
    assert len(interp.namespace["__lamina_nodes__"]) > first
    with pytest.raises(LaminaError) as e:
        interp.run("f(1)", "<repl>")                             # an error inside the first run's code
    assert e.value.span.source.text == "f = x -> x / [1, 2]" and e.value.span.col == 12   # the '/'
    assert e.value.stack[0].span.source.text == "f(1)"
