"""The tests whose exact numbers depend on the CPU's SIMD kernels, run again as a CPU without
this one's wider kernels would run them.

NumPy picks its kernels when imported (AVX-512 ones on some machines, the C library's on
others), and they part in the last bit on a few percent of ordinary numbers. CI draws its
machine at random, so a test that passes here must also pass there: this reruns the
number-vs-vector tests, the math tests and the committed documentation pages (whose examples
print computed numbers) in a process with NPY_DISABLE_CPU_FEATURES naming every optional
kernel set this CPU has. On a CPU that has none there is nothing to turn off, and the test is
skipped (the default run is then already the narrow one).
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).parents[2]
SENSITIVE = ["tests/builtins/test_scalar_paths.py", "tests/builtins/test_math_sequences.py",
             "tests/docs/test_registry_docs.py::test_committed_pages_match_the_engine"]
# The kernel sets NumPy can dispatch to beyond its baseline that the CPU has, as a process with
# the given environment sees them (numpy._core since NumPy 2, numpy.core before).
OPTIONAL_KERNELS = """
try:
    from numpy._core import _multiarray_umath as u
except ImportError:
    from numpy.core import _multiarray_umath as u
print(' '.join(f for f in u.__cpu_dispatch__ if u.__cpu_features__.get(f)))
"""


def optional_kernels(env: dict[str, str]) -> list[str]:
    probe = subprocess.run([sys.executable, "-c", OPTIONAL_KERNELS], env=env, capture_output=True,
                           text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr
    return probe.stdout.split()


def test_the_sensitive_files_exist():
    for target in SENSITIVE:
        assert (ROOT / target.split("::")[0]).is_file(), target


def test_the_cpu_sensitive_tests_pass_with_the_narrowest_kernels():
    turned_off = optional_kernels(dict(os.environ))
    if not turned_off:
        pytest.skip("this CPU has no kernels beyond NumPy's baseline")
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(turned_off)}
    assert optional_kernels(env) == []
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q",
                        *SENSITIVE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
