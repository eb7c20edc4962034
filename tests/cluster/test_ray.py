"""sweep and parallel_map on a real local Ray instance, started once for this module by the
first sweep with workers = 2 (Lamina's own start-up path) and shut down at the end.

Ray writes its sessions under RAY_TMPDIR, a fresh folder here that is removed afterwards; the
cluster uses token authentication (Ray's default) with a token made for the test, so nothing is
written to ~/.ray. make test installs Ray (the cluster extra): a missing Ray fails here, loudly.
"""
from __future__ import annotations

import secrets
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest
import ray
from model_programs import (
    assert_map_equals_direct,
    assert_model_sweep_equals_direct,
    assert_spec_sweep_equals_direct,
)
from sweep_helpers import HELPERS, lamina, run, write_program

from lamina.cluster import engine
from lamina.errors import LaminaError


@pytest.fixture(scope="module")
def ray_env():
    folder = tempfile.mkdtemp(prefix="lamray", dir="/tmp")     # short: Ray's socket paths must be
    env = {"RAY_TMPDIR": folder, "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    with pytest.MonkeyPatch.context() as mp:
        # Ray turns token mode on itself when it starts (and sets RAY_AUTH_MODE here); a mode set
        # after `import ray` would not reach its configuration, read at import.
        mp.delenv("RAY_AUTH_MODE", raising=False)
        for k, v in env.items():
            mp.setenv(k, v)
        try:
            yield env
        finally:
            engine.shutdown()
    shutil.rmtree(folder, ignore_errors=True)


def not_here(*args, **kwargs):
    raise AssertionError("a task ran in the calling process")


def processes_mentioning(text: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if text in line and "ps -eo" not in line]


def test_a_sweep_on_ray_gives_the_numbers_and_errors_of_a_serial_one(ray_env, tmp_path, monkeypatch):
    grid = 'grid = {lr = [0.5, 2, 1, 0.25], units = [1, 4]}\n'
    path = write_program(tmp_path, grid + 'serial = sweep(train, grid, seed = 4)\n')
    _, interp = run(path.read_text(), str(path), directory=str(tmp_path))
    # The workers get the module as the program loaded it, not as the disk has it now.
    (tmp_path / "helpers.lam").write_text(HELPERS.replace("x / k", "x * 1000"))
    monkeypatch.setattr(engine, "_serially", not_here)
    run('parallel = sweep(train, grid, seed = 4, workers = 2)', str(path), interp=interp)
    serial, parallel = interp.get("serial"), interp.get("parallel")
    assert parallel.names == serial.names == ["lr", "units", "seed", "loss", "draw", "seconds", "error"]
    for name in ["lr", "units", "seed", "loss", "draw"]:
        np.testing.assert_array_equal(parallel.columns[name], serial.columns[name])
    assert parallel.columns["error"] == serial.columns["error"]
    assert parallel.columns["error"][2:4] == [f"ValueError at {path}:5: lr 2 is too large"] * 2
    assert np.isnan(parallel.columns["loss"][2]) and not np.isnan(parallel.columns["loss"][0])
    assert engine._STARTED == {"address": None, "cpus": 2} and ray.cluster_resources()["CPU"] == 2


def test_results_keep_the_input_order_whatever_order_they_finish_in(ray_env, monkeypatch):
    monkeypatch.setattr(engine, "_serially", not_here)
    code = ('function slow(x)\n    t0 = clock()\n    while clock() - t0 < 0.1 * x\n    end while\n'
            '    print("item {x}")\n    return x * 10\nend function\n'
            'print(parallel_map(slow, [5, 0, 3, 1, 4], workers = 2))\n')
    out, _ = run(code)
    lines = out.splitlines()
    assert lines[-1] == "[50, 0, 30, 10, 40]"
    assert sorted(lines[:-1]) == ["item 0", "item 1", "item 3", "item 4", "item 5"]


def test_the_first_error_of_a_parallel_map_is_reported_where_it_happened(ray_env):
    with pytest.raises(LaminaError) as info:
        run('function f(x)\n    return [1, 2][x]\nend function\nprint(parallel_map(f, [0, 7], workers = 2))')
    err = info.value
    assert err.kind == "IndexError" and err.span.line == 2 and err.note == "in item 1 of the parallel_map at <test>:4"


def test_models_holding_lamina_functions_train_on_ray_as_in_the_program(ray_env, monkeypatch):
    # a custom layer's functions and a Lamina loss travel as their source (test_package.py)
    monkeypatch.setattr(engine, "_serially", not_here)
    assert_spec_sweep_equals_direct(", workers = 2")
    assert_model_sweep_equals_direct(", workers = 2")
    assert_map_equals_direct(", workers = 2")


def test_the_instance_is_reused_and_restarted_for_more_workers(ray_env):
    node = ray.get_runtime_context().get_node_id()
    out, _ = run('print(sweep(c -> c.k * 2, {k = [1, 2, 3]}, workers = 2).result)')
    assert out == "[2, 4, 6]\n" and ray.get_runtime_context().get_node_id() == node
    out, _ = run('print(sweep(c -> c.k * 2, {k = [1, 2, 3]}, workers = 3).result)')
    assert out == "[2, 4, 6]\n" and ray.get_runtime_context().get_node_id() != node
    assert ray.cluster_resources()["CPU"] == 3


def test_ctrl_c_cancels_the_running_tasks_and_returns_the_finished_rows(ray_env, tmp_path):
    folder = tempfile.mkdtemp(prefix="lamctc", dir="/tmp")
    program = ('function slow(c)\n    if c.k > 1\n        t0 = clock()\n        while clock() - t0 < 60\n'
               '        end while\n    end if\n    print("finished {c.k}")\n    return c.k\nend function\n'
               't = sweep(slow, {k = [0, 1, 2, 3]}, workers = 2)\nprint(t[:, ["k", "result", "error"]])\n')
    (tmp_path / "slow.lam").write_text(program)
    proc = subprocess.Popen([sys.executable, "-m", "lamina", "slow.lam"], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**__import__("os").environ, "RAY_TMPDIR": folder})
    try:
        assert sorted([proc.stdout.readline(), proc.stdout.readline()]) == ["finished 0\n", "finished 1\n"]
        proc.send_signal(2)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, err
    assert out == "table: 2 rows x 3 columns\n   k  result  error\n0  0       0  NA\n1  1       1  NA\n"
    assert ("warning: sweep stopped by Ctrl-C after 2 of 4 configurations finished; it returns the table of "
            "those. (slow.lam:10)\n") in err
    assert processes_mentioning(folder) == []          # Ray's processes went with the program
    shutil.rmtree(folder, ignore_errors=True)


def test_a_program_joins_an_address_only_where_a_cluster_answers(ray_env, tmp_path):
    r = lamina(["-e", 'print(parallel_map(x -> x, [1, 2], address = "127.0.0.1:1"))'], cwd=tmp_path,
               env={"RAY_TMPDIR": ray_env["RAY_TMPDIR"]}, timeout=120)
    assert r.returncode == 1
    assert 'Error: parallel_map could not join the Ray cluster at "127.0.0.1:1"' in r.stderr
    assert "ray start --head" in r.stderr


EXITING = '''function f(x)
    if x == 2
        exit(3)
    end if
    return x
end function
t = {call}
print("not reached")
'''


def test_exit_in_a_ray_task_ends_the_program_with_its_status(tmp_path):
    folder = tempfile.mkdtemp(prefix="lamray", dir="/tmp")     # short: Ray's socket paths must be
    env = {"RAY_TMPDIR": folder, "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    try:
        for call in ("parallel_map(f, [1, 2, 3], workers = 2)", "sweep(c -> f(c.x), {x = [1, 2, 3]}, workers = 2)"):
            r = lamina(["-e", EXITING.replace("{call}", call)], cwd=tmp_path, env=env, timeout=240)
            assert (r.returncode, r.stdout) == (3, "")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
