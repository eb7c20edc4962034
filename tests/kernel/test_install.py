"""`lamina kernel install`: the kernelspec Jupyter finds, written where asked."""
from __future__ import annotations

import json
import subprocess
import sys

from jupyter_client.kernelspec import KernelSpecManager

LAMINA = [sys.executable, "-m", "lamina"]


def test_install_into_a_prefix_writes_a_spec_jupyter_finds(tmp_path):
    done = subprocess.run(LAMINA + ["kernel", "install", "--prefix", str(tmp_path)], capture_output=True, text=True)
    folder = tmp_path / "share" / "jupyter" / "kernels" / "lamina"
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"Installed the Jupyter kernel 'lamina' (\"Lamina\") in {folder}\n"
    spec = json.loads((folder / "kernel.json").read_text())
    assert spec["argv"] == [sys.executable, "-m", "lamina.kernel", "-f", "{connection_file}"]
    assert (spec["display_name"], spec["language"], spec["interrupt_mode"]) == ("Lamina", "lamina", "signal")
    manager = KernelSpecManager(kernel_dirs=[str(folder.parent)])
    assert manager.get_kernel_spec("lamina").display_name == "Lamina"


def test_where_to_install_is_one_choice(tmp_path):
    done = subprocess.run(LAMINA + ["kernel", "install", "--user", "--prefix", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "not allowed with argument" in done.stderr
    assert not (tmp_path / "share").exists()
