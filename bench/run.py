"""`make bench`: run every case in bench/cases, write bench/RESULTS.md and README's table.

A case module defines `cases()`, a list of dicts:
    {"name": str, "sizes": str, "dtype": str, "impls": {peer: callable | str},
     optional "notes": [str], "repeat": int, "rounds": int (at least that many processes per
     peer, for a case whose speed varies from process to process),
     "goal": {"peer": name, "within": ratio} or {"under_s": seconds}
             (a "less": peer name judges Lamina's median less that peer's: work the
             program does that the goal leaves out, such as its own copies of the data),
     "per": [count, "op"]       (also report each median per op),
     "allocator": True          (measure every peer with and without the malloc thresholds),
     "kind": "memory",          (impls return {label: megabytes} instead of being timed)
     "self_timed": True,        (impls time their operation themselves: each call returns its
                                 seconds, or a list of them, as a peer that runs a whole program
                                 in a process of its own reports; its warm-up call may only
                                 prepare; page faults then include the worker's children's)
     "max_rounds": int}         (at most that many round-robin passes, for a slow case)
"lamina" is the reference impl of a timed case; a callable runs one repetition (setup
already done), a string says why that peer is missing, and the table says so.

Each (case, peer) runs in fresh subprocesses of this script (`--worker`): one warm-up, then
timed runs (wall clock), so no peer's thread pool, allocator state or global setting
(torch.set_num_threads) reaches another's, and the allocator can differ per run. The
`repeat` runs are split over `rounds` round-robin passes over the peers.
The table reports medians, the spread (min - max), minor page faults per run, and the
ratio of Lamina's median to each peer's. A run that fails is reported as failed.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import platform
import re
import resource
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).parent
README = HERE.parent / "README.md"
MARK = "BENCH-RESULT "
README_START, README_END = "<!-- bench:start -->", "<!-- bench:end -->"


def _lamina_module(name: str):
    """src/lamina/NAME.py loaded by its path (malloc_tuning and blas_tuning import only os and
    sys), so that this process does not import lamina, NumPy or tune its own allocator."""
    spec = importlib.util.spec_from_file_location(name, HERE.parent / f"src/lamina/{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _malloc_env() -> dict:
    """The thresholds Lamina sets through mallopt when imported, as glibc's variables."""
    return _lamina_module("malloc_tuning").ENV


def _blas_core(keep_openblas: bool) -> str | None:
    """The OpenBLAS kernels every peer's process is given: the ones Lamina names for this CPU when
    it loads NumPy itself (None: OpenBLAS's own choice), since a case module imports NumPy before
    Lamina could choose; none where the environment's own OPENBLAS_CORETYPE is kept."""
    if keep_openblas and "OPENBLAS_CORETYPE" in os.environ:
        return None
    return _lamina_module("blas_tuning").needed_core()


TUNED_MALLOC = _malloc_env()     # what peers get in the tuned runs
TUNED, DEFAULT = "tuned", "glibc default"
# Set on some machines; they slow current NumPy (OpenBLAS picks the wrong kernels).
OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


# -- the worker: one peer of one case, in its own process -------------------------------
def load_cases(path: pathlib.Path) -> list[dict]:
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))      # case modules import bench/peers.py
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.cases()


def minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def measure(fn, repeat: int) -> dict:
    fn()   # warm-up
    times, faults = [], []
    for _ in range(repeat):
        f0 = minor_faults()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        faults.append(minor_faults() - f0)
    return {"times": times, "faults": faults}


def measure_inside(fn, repeat: int) -> dict:
    """`measure` for a self-timed case: the seconds each call reports, at least `repeat` of them."""
    def faults() -> int:
        return minor_faults() + resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    fn()   # warm-up
    times, per_run = [], []
    while len(times) < repeat:
        f0 = faults()
        seconds = fn()
        seconds = list(seconds) if isinstance(seconds, (list, tuple)) else [seconds]
        times += seconds
        per_run += [(faults() - f0) / len(seconds)] * len(seconds)
    return {"times": times, "faults": per_run}


def worker(path: str, index: int, peer: str, repeat: int) -> dict:
    case = load_cases(pathlib.Path(path))[index]
    impl = case["impls"][peer]
    if case.get("kind") == "memory":
        return {"memory": impl()}
    return (measure_inside if case.get("self_timed") else measure)(impl, repeat)


def describe(path: str) -> list[dict]:
    """What the parent needs to know of a module's cases, without their data."""
    out = []
    for case in load_cases(pathlib.Path(path)):
        meta = {k: v for k, v in case.items() if k != "impls"}
        meta["impls"] = {peer: impl if isinstance(impl, str) else None for peer, impl in case["impls"].items()}
        out.append(meta)
    return out


# -- the parent: spawn, collect, write ---------------------------------------------------
def spawn(args: list[str], env: dict, timeout: float):
    """Run this script with `args` in a fresh process; its result, or a string saying why none."""
    try:
        proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                              env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"failed: no result within {timeout:.0f} s"
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    err = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
    return f"failed: {err}"


def worker_env(keep_openblas: bool) -> dict:
    drop = {"LAMINA_MALLOC_TUNING", *TUNED_MALLOC} | (set() if keep_openblas else set(OPENBLAS_VARS))
    env = {k: v for k, v in os.environ.items() if k not in drop}
    core = _blas_core(keep_openblas)
    return {**env, "OPENBLAS_CORETYPE": core} if core else env


def runs(case: dict):
    """(peer, malloc label, extra environment) for every measurement of `case`."""
    peers = list(case["impls"])
    if not case.get("allocator"):
        return [(peer, "", {}) for peer in peers]
    # Lamina's own default sets the thresholds: it gets no variables, so the tuned Lamina run
    # shows what a user gets. LAMINA_MALLOC_TUNING=0 also keeps a peer's process (which
    # imported lamina with its case module) at glibc's defaults.
    return ([(peer, TUNED, {} if peer == "lamina" else TUNED_MALLOC) for peer in peers]
            + [(peer, DEFAULT, {"LAMINA_MALLOC_TUNING": "0"}) for peer in peers])


def measure_case(path: pathlib.Path, index: int, case: dict, args, base_env: dict) -> list[tuple]:
    """(peer, malloc, result) for every run of `case`.

    Timed runs go round-robin over the implementations, `rounds` times, each worker doing a
    warm-up and its share of the repetitions: a busy spell on the shared machine then falls
    on every peer alike instead of on whichever happened to run during it. Each round starts
    one implementation further on, so that no peer always runs after the same one (on this
    machine a process runs slower after one that left the kernel more memory to reclaim).
    """
    memory = case.get("kind") == "memory"
    rounds = 1 if memory else min(max(args.rounds, case.get("rounds", 0)), case.get("max_rounds", sys.maxsize))
    per_round = -(-case.get("repeat", args.repeat) // rounds)
    results = {}
    order = runs(case)
    for turn in range(rounds):
        start = turn % len(order)
        for peer, malloc, extra in order[start:] + order[:start]:
            missing, key = case["impls"][peer], (peer, malloc)
            if missing is not None:
                results[key] = f"missing: {missing}"
                continue
            if isinstance(results.get(key), str):
                continue
            result = spawn(["--worker", str(path), str(index), peer, "--repeat", str(per_round)],
                           {**base_env, **extra}, args.timeout)
            if isinstance(result, str) or key not in results:
                results[key] = result
            else:
                for k in ("times", "faults"):
                    results[key][k] += result[k]
    for (peer, malloc), result in results.items():
        print(f"{case['name']:<48} {label(peer, malloc):<34} {brief(result)}", flush=True)
    return [(peer, malloc, result) for (peer, malloc), result in results.items()]


def run_all(args) -> list[dict]:
    base_env = worker_env(args.keep_openblas_env)
    measured = []
    for path in sorted((HERE / "cases").glob("[!_]*.py")):
        if args.only and args.only not in path.stem:
            continue
        metas = spawn(["--list", str(path)], base_env, args.timeout)
        if isinstance(metas, str):
            print(f"{path.name}: {metas}", file=sys.stderr)
            measured.append({"name": path.stem, "sizes": "-", "dtype": "-", "impls": {"lamina": metas},
                             "results": [("lamina", "", metas)]})
            continue
        for index, case in enumerate(metas):
            case["results"] = measure_case(path, index, case, args, base_env)
            measured.append(case)
    return measured


# -- formatting ----------------------------------------------------------------------------
def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def label(peer: str, malloc: str) -> str:
    return f"{peer} [{malloc}]" if malloc else peer


def brief(result) -> str:
    if isinstance(result, str):
        return result
    if "memory" in result:
        return ", ".join(f"{k} {v:.1f} MB" for k, v in result["memory"].items())
    return f"{fmt_time(statistics.median(result['times']))}"


def reference(case: dict):
    """Lamina's median in its default configuration, or None."""
    for peer, malloc, result in case["results"]:
        if peer == "lamina" and malloc in ("", TUNED) and isinstance(result, dict) and "times" in result:
            return statistics.median(result["times"])
    return None


def ratio(case: dict, result) -> str:
    ref = reference(case)
    if ref is None or isinstance(result, str):
        return "-"
    return f"{ref / statistics.median(result['times']):.2f}x"


def with_per(case: dict, seconds: float) -> str:
    text = fmt_time(seconds)
    if case.get("per"):
        count, unit = case["per"]
        text += f" ({seconds / count * 1e6:.2f} us/{unit})"
    return text


def goal_text(case: dict) -> str:
    goal, ref = case.get("goal"), reference(case)
    if not goal:
        return ""
    if "under_s" in goal:
        verdict = "" if ref is None else (": met" if ref < goal["under_s"] else ": missed")
        return f"under {goal['under_s']:g} s{verdict}"
    peer, within, less = goal["peer"], goal["within"], goal.get("less")
    text = f"within {within:g}x of {peer}" + (f", less {less}" if less else "")
    medians = {p: statistics.median(result["times"]) for p, malloc, result in case["results"]
               if malloc in ("", TUNED) and isinstance(result, dict) and "times" in result}
    if ref is None or peer not in medians or (less and less not in medians):
        return text + ": not measured"
    judged = (ref - medians[less]) / medians[peer] if less else ref / medians[peer]
    return text + (f": met ({judged:.2f}x)" if judged <= within else f": missed ({judged:.2f}x)")


def summary_table(measured: list[dict]) -> list[str]:
    lines = ["| case | sizes | dtype | Lamina | Lamina / peer | goal |", "|---|---|---|---|---|---|"]
    for case in measured:
        if case.get("kind") == "memory":
            continue
        ref = reference(case)
        tuned = {p: r for p, m, r in case["results"] if p != "lamina" and m in ("", TUNED)}
        plain = {p: r for p, m, r in case["results"] if p != "lamina" and m == DEFAULT}
        cells = []
        for peer, result in tuned.items():
            cell = f"{peer} {ratio(case, result)}" if isinstance(result, dict) else f"{peer} {result}"
            if peer in plain and isinstance(plain[peer], dict):
                cell += f" ({ratio(case, plain[peer])})"
            cells.append(cell)
        lines.append(f"| {case['name']} | {case['sizes']} | {case['dtype']} | "
                     f"{with_per(case, ref) if ref is not None else '-'} | {'; '.join(cells)} | "
                     f"{goal_text(case)} |")
    return lines


def detail_table(measured: list[dict]) -> list[str]:
    lines = ["| case | implementation | malloc | median | spread (min - max) | page faults / run "
             "| Lamina / this |", "|---|---|---|---|---|---|---|"]
    for case in measured:
        if case.get("kind") == "memory":
            continue
        for peer, malloc, result in case["results"]:
            if isinstance(result, str):
                lines.append(f"| {case['name']} | {peer} | {malloc} | - | - | - | {result} |")
                continue
            times, faults = result["times"], result["faults"]
            lines.append(f"| {case['name']} | {peer} | {malloc} | {with_per(case, statistics.median(times))} | "
                         f"{fmt_time(min(times))} - {fmt_time(max(times))} | "
                         f"{statistics.median(faults):,.0f} | {ratio(case, result)} |")
    return lines


def memory_table(measured: list[dict]) -> list[str]:
    lines = []
    for case in (c for c in measured if c.get("kind") == "memory"):
        columns = next((list(r["memory"]) for _, _, r in case["results"] if isinstance(r, dict)), [])
        lines += [f"**{case['name']}** ({case['sizes']}, {case['dtype']})", "",
                  "| implementation | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
        for peer, _, result in case["results"]:
            cells = ([f"{result['memory'][c]:.1f} MB" for c in columns] if isinstance(result, dict)
                     else [result] + [""] * (len(columns) - 1))
            lines.append(f"| {peer} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine_line() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        names = re.findall(r"^model name\s*:\s*(.+)$", pathlib.Path("/proc/cpuinfo").read_text(), re.M)
        cpu = names[0] if names else cpu
    except OSError:
        pass
    libc = " ".join(platform.libc_ver()) or "unknown libc"
    return (f"Run on {datetime.date.today().isoformat()}, {os.cpu_count()} cores ({cpu}), "
            f"{platform.system()} {libc}, Python {platform.python_version()}, NumPy {version('numpy')}, "
            f"PyTorch {version('torch')}.")


def environment_notes(keep_openblas: bool) -> list[str]:
    found = {v: os.environ[v] for v in OPENBLAS_VARS if v in os.environ}
    core = _blas_core(keep_openblas)
    chosen = ([f"- OPENBLAS_CORETYPE={core} for every peer alike: the kernels Lamina names for this CPU "
               "when it loads NumPy itself (src/lamina/blas_tuning.py; OpenBLAS 0.3.31 takes this CPU "
               "for a Haswell)."] if core else [])
    if not found:
        return [f"- {' and '.join(OPENBLAS_VARS)}: not set."] + chosen
    shown = ", ".join(f"{k}={v}" for k, v in found.items())
    if keep_openblas:
        return [f"- {shown} set in the environment and kept for every peer (`--keep-openblas-env`)."] + chosen
    return [f"- {shown} set in the environment; the bench unset both variables for every peer alike "
            f"(they slow current NumPy's OpenBLAS). Tests and CI keep them."] + chosen


METHOD = (
    "Each implementation runs in its own fresh process: one warm-up, then several timed runs; the "
    "tables give wall-clock medians. The machine is shared, so read the ratios: Lamina's median "
    "over the peer's, below 1 means Lamina is faster. Peers that could not be installed are "
    "listed as missing.")
MALLOC_NOTE = (
    "malloc: Lamina sets glibc's allocator thresholds when imported (`LAMINA_MALLOC_TUNING=0` turns "
    "that off); cases marked with a malloc column run every implementation both ways: *tuned* (Lamina "
    "by its own default, peers with `MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`, "
    "`MALLOC_TOP_PAD_` set to the same values) and *glibc default* (`LAMINA_MALLOC_TUNING=0`, no "
    "variables). The summary's ratios are against the tuned peer, with the glibc-default peer in "
    "parentheses; goals are judged against the tuned peer.")

README_LEGEND = ("Lamina / peer: Lamina's median over the peer's; in parentheses, against the peer "
                 "with glibc's default allocator thresholds.")


def write_results(path: pathlib.Path, measured: list[dict], keep_openblas: bool) -> None:
    notes = [f"- {c['name']}: {n}" for c in measured for n in c.get("notes", [])]
    lines = (["# Benchmark results", "", machine_line(), "", METHOD, "", MALLOC_NOTE, "",
              "## Summary", ""] + summary_table(measured)
             + (["", "## Memory", ""] + memory_table(measured) if memory_table(measured) else [""])
             + ["## Every measurement", ""] + detail_table(measured)
             + ["", "## Environment", ""] + environment_notes(keep_openblas)
             + (["", "## Notes", ""] + notes if notes else []))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


def update_readme(measured: list[dict]) -> None:
    """Replace README's table between the bench markers (left alone when they are missing)."""
    text = README.read_text()
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        print(f"README.md has no {README_START} ... {README_END} markers: table not copied")
        return
    block = [README_START, "", machine_line() + " " + README_LEGEND, "", *summary_table(measured), "",
             *memory_table(measured),
             "Every measurement, with spreads and page faults: [bench/RESULTS.md](bench/RESULTS.md).", ""]
    text = text[:start] + "\n".join(block) + text[end:]
    README.write_text(text)
    print(f"updated {README}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=8, help="timed runs per implementation (a case may set its own)")
    ap.add_argument("--rounds", type=int, default=4, help="round-robin passes over a case's implementations")
    ap.add_argument("--only", help="run only case files whose name contains this (writes bench/out/)")
    ap.add_argument("--out", help="where to write the results (default bench/RESULTS.md)")
    ap.add_argument("--keep-openblas-env", action="store_true", help="do not unset OPENBLAS_CORETYPE/L2_SIZE")
    ap.add_argument("--timeout", type=float, default=600, help="seconds allowed to one worker")
    ap.add_argument("--worker", nargs=3, metavar=("FILE", "INDEX", "PEER"), help=argparse.SUPPRESS)
    ap.add_argument("--list", metavar="FILE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(MARK + json.dumps(worker(args.worker[0], int(args.worker[1]), args.worker[2], args.repeat)))
        return 0
    if args.list:
        print(MARK + json.dumps(describe(args.list)))
        return 0
    started = time.perf_counter()
    measured = run_all(args)
    partial = bool(args.only)
    out = pathlib.Path(args.out) if args.out else HERE / ("out/RESULTS.md" if partial else "RESULTS.md")
    write_results(out, measured, args.keep_openblas_env)
    if not partial and not args.out:
        update_readme(measured)
    print(f"bench took {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
