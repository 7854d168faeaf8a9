#!/usr/bin/env python3
"""Interleaved A/B timing of ``lait lint`` between two source trees (for example a worktree of an
older commit against the current one).

Each run starts a fresh ``python -m lait_cli.main lint --no-config PROJECT`` process with
``PYTHONPATH`` set to one tree; the trees alternate (A B, B A, A B, ...) so that neither always runs
on a cooler or a busier machine. Wall time and CPU time (user + sys of the child, from
``os.wait4``) are reported; on a shared machine CPU time is the steadier of the two.

The working directory of every run is the project's parent, never one of the trees, because the
current directory on ``sys.path`` would otherwise shadow ``PYTHONPATH``.

    python3 bench/ab_lint.py --a /work/wt/base --b . --runs 7 PROJECT
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

PYCACHE = Path(__file__).resolve().parent / ".out" / "pycache"


def run_once(tree: Path, args: list[str], cwd: Path, bytecode_cache: bool = True) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    if bytecode_cache:  # as an installed lait runs: its modules compiled once (the untimed first run)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"lait exited {proc.returncode} with PYTHONPATH={tree}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("project", type=Path, help="the project (or file) to lint")
    parser.add_argument("--a", type=Path, required=True, help="tree A (the baseline) for PYTHONPATH")
    parser.add_argument("--b", type=Path, required=True, help="tree B (the candidate) for PYTHONPATH")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", type=Path, help="also write every run here")
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="keep the environment's bytecode setting (with PYTHONDONTWRITEBYTECODE=1 each run compiles)",
    )
    opts = parser.parse_args()
    trees = {"A": opts.a.resolve(), "B": opts.b.resolve()}
    project = opts.project.resolve()
    args = ["lint", "--no-config", str(project)]
    cwd = project.parent
    for tree in trees.values():  # warm the page cache, untimed
        run_once(tree, args, cwd, not opts.no_bytecode_cache)
    runs: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
    for i in range(opts.runs):
        for name in ("A", "B") if i % 2 == 0 else ("B", "A"):
            runs[name].append(run_once(trees[name], args, cwd, not opts.no_bytecode_cache))
    load = os.getloadavg()[0]
    summary: dict[str, dict[str, float]] = {}
    for name, values in runs.items():
        walls = [w for w, _ in values]
        cpus = [c for _, c in values]
        summary[name] = {
            "wall_median_ms": statistics.median(walls) * 1000,
            "wall_min_ms": min(walls) * 1000,
            "cpu_median_ms": statistics.median(cpus) * 1000,
            "cpu_min_ms": min(cpus) * 1000,
        }
        s = summary[name]
        print(
            f"{name} {trees[name]}: wall median {s['wall_median_ms']:.0f} ms (min {s['wall_min_ms']:.0f}),"
            f" cpu median {s['cpu_median_ms']:.0f} ms (min {s['cpu_min_ms']:.0f})"
        )
    wall_ratio = summary["B"]["wall_median_ms"] / summary["A"]["wall_median_ms"]
    cpu_ratio = summary["B"]["cpu_median_ms"] / summary["A"]["cpu_median_ms"]
    print(f"B/A: wall {wall_ratio:.3f}, cpu {cpu_ratio:.3f} ({opts.runs} runs each, load average {load:.2f})")
    if opts.json:
        opts.json.write_text(
            json.dumps(
                {
                    "trees": {k: str(v) for k, v in trees.items()},
                    "runs": runs,
                    "summary": summary,
                    "load": load,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
