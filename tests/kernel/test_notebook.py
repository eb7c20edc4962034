"""examples/notebooks/tour.ipynb, executed with nbclient on the Lamina kernel: each cell's
outputs must be the ones the notebook holds (data, a model, a figure, an error).

After changing the notebook or what its cells print, rewrite its outputs with
`.venv/bin/python tests/kernel/test_notebook.py` (it installs the kernelspec in a temporary
folder first) and commit it.
"""
from __future__ import annotations

import base64
import copy
import pathlib

import nbclient
import nbformat

NOTEBOOK = pathlib.Path(__file__).parents[2] / "examples" / "notebooks" / "tour.ipynb"


def execute(nb):
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="lamina", record_timing=False,
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    return nb


def outputs(cell) -> list:
    """A cell's outputs as compared: consecutive stream pieces joined (how a stream is cut into
    messages depends on timing), a PNG as its kind only (its bytes depend on matplotlib's
    version and fonts), everything else exactly."""
    out = []
    for o in cell.outputs:
        if o.output_type == "stream":
            if out and out[-1][0] == "stream" and out[-1][1] == o.name:
                out[-1] = ("stream", o.name, out[-1][2] + o.text)
            else:
                out.append(("stream", o.name, o.text))
        elif o.output_type == "error":
            out.append(("error", o.ename, o.evalue, tuple(o.traceback)))
        else:
            data = {k: ("<png>" if k == "image/png" else v) for k, v in o.data.items()}
            out.append((o.output_type, tuple(sorted(data.items()))))
    return out


def test_the_tour_notebook_executes_to_the_outputs_it_holds():
    stored = nbformat.read(NOTEBOOK, as_version=4)
    ran = execute(copy.deepcopy(stored))
    code = [(s, r) for s, r in zip(stored.cells, ran.cells) if s.cell_type == "code"]
    for s, r in code:
        assert outputs(r) == outputs(s), s.source
    kinds = [o for s, _ in code for o in s.outputs]
    assert any("text/html" in o.get("data", {}) and "Linear regression" in o["data"]["text/plain"] for o in kinds)
    assert any(o.output_type == "error" and o.ename == "NameError" for o in kinds)
    pngs = [o["data"]["image/png"] for _, r in code for o in r.outputs if "image/png" in o.get("data", {})]
    assert len(pngs) == 1 and base64.b64decode(pngs[0]).startswith(b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    import os
    import tempfile

    from lamina.kernel.install import install
    with tempfile.TemporaryDirectory() as tmp:
        install(prefix=tmp)
        os.environ["JUPYTER_PATH"] = os.path.join(tmp, "share", "jupyter")
        nb = execute(nbformat.read(NOTEBOOK, as_version=4))
    nbformat.write(nb, NOTEBOOK)
    print(f"wrote the outputs of {NOTEBOOK}")
