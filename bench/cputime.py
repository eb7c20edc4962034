"""Process time of one implementation of one bench case, in this process: the A/B tool for a
shared, busy machine, where a neighbour moves the wall clock far more than the CPU seconds a
process spends (bench/NOTES.md). One warm-up, then `repeat` timed runs, printed one a line.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/cputime.py mlp 2 lamina 2
    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/cputime.py mlp 2 "numpy (by hand, no tape)" 2

(module name in bench/cases, case index in its cases(), implementation, timed runs). Run the
peers in alternation, in fresh processes, several rounds, and compare medians.
"""
from __future__ import annotations

import pathlib
import sys
import time

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))
from run import load_cases  # noqa: E402  (bench/run.py)


def main() -> None:
    module, index, peer, repeat = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    case = load_cases(HERE / "cases" / f"{module}.py")[index]
    impl = case["impls"][peer]
    if isinstance(impl, str):
        sys.exit(f"{peer}: {impl}")
    impl()
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        impl()
        times.append(time.process_time() - t0)
    print(f"{case['name']} | {peer} | " + " ".join(f"{t:.3f}" for t in times))


if __name__ == "__main__":
    main()
