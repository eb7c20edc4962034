"""The allocator thresholds set at import: on by default on glibc, off on request, harmless elsewhere."""
import os
import subprocess
import sys

import pytest

from lamina import malloc_tuning

# Allocates and frees a 4 MiB array 20 times and prints the minor page faults that took.
FAULTS = """
import resource, lamina, numpy as np
def f():
    return float((np.ones(1 << 19) * 2.0)[0])
f()
start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    f()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start)
"""


def faults(**env) -> int:
    clean = {k: v for k, v in os.environ.items() if k != "LAMINA_MALLOC_TUNING" and k not in malloc_tuning.ENV}
    out = subprocess.run([sys.executable, "-c", FAULTS], env={**clean, **env}, capture_output=True,
                         text=True, check=True)
    return int(out.stdout)


@pytest.mark.skipif(not malloc_tuning.is_glibc(), reason="the thresholds are glibc's")
def test_freed_arrays_are_reused_by_default_and_not_with_tuning_off():
    tuned, untuned = faults(), faults(LAMINA_MALLOC_TUNING="0")
    # glibc's default unmaps every freed array and faults its pages in again (at least once
    # per array, whatever the page size); tuned, the freed blocks are reused as they are
    assert untuned >= 20 and tuned * 4 < untuned, (tuned, untuned)


def test_turned_off_by_the_variable(monkeypatch):
    monkeypatch.setenv("LAMINA_MALLOC_TUNING", "0")
    assert malloc_tuning.tune() is False


def test_glibc_variables_set_by_the_user_win(monkeypatch):
    monkeypatch.setenv("MALLOC_TOP_PAD_", "0")
    assert malloc_tuning.tune() is False


def test_does_nothing_without_glibc(monkeypatch):
    def no_such_name(name):
        raise ValueError("unrecognized configuration name")
    monkeypatch.delenv("LAMINA_MALLOC_TUNING", raising=False)
    monkeypatch.setattr(os, "confstr", no_such_name)
    assert malloc_tuning.is_glibc() is False
    assert malloc_tuning.tune() is False


@pytest.mark.skipif(not malloc_tuning.is_glibc(), reason="the thresholds are glibc's")
def test_sets_the_thresholds_on_glibc(monkeypatch):
    for name in ("LAMINA_MALLOC_TUNING", *malloc_tuning.ENV):
        monkeypatch.delenv(name, raising=False)
    assert malloc_tuning.tune() is True
