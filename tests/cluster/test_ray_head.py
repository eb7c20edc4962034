"""Joining a Ray cluster started apart from the program: `ray start --head --port` on 127.0.0.1
in a subprocess, a Lamina program that sweeps with `address`, then the head stopped.

The head runs with --block, so stopping that one process (by its id) stops every process of the
node; the test then checks that none is left. Its sessions go to a fresh RAY_TMPDIR, removed
afterwards, and both sides use a token made for the test (Ray's token authentication).
"""
from __future__ import annotations

import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from sweep_helpers import lamina, write_program

RAY = str(pathlib.Path(sys.executable).parent / "ray")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_it_answers(port: int, head: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert head.poll() is None, head.stdout.read()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"the head node did not answer on port {port} within {seconds} s")


def test_a_program_joins_a_head_node_by_its_address(tmp_path):
    folder = tempfile.mkdtemp(prefix="lamhead", dir="/tmp")
    env = {**os.environ, "RAY_TMPDIR": folder, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
           "RAY_USAGE_STATS_ENABLED": "0"}
    port = free_port()
    head = subprocess.Popen([RAY, "start", "--head", "--block", f"--port={port}", "--node-ip-address=127.0.0.1",
                             "--num-cpus=2", "--include-dashboard=false"], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_until_it_answers(port, head)
        grid = 'grid = {lr = [0.5, 2, 0.25], units = [1, 4]}\n'
        write_program(tmp_path, grid + f'joined = sweep(train, grid, seed = 9, address = "127.0.0.1:{port}")\n'
                      'here = sweep(train, grid, seed = 9)\n'
                      'print(joined[:, ["lr", "units", "seed", "loss", "draw", "error"]])\n'
                      'print(here[:, ["lr", "units", "seed", "loss", "draw", "error"]])\n'
                      'print(parallel_map(x -> 2 * x, [1, 2, 3], address = "127.0.0.1:{port}"))\n'
                      .replace("{port}", str(port)))
        r = lamina(["prog.lam"], cwd=tmp_path, env=env, timeout=180)
        assert r.returncode == 0, r.stderr
        *tables, mapped = r.stdout.rstrip("\n").split("\n")
        half = len(tables) // 2
        assert tables[:half] == tables[half:] and tables[0] == "table: 6 rows x 6 columns"
        assert "ValueError at prog.lam:5: lr 2 is too large" in tables[4]
        assert mapped == "[2, 4, 6]"
    finally:
        head.terminate()
        head.wait(timeout=60)
        time.sleep(1)
        left = [line for line in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
                .splitlines() if folder in line]
        shutil.rmtree(folder, ignore_errors=True)
    assert left == [], left
