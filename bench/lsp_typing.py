#!/usr/bin/env python3
"""Typing continuously into a 10,000-line workflow, lait-ls against yaml-language-server, and the
memory each server holds for that file, in the same run.

    python3 bench/lsp_typing.py [--size 10000] [--seconds 5] [--every-ms 100] [--rounds 2] [--json FILE]

Each round starts each server (bench/lsp_latency.py's client; lait-ls with its default 150 ms
debounce), opens lsp_latency.py's generated workflow with its three seeded errors, waits for its
diagnostics and records the server's resident memory (VmRSS from /proc: the whole process, node's
heap included). Then one character is typed into the description line every ``--every-ms`` for
``--seconds``: it counts the publishes of the file that arrive during the typing and the longest
time without one (from the first edit to the last; "none" when nothing came), then the time from
the last edit to the diagnostics of the final text, and the memory again. Target: lait-ls
publishes at least every 500 ms while typing (its longest gap).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import lsp_latency as B  # noqa: E402

GAP_TARGET_MS = 500.0
SERVERS = ("lait-ls", "yaml-language-server")


def rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


class RecordingClient(B.LspClient):
    """Also records when each publishDiagnostics arrives, per uri."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.publishes: dict[str, list[float]] = {}

    def _dispatch(self, msg: B.JsonObj, received: float) -> None:
        if msg.get("method") == "textDocument/publishDiagnostics":
            self.publishes.setdefault(msg["params"]["uri"], []).append(received)
        super()._dispatch(msg, received)


def recording(client: B.LspClient) -> RecordingClient:
    rec = RecordingClient(
        client.name,
        client.argv,
        cwd=client.cwd,
        configuration=client.configuration,
        init_options=client.init_options,
        stderr_path=client.stderr_path,
        env=client.env,
    )
    return rec


async def one_round(
    server: str, root: Path, logs: Path, path: Path, seeded: set[int], args: argparse.Namespace
) -> dict[str, Any]:
    base = B.make_client(server, root, logs)
    if server == "lait-ls":
        base.init_options = {}  # the default debounce
        base.configuration = lambda item: {} if item.get("section") == "lait" else None
    client = recording(base)
    await client.start()
    out: dict[str, Any] = {}
    try:
        await client.initialize(root)
        assert client.proc is not None
        text = path.read_text(encoding="utf-8")
        doc = B.OpenDoc(client, path, text)
        waiter = client.expect_diagnostics(doc.uri, lambda d: seeded <= B.error_lines(d))
        await doc.open()
        await client.wait(waiter)
        await asyncio.sleep(0.5)
        out["rss_open_mib"] = rss_mib(client.proc.pid)
        line = next(i for i, ln in enumerate(doc.lines) if ln.startswith("description: "))
        start = time.perf_counter()
        first_edit = last_edit = start
        typed = doc.lines[line]
        while time.perf_counter() - start < args.seconds:
            typed += "x"
            last_edit = await doc.set_line(line, typed)
            await asyncio.sleep(args.every_ms / 1000.0)
        during = [t for t in client.publishes.get(doc.uri, []) if first_edit < t <= last_edit]
        points = [first_edit, *during, last_edit]
        out["publishes_while_typing"] = len(during)
        out["longest_gap_ms"] = max(b - a for a, b in itertools.pairwise(points)) * 1000.0 if during else None
        out["edits"] = doc.version - 1
        final = client.expect_diagnostics(doc.uri, lambda d: seeded <= B.error_lines(d))
        # the final text's diagnostics: a publish after the last edit (the waiter sees only new ones)
        received, _ = await client.wait(final)
        out["settle_ms"] = (received - last_edit) * 1000.0
        out["rss_after_mib"] = rss_mib(client.proc.pid)
    finally:
        await client.stop()
    return out


async def main_async(args: argparse.Namespace) -> int:
    B.ensure_peer()
    tmp = Path(tempfile.mkdtemp(prefix="lait-lsp-typing-"))
    root = tmp / "project"
    (root / "workflows").mkdir(parents=True)
    (root / "lait.config.yml").write_text(B.PROJECT_CONFIG, encoding="utf-8")
    variant, seeded = B.seed_errors(B.generate(args.size, args.seed))
    path = root / "workflows" / "wf.yml"
    path.write_text(variant, encoding="utf-8")
    lines = {s.line for s in seeded}
    load_before = os.getloadavg()[0]
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in SERVERS}
    for k in range(args.rounds):
        for server in SERVERS if k % 2 == 0 else SERVERS[::-1]:
            runs[server].append(await one_round(server, root, tmp / "logs", path, lines, args))
    load_after = os.getloadavg()[0]
    print(
        f"typing into a {args.size}-line workflow: one character every {args.every_ms} ms for {args.seconds} s, "
        f"{args.rounds} rounds (load {load_before:.2f} -> {load_after:.2f})"
    )
    print(f"{'':22} {'publishes':>10} {'longest gap':>12} {'settle':>9} {'RSS open':>10} {'RSS after':>10}")
    for server in SERVERS:
        rs = runs[server]
        gaps = [r["longest_gap_ms"] for r in rs if r["longest_gap_ms"] is not None]
        gap = f"{max(gaps):.0f} ms" if len(gaps) == len(rs) else "none"
        print(
            f"{server:22} {statistics.median(r['publishes_while_typing'] for r in rs):>10.0f} {gap:>12} "
            f"{statistics.median(r['settle_ms'] for r in rs):>6.0f} ms "
            f"{statistics.median(r['rss_open_mib'] for r in rs):>6.0f} MiB {statistics.median(r['rss_after_mib'] for r in rs):>6.0f} MiB"
        )
    lait_gaps = [r["longest_gap_ms"] for r in runs["lait-ls"]]
    ok = all(g is not None and g <= GAP_TARGET_MS for g in lait_gaps)
    print(
        f"target: lait-ls publishes at least every {GAP_TARGET_MS:.0f} ms while typing: {'met' if ok else 'MISSED'}"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps({"runs": runs, "load": [load_before, load_after]}, indent=2), encoding="utf-8"
        )
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--every-ms", type=float, default=100.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--json", help="write every run here")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
