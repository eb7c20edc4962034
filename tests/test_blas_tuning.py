"""OpenBLAS's kernels named before NumPy loads: only for a CPU OpenBLAS 0.3.31 does not know
(AMD family 1Ah with AVX-512), never over the user's OPENBLAS_CORETYPE, never once NumPy is loaded."""
import os
import subprocess
import sys

import pytest

from lamina import blas_tuning

AVX512_FLAGS = "fpu sse2 avx avx2 fma avx512f avx512dq avx512cd avx512bw avx512vl avx512_bf16"


def cpuinfo(vendor: str, family: int, flags: str, processors: int = 2) -> str:
    entry = (f"vendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: 2\n"
             f"model name\t: test cpu\nflags\t\t: {flags}\n")
    return "\n".join(f"processor\t: {n}\n{entry}" for n in range(processors))


@pytest.mark.parametrize("vendor, family, flags, core", [
    ("AuthenticAMD", 26, AVX512_FLAGS, "SkylakeX"),          # Zen 5: OpenBLAS 0.3.31 gives Haswell
    ("AuthenticAMD", 27, AVX512_FLAGS, "SkylakeX"),          # a later family, not known either
    ("AuthenticAMD", 26, "fpu sse2 avx avx2 fma", None),     # no AVX-512: Haswell's kernels are right
    ("AuthenticAMD", 26, AVX512_FLAGS.replace(" avx512vl", ""), None),
    ("AuthenticAMD", 25, AVX512_FLAGS, None),                # Zen 4: OpenBLAS knows it
    ("GenuineIntel", 6, AVX512_FLAGS, None),                 # Intel: OpenBLAS knows it
])
def test_core_for_the_cpu(vendor, family, flags, core):
    assert blas_tuning.core_for(cpuinfo(vendor, family, flags)) == core


def test_only_the_first_processor_and_malformed_entries():
    first_without = cpuinfo("AuthenticAMD", 26, "avx2") + "\n" + cpuinfo("AuthenticAMD", 26, AVX512_FLAGS)
    assert blas_tuning.core_for(first_without) is None
    assert blas_tuning.core_for("") is None
    assert blas_tuning.core_for("vendor_id : AuthenticAMD\ncpu family : zen\nflags : " + AVX512_FLAGS) is None


def test_the_users_choice_and_a_loaded_numpy_are_left_alone():
    environ = {"OPENBLAS_CORETYPE": "Haswell"}
    assert blas_tuning.choose(environ) is None and environ == {"OPENBLAS_CORETYPE": "Haswell"}
    assert "numpy" in sys.modules               # pytest's process: too late to choose
    environ = {}
    assert blas_tuning.choose(environ) is None and environ == {}


PROBE = """
import os, lamina, numpy
from threadpoolctl import threadpool_info
blas = [i for i in threadpool_info() if i["internal_api"] == "openblas"]
print(os.environ.get("OPENBLAS_CORETYPE"), blas[0]["architecture"] if blas else None)
"""


def probe(**env) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    out = subprocess.run([sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True,
                         text=True, check=True)
    return out.stdout.split()


def test_importing_lamina_first_gives_openblas_the_kernels_this_cpu_needs():
    variable, architecture = probe()
    core = blas_tuning.needed_core()
    assert variable == str(core)
    if core is not None and architecture != "None":
        assert architecture == core             # OpenBLAS took it


def test_a_coretype_in_the_environment_is_kept():
    assert probe(OPENBLAS_CORETYPE="Haswell")[0] == "Haswell"
