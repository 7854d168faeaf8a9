#!/usr/bin/env python3
"""lait-ls start-up against yaml-language-server's, in the same run.

    python3 bench/lsp_startup.py [--rounds 5] [--size 100] [--json FILE]

Each round spawns each server (the order alternates between rounds) the way an editor does: the
process, at once ``initialize``, on its answer ``initialized`` and ``didOpen`` of a generated workflow
with three seeded errors (bench/lsp_latency.py's generator and client; yaml-language-server validates
it against schemas/workflow.json). Timed from just before the spawn:

- **initialize**: until the answer to ``initialize`` is read;
- **first diagnostics**: until the first ``publishDiagnostics`` of the opened file that shows every
  seeded error (yaml-language-server's hard-coded 200 ms validation delay included);
- **CPU until then**: the server process's user + system time at that moment (/proc), which other
  load on the machine disturbs much less than wall time.

lait-ls answers ``initialize`` from the answer its previous start with the same code and client
remembered (lait_ls/early_initialize.py); ``--cold`` gives every lait-ls start an empty cache (the
first start after an install or an upgrade), which answers from the description shipped with the
package (lait_ls/prebuilt_answer.py).

Prints the median (min) of each, lait-ls / yaml-language-server, and the targets: lait-ls's first
diagnostics within 1.5 s, its ``initialize`` within 1.0x the peer's. Exit status 1 when one is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import lsp_latency as B  # noqa: E402

FIRST_DIAGNOSTICS_TARGET_MS = 1500.0
INITIALIZE_RATIO_TARGET = 1.0
SERVERS = ("lait-ls", "yaml-language-server")


async def one_start(
    server: str, root: Path, logs: Path, path: Path, seeded: set[int], cache: Path | None
) -> dict[str, float]:
    client = B.make_client(server, root, logs)
    if cache is not None and client.env is not None:
        shutil.rmtree(cache, ignore_errors=True)
        client.env = {**client.env, "XDG_CACHE_HOME": str(cache)}
    spawned = time.perf_counter()
    await client.start()
    try:
        await client.initialize(root)
        initialized = time.perf_counter()
        doc = B.OpenDoc(client, path, path.read_text(encoding="utf-8"))
        waiter = client.expect_diagnostics(doc.uri, lambda d: seeded <= B.error_lines(d))
        await doc.open()
        received, _ = await client.wait(waiter)
        assert client.proc is not None
        cpu = cpu_ms(client.proc.pid)
    finally:
        await client.stop()
    return {
        "initialize_ms": (initialized - spawned) * 1000.0,
        "first_diagnostics_ms": (received - spawned) * 1000.0,
        "cpu_ms": cpu,
    }


def cpu_ms(pid: int) -> float:
    """User + system CPU of the process so far (all its threads), from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def med(samples: list[float]) -> str:
    return f"{statistics.median(samples):7.0f} ms ({min(samples):.0f})"


async def main_async(args: argparse.Namespace) -> int:
    B.ensure_peer()
    tmp = Path(tempfile.mkdtemp(prefix="lait-lsp-startup-"))
    root = tmp / "project"
    (root / "workflows").mkdir(parents=True)
    (root / "lait.config.yml").write_text(B.PROJECT_CONFIG, encoding="utf-8")
    variant, seeded = B.seed_errors(B.generate(args.size, args.seed))
    path = root / "workflows" / "wf.yml"
    path.write_text(variant, encoding="utf-8")
    lines = {s.line for s in seeded}
    load_before = os.getloadavg()[0]
    runs: dict[str, list[dict[str, float]]] = {s: [] for s in SERVERS}
    for k in range(args.warmup + args.rounds):
        order = SERVERS if k % 2 == 0 else SERVERS[::-1]
        for server in order:
            cache = tmp / "cache" if args.cold else None
            result = await one_start(server, root, tmp / "logs", path, lines, cache)
            if k >= args.warmup:
                runs[server].append(result)
    load_after = os.getloadavg()[0]

    def samples(server: str, key: str) -> list[float]:
        return [r[key] for r in runs[server]]

    mode = "cold: no remembered initialize answer" if args.cold else "warm"
    print(
        f"lsp start-up, {args.size}-line workflow, {args.rounds} rounds, lait-ls {mode} "
        f"(load {load_before:.2f} -> {load_after:.2f})"
    )
    print(f"{'':22} {'spawn -> initialize':>22} {'spawn -> first diagnostics':>28} {'CPU until then':>18}")
    for server in SERVERS:
        print(
            f"{server:22} {med(samples(server, 'initialize_ms')):>22} "
            f"{med(samples(server, 'first_diagnostics_ms')):>28} {med(samples(server, 'cpu_ms')):>18}"
        )
    ratios: dict[str, float] = {}
    for key in ("initialize_ms", "first_diagnostics_ms", "cpu_ms"):
        ratios[key] = statistics.median(samples("lait-ls", key)) / statistics.median(
            samples("yaml-language-server", key)
        )
    first = statistics.median(samples("lait-ls", "first_diagnostics_ms"))
    print(
        f"{'lait-ls / yaml-ls':22} {ratios['initialize_ms']:>21.2f}x {ratios['first_diagnostics_ms']:>27.2f}x "
        f"{ratios['cpu_ms']:>17.2f}x"
    )
    ok_init = ratios["initialize_ms"] <= INITIALIZE_RATIO_TARGET
    ok_first = first <= FIRST_DIAGNOSTICS_TARGET_MS
    print(
        f"targets: initialize <= {INITIALIZE_RATIO_TARGET:.1f}x yaml-ls: {'met' if ok_init else 'MISSED'}; "
        f"first diagnostics <= {FIRST_DIAGNOSTICS_TARGET_MS:.0f} ms: {'met' if ok_first else 'MISSED'}"
    )
    if args.json:
        out: dict[str, Any] = {
            "size": args.size,
            "runs": runs,
            "ratios": ratios,
            "load": [load_before, load_after],
            "versions": B.versions(),
        }
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0 if ok_init and ok_first else 1


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1, help="untimed rounds first (page cache)")
    parser.add_argument("--size", type=int, default=100, help="lines of the opened workflow")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--json", help="write every run here")
    parser.add_argument("--cold", action="store_true", help="no remembered initialize answer for lait-ls")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
