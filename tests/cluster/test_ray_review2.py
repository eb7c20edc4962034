"""Review 2: exit() inside a call on Ray ends the program, as it does with workers = 1."""
from __future__ import annotations

import secrets
import shutil
import tempfile

from sweep_helpers import lamina

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
