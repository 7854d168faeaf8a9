#!/usr/bin/env python3
"""The template reference scan (what ``lait lint`` and the editor run on every prompt) on hostile
input against ordinary input of the same size, measured in the same run: N unclosed ``{{`` tags
against N closed ``{{ inputs.x }}`` tags. A linear scan keeps the ratio near 1 at every size; a
quadratic one (each unclosed ``{{`` scanning the rest of the text for its ``}}``) makes it grow
with N.

    python3 bench/template_unclosed.py --sizes 25000 50000 100000 200000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lait_core.syntax.template.mentions import references


def seconds(source: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        references(source)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[25000, 50000, 100000, 200000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'tags':>8} {'closed s':>10} {'unclosed s':>11} {'ratio':>7}")
    for n in args.sizes:
        closed = seconds("{{ inputs.x }} " * n, args.runs)
        unclosed = seconds("{{ x " * n, args.runs)
        print(f"{n:>8} {closed:>10.4f} {unclosed:>11.4f} {unclosed / closed:>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
