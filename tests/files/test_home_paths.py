"""A path a program names may start with `~`, as in the shell, R and MATLAB: every builtin that
reads or writes a file, `import`, and LAMINA_PATH read it as the home folder. Run through the
real `lamina` command with HOME set to a temporary folder, so the files are real and land there."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

LAMINA = [sys.executable, "-m", "lamina"]


def run(tmp_path, program: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir(exist_ok=True)
    work.mkdir(exist_ok=True)
    environ = {k: v for k, v in os.environ.items() if k != "LAMINA_PATH"}
    environ.update(HOME=str(home), MPLBACKEND="Agg", **env)
    return subprocess.run(LAMINA + list(args) + ["-e", program], cwd=work, env=environ,
                          capture_output=True, text=True, timeout=120)


def test_files_under_the_home_folder(tmp_path):
    program = """
write_csv([1, 2; 3, 4], "~/m.csv", names = ["a", "b"])
t = read_csv("~/m.csv")
print(t.b)
net = input(2) |> dense(1) |> compile(seed = 1)
save_model(net, "~/net.npz")
print(size(load_model("~/net.npz").weights[0].w))
plot([1, 2, 3])
savefig("~/fig.png")
"""
    done = run(tmp_path, program)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[2, 4]\n[2, 1]\n"
    home = tmp_path / "home"
    assert (home / "m.csv").read_text() == "a,b\n1,2\n3,4\n"
    assert np.load(home / "net.npz")["param0"].shape == (2, 1)
    assert (home / "fig.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / "work" / "~").exists()        # nothing written to a folder named ~


def test_import_and_lamina_path_under_the_home_folder(tmp_path):
    lib = tmp_path / "home" / "lib"
    lib.mkdir(parents=True)
    (lib / "helpers.lam").write_text("function twice(x)\n    return 2 * x\nend function\n")
    done = run(tmp_path, 'import "~/lib/helpers.lam"\nprint(helpers.twice(3))')
    assert (done.returncode, done.stdout) == (0, "6\n"), done.stderr
    done = run(tmp_path, "import helpers\nprint(helpers.twice(4))", LAMINA_PATH="~/lib")
    assert (done.returncode, done.stdout) == (0, "8\n"), done.stderr


def test_permissions_see_the_home_folder(tmp_path):
    """--allow-write=work does not let "~/x.csv" through: the check reads the expanded path."""
    done = run(tmp_path, 'write_csv([1, 2], "~/x.csv")', f"--allow-write={tmp_path / 'work'}")
    assert done.returncode == 1
    assert f'may not write "{tmp_path / "home" / "x.csv"}"' in done.stderr
    assert not (tmp_path / "home" / "x.csv").exists()
