"""glibc allocator thresholds for array work, set once when Lamina is imported.

By default glibc's malloc serves every block of 128 KiB or more with its own mmap and
unmaps it on free, and trims the heap whenever its free top passes 128 KiB. A NumPy
temporary of that size (a 256 x 128 float64 matrix is already 256 KiB) then arrives as
fresh pages that the kernel faults in and zeroes, every time. On the bench machine that
made an MLP's forward + backward pass about twice as slow (bench/NOTES.md). Raising the
thresholds keeps freed blocks in the heap, where the next array of that size reuses them.

The price: up to TRIM_THRESHOLD of freed heap stays with the process instead of going back
to the system. Set LAMINA_MALLOC_TUNING=0 to keep glibc's defaults. When any of glibc's own
MALLOC_*_ variables below is set, the user has chosen already and nothing is changed. On
any C library other than glibc this does nothing.
"""
from __future__ import annotations

import os

MMAP_THRESHOLD = 256 << 20      # blocks below this come from the heap, not a fresh mmap
MMAP_THRESHOLD_FALLBACK = 32 << 20   # the most that older glibc versions accept
TRIM_THRESHOLD = 512 << 20      # free heap top kept before glibc gives memory back
TOP_PAD = 64 << 20              # extra asked of the system each time the heap grows

# mallopt's parameter numbers (malloc.h)
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3

# The same settings as glibc's environment variables (read when a process starts).
ENV = {"MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD),
       "MALLOC_TRIM_THRESHOLD_": str(TRIM_THRESHOLD),
       "MALLOC_TOP_PAD_": str(TOP_PAD)}


def is_glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):     # no confstr (Windows), or not glibc
        return False


def tune() -> bool:
    """Set the thresholds unless turned off or not on glibc; True when they were set."""
    if os.environ.get("LAMINA_MALLOC_TUNING", "1").strip() == "0":
        return False
    if any(name in os.environ for name in ENV) or not is_glibc():
        return False
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
        if not mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD):
            mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_FALLBACK)
        return bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)) and bool(mallopt(M_TOP_PAD, TOP_PAD))
    except (ImportError, OSError, AttributeError):
        return False
