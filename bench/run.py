"""`make bench`: run every case in bench/cases and write bench/RESULTS.md.

A case module defines `cases()`, a list of dicts:
    {"name": str, "sizes": str, "dtype": str, "impls": {peer: callable | str}}
"lamina" is always an impl; a callable runs one repetition (setup already done), a
string says why that peer is missing. Each impl is warmed up once and then timed
`--repeat` times, all in this one process; the table reports medians, the spread
(min-max) and the ratio of Lamina's median to each peer's.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import pathlib
import platform
import statistics
import sys
import time

HERE = pathlib.Path(__file__).parent


def load_cases(only: str | None):
    for path in sorted((HERE / "cases").glob("*.py")):
        if only and only not in path.stem:
            continue
        spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for case in module.cases():
            yield path.stem, case


def measure(fn, repeat: int) -> list[float]:
    fn()   # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", help="run only case files whose name contains this")
    ap.add_argument("--out", default=str(HERE / "RESULTS.md"))
    args = ap.parse_args()
    rows = []
    for group, case in load_cases(args.only):
        results = {}
        for peer, impl in case["impls"].items():
            if isinstance(impl, str):
                results[peer] = impl
                continue
            times = measure(impl, case.get("repeat", args.repeat))
            results[peer] = times
        lam = results["lamina"]
        lam_med = statistics.median(lam)
        for peer, res in results.items():
            if isinstance(res, str):
                rows.append((group, case, peer, None, None, f"missing: {res}"))
                continue
            med = statistics.median(res)
            spread = f"{fmt_time(min(res))} - {fmt_time(max(res))}"
            ratio = "1 (reference)" if peer == "lamina" else f"{lam_med / med:.2f}x"
            rows.append((group, case, peer, fmt_time(med), spread, ratio))
            print(f"{case['name']:<44} {peer:<22} {fmt_time(med):>10}  ({spread})  lamina/peer {ratio}",
                  flush=True)
        for note in case.get("notes", []):
            print(f"    note: {note}")
    write_results(pathlib.Path(args.out), rows)
    return 0


def write_results(path: pathlib.Path, rows) -> None:
    today = datetime.date.today().isoformat()
    lines = [
        "# Benchmark results",
        "",
        f"Run on {today}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.machine()}. Medians of several runs after a warm-up, all peers measured in the "
        "same process; the machine is shared, so read the ratios (Lamina's median over the peer's: "
        "below 1 means Lamina is faster).",
        "",
        "| case | sizes | dtype | implementation | median | spread (min - max) | Lamina / peer |",
        "|---|---|---|---|---|---|---|",
    ]
    for group, case, peer, med, spread, ratio in rows:
        lines.append(f"| {case['name']} | {case['sizes']} | {case['dtype']} | {peer} | "
                     f"{med or '-'} | {spread or '-'} | {ratio} |")
    notes = [f"- {case['name']}: {n}" for group, case, peer, *_ in rows if peer == "lamina"
             for n in case.get("notes", [])]
    if notes:
        lines += ["", "Notes:", ""] + notes
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
