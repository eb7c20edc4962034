"""Work that falls into independent parts, run on the threads NumPy's BLAS would use.

NumPy runs a matrix product on all of OpenBLAS's threads but every elementwise operation on one,
so a transformer block, half products and half elementwise passes (layer norms, gelu, softmax),
used two threads for only half its time where torch's block uses them throughout. Its examples
are independent, so it splits them instead: one part per thread, each part's products on one
BLAS thread, as torch's bmm splits a batch and autodiff/bmm.py does for batched products. The
pool, the thread count and the waiting are bmm.py's (`split_work`, `parts`, `threads_for_work`);
this module adds how much work is worth splitting. NumPy lets go of the GIL inside each
operation on large arrays, so the parts run side by side.
"""
from __future__ import annotations

from ..autodiff.bmm import parts, split_work, threads_for_work  # noqa: F401  (the one pool, bmm's)

SPLIT_MIN = 1 << 22          # multiply-adds below which one thread does the whole of a piece of work


def pieces_for(count: int, work: int) -> int:
    """Into how many parts to split `count` independent items (examples, sequences) whose work is
    `work` multiply-adds in all: one per thread, unless the work is too small to share."""
    return min(threads_for_work(), count) if count >= 2 and work >= SPLIT_MIN else 1

