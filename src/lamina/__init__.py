"""Lamina: a small array language for statistics and machine learning."""
import os as _os
import sys as _sys


def _started_as_command() -> bool:
    """Whether the `lamina` command (or `python -m lamina...`, whose argv[0] is "-m" until the
    module is found) is importing this package, rather than a Python program that uses it."""
    first = _sys.argv[0] if getattr(_sys, "argv", None) else ""
    return first == "-m" or _os.path.splitext(_os.path.basename(first))[0] == "lamina"


try:
    from . import blas_tuning as _blas_tuning

    # OpenBLAS's AVX-512 kernels on a CPU its NumPy build does not recognise (before NumPy loads).
    _blas_tuning.choose()

    from . import malloc_tuning as _malloc_tuning

    # Keep freed large arrays in the heap for reuse (glibc only; LAMINA_MALLOC_TUNING=0 turns it off).
    _malloc_tuning.tune()

    import gc as _gc

    import numpy as _np

    # A tape is many small tuples and closures (autodiff/tape.py), which the cycle collector would
    # walk again and again while a long chain of tracked ops is built: about 13% of a scalar op
    # (bench/NOTES.md). The tape forms no cycles, so collect the youngest generation less often.
    _threshold = _gc.get_threshold()
    if _threshold[0] < 10_000:
        _gc.set_threshold(10_000, *_threshold[1:])

    # Lamina arithmetic is IEEE: 1/0 is Inf and 0/0 is NaN, without warnings.
    _np.seterr(all="ignore")
except KeyboardInterrupt:
    # Ctrl-C while the command imports NumPy (most of its start-up): the one line and status 130
    # that cli.entry gives an interrupt, not a traceback through the import machinery.
    if not _started_as_command():
        raise
    print("Interrupted.", file=_sys.stderr)
    raise SystemExit(130) from None

__version__ = "0.1.0"
