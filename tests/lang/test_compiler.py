"""lang/compiler.py: each syntax node is compiled a bounded number of times, however deeply
functions, loops and `and`/`or` nest."""
from __future__ import annotations

import pytest


def nested_functions(levels: int, with_loops: bool) -> str:
    lines, ends = [], []
    for d in range(levels):
        pad = "  " * (2 * d)
        lines += [f"{pad}function f{d}(x)", f"{pad}  y = x + 1"]
        if with_loops:
            lines += [f"{pad}  while y < 3", f"{pad}    y = y + 1"]
            ends = [f"{pad}  end while", f"{pad}  return y", f"{pad}end function"] + ends
        else:
            ends = [f"{pad}  return y", f"{pad}end function"] + ends
    return "\n".join(lines + ends + ["print(f0(1))"])


@pytest.mark.parametrize("with_loops", [False, True])
def test_nested_functions_compile_in_linear_time(run, with_loops):
    from lamina.lang.compiler import NODES_KEY
    lines, interp = run(nested_functions(8, with_loops))
    assert lines == ["3" if with_loops else "2"]
    # each syntax node compiled a bounded number of times, not 2^levels
    assert len(interp.namespace[NODES_KEY]) < 500


def test_nested_and_or_compile_in_linear_time(run):
    from lamina.lang.compiler import NODES_KEY
    e = "x"
    for _ in range(10):
        e = f"x and ({e} or x)"
    lines, interp = run(f"x = true\ny = {e}\nprint(y, false and bogus, true or bogus)")
    assert lines == ["true false true"]
    assert len(interp.namespace[NODES_KEY]) < 100      # the right side of each was compiled twice
