"""A notebook beside its modules, executed with nbclient on the Lamina kernel: `import` finds
the module in the notebook's folder, an error inside the module shows the module's file and
line, `warn` writes to the cell's stderr, try/catch and compound assignment work across
cells, and exit() ends the cell but not the kernel."""
from __future__ import annotations

import nbclient
import nbformat

HELPERS = """\
# Helpers for a notebook.
RATE = 0.5

function twice(x)
    return 2 * x
end function

function fail(x)
    return x * [1, 2]
end function
"""

CELLS = [
    "import helpers as h\nh.twice(21)",
    'warn("the rate {h.RATE} is high")\nprint("went on")',
    "total = 0\nfor v in [1, 2, 3]\n    total += h.twice(v)\nend for\ntotal",
    "try\n    h.fail([1, 2, 3])\ncatch err\n    print(err.kind, err.file, err.line)\nend try",
    "h.fail([1, 2, 3])",
    'print("before")\nexit()\nprint("not reached")',
    'exit(3)',
    "total",
]


def run_notebook(folder) -> list:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = nbclient.NotebookClient(nb, timeout=60, kernel_name="lamina", allow_errors=True,
                                     resources={"metadata": {"path": str(folder)}})
    client.execute()
    return nb.cells


def texts(cell, name: str) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == name)


def result(cell) -> str | None:
    found = [o.data["text/plain"] for o in cell.outputs if o.output_type == "execute_result"]
    return found[0] if found else None


def test_a_notebook_imports_its_modules_and_reports_their_errors(tmp_path):
    (tmp_path / "helpers.lam").write_text(HELPERS)
    cells = run_notebook(tmp_path)
    assert result(cells[0]) == "42"
    assert texts(cells[1], "stderr") == "warning: the rate 0.5 is high (<cell 2>:1)\n"
    assert texts(cells[1], "stdout") == "went on\n"
    assert result(cells[2]) == "12"
    assert texts(cells[3], "stdout") == "ShapeError helpers.lam 9\n"
    [error] = [o for o in cells[4].outputs if o.output_type == "error"]
    assert error.ename == "ShapeError"
    assert error.traceback[1:5] == ["  --> helpers.lam:9:14", "    |", "  9 |     return x * [1, 2]",
                                    "    |              ^"]
    assert error.traceback[-2:] == ["Call stack (most recent call last):", "  fail, called at <cell 5>:1:3"]
    assert texts(cells[5], "stdout") == "before\n" and not any(o.output_type == "error" for o in cells[5].outputs)
    [stopped] = [o for o in cells[6].outputs if o.output_type == "error"]
    assert (stopped.ename, stopped.evalue) == ("Exit", "exit(3)")
    assert result(cells[7]) == "12"              # the kernel and its variables are still there
