"""OpenBLAS's kernels for a CPU that NumPy's OpenBLAS does not recognise, named before NumPy loads.

NumPy's wheels bundle an OpenBLAS built for many CPUs, which picks its kernels by the CPU's
vendor and family once, when it is loaded. OpenBLAS 0.3.31 (NumPy 2.4's) does not know AMD's
family 1Ah (Zen 5) and gives it its AVX2 kernels (Haswell), although the CPU has AVX-512: a
float32 matrix product then takes 1.6 - 1.9x as long on one thread (bench/NOTES.md). OpenBLAS
fixed its detection later (OpenMathLib/OpenBLAS issue 6029, pull request 6033), giving family
1Ah Zen 4's kernels, which are SkylakeX's on a CPU with AVX-512. Until NumPy ships that, Lamina
names them in OPENBLAS_CORETYPE, which OpenBLAS reads when it loads:

- only on Linux x86-64, only for AMD family 1Ah or later with AVX-512 (F, CD, BW, DQ, VL) in
  /proc/cpuinfo, where the kernel lists those flags only when it saves their registers;
- only when NumPy is not loaded yet (the `lamina` command, a worker it starts, a Python
  program that imports lamina first); later the choice has been made and is left alone;
- never when OPENBLAS_CORETYPE is set already: the user's choice wins
  (`OPENBLAS_CORETYPE=Haswell lamina prog.lam` keeps OpenBLAS's own).

The variable stays in the environment, so processes Lamina starts get the same kernels. This
module imports only os and sys: bench/run.py loads it by its path to give every peer's process
the same choice.
"""
from __future__ import annotations

import os
import sys

AVX512 = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}   # SkylakeX's kernels' needs
FIRST_UNKNOWN_AMD_FAMILY = 0x1A


def core_for(cpuinfo: str) -> str | None:
    """The OPENBLAS_CORETYPE a CPU described by /proc/cpuinfo's text needs, or None when
    OpenBLAS's own choice stands. Only the first processor's entry is read."""
    fields = {}
    for line in cpuinfo.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    try:
        family = int(fields.get("cpu family", ""))
    except ValueError:
        return None
    if fields.get("vendor_id") != "AuthenticAMD" or family < FIRST_UNKNOWN_AMD_FAMILY:
        return None
    return "SkylakeX" if AVX512 <= set(fields.get("flags", "").split()) else None


def needed_core() -> str | None:
    """core_for this machine's CPU: the first processor's entry of /proc/cpuinfo, read line by
    line up to its end (the kernel writes each processor's entry as it is read), or None where
    there is no such file."""
    if not sys.platform.startswith("linux") or os.uname().machine != "x86_64":
        return None
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            lines = []
            for line in f:
                if not line.strip() and lines:
                    break
                lines.append(line)
    except OSError:
        return None
    return core_for("".join(lines))


def choose(environ=os.environ) -> str | None:
    """Name the kernels in `environ` when they are needed and can still take effect; the name
    set, or None."""
    if "OPENBLAS_CORETYPE" in environ or "numpy" in sys.modules:
        return None
    core = needed_core()
    if core is not None:
        environ["OPENBLAS_CORETYPE"] = core
    return core
