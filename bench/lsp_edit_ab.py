#!/usr/bin/env python3
"""lait-ls after an edit, interleaved between source trees (no peer): didChange -> diagnostics and
hover right after an edit, with bench/lsp_latency.py's client and generated workflow.

    python3 bench/lsp_edit_ab.py [--rounds 3] [--size 1000] [--gap-ms 50] TREE [TREE ...]

TREE is a checkout of lait (e.g. ``git worktree add --detach /tmp/effbc91 effbc91``); each run starts
lait-ls with ``PYTHONPATH=TREE``, the trees in turn, ``--rounds`` times. One run: open the variant of
the generated workflow, 4 + 24 on/off edits of a ``timeout:`` line like lsp_latency.py's (an edit that
adds an error: a new text; one that restores it: a text whose parse is cached), each timed until its
diagnostics arrive, 50 ms apart; then completion once at each of the three request positions and 18
hovers, each sent ``--gap-ms`` after the diagnostics of an edit of the description line. Prints each
run and the medians pooled per tree (all edits, new-text edits, cached-text edits, hovers) with the
load average; ``--json FILE`` appends every run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import lsp_latency as B  # noqa: E402


async def one_run(size: int, gap: float) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp())
    root = tmp / "project"
    (root / "workflows").mkdir(parents=True)
    (root / "lait.config.yml").write_text(B.PROJECT_CONFIG, encoding="utf-8")
    client = B.make_client("lait-ls", root, tmp)
    await client.start()
    await client.initialize(root)
    load = os.getloadavg()[0]
    clean = B.generate(size, 20240601)
    variant, seeded = B.seed_errors(clean)
    path = root / "workflows" / f"wf_{size}.yml"
    path.write_text(variant, encoding="utf-8")
    toggles = B.toggle_lines(variant, {s.line for s in seeded}, 8)
    doc = B.OpenDoc(client, path, variant)
    waiter = client.expect_diagnostics(doc.uri, lambda d: True)
    await doc.open()
    await client.wait(waiter)
    await asyncio.sleep(0.2)
    new_text: list[float] = []
    cached_text: list[float] = []
    for k in range(4 + 24):
        line, on = toggles[(k // 2) % len(toggles)], k % 2 == 0
        original = variant.split("\n")[line]
        waiter = client.expect_diagnostics(
            doc.uri, lambda d, line=line, on=on: (line in B.error_lines(d)) == on
        )
        sent = await doc.set_line(line, original.split(": ")[0] + ": soon" if on else original)
        received, _ = await client.wait(waiter)
        if k >= 4:
            (new_text if on else cached_text).append((received - sent) * 1000.0)
        await asyncio.sleep(0.05)
    positions = B.request_positions(clean)
    desc_line = next(i for i, ln in enumerate(doc.lines) if ln.startswith("description: "))
    desc = doc.lines[desc_line]
    edits = iter(range(1, 1_000_000))

    async def edit() -> None:
        waiter = client.expect_diagnostics(doc.uri, lambda d: True)
        await doc.set_line(desc_line, f"{desc} (edit {next(edits)})")
        await client.wait(waiter)
        await asyncio.sleep(gap)

    def where(label: str) -> dict[str, Any]:
        line, ch = positions[label]
        return {"textDocument": {"uri": doc.uri}, "position": {"line": line, "character": ch}}

    for label in positions:
        await edit()
        await client.request("textDocument/completion", {**where(label), "context": {"triggerKind": 1}})
    hovers: list[float] = []
    for k in range(18):
        await edit()
        _result, ms = await client.request("textDocument/hover", where(list(positions)[k % 3]))
        hovers.append(ms)
    await doc.close()
    await client.stop()
    return {
        "load": load,
        "load_after": os.getloadavg()[0],
        "new": new_text,
        "cached": cached_text,
        "hover": hovers,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("trees", nargs="+", type=Path)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--size", type=int, default=1000)
    p.add_argument("--gap-ms", type=float, default=50.0)
    p.add_argument("--json", type=Path)
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a run in this process
    args = p.parse_args()
    if args.one:
        print(json.dumps(asyncio.run(one_run(args.size, args.gap_ms / 1000.0))))
        return 0
    args.trees = [t.resolve() for t in args.trees]  # the runs start in another directory
    runs: dict[str, list[dict[str, Any]]] = {str(t): [] for t in args.trees}
    for _ in range(args.rounds):
        for tree in args.trees:
            proc = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--one",
                    "--size",
                    str(args.size),
                    "--gap-ms",
                    str(args.gap_ms),
                    str(tree),
                ],
                env={**os.environ, "PYTHONPATH": str(tree)},
                cwd=tempfile.gettempdir(),  # not a checkout: PYTHONPATH decides which lait runs
                capture_output=True,
                text=True,
                check=True,
            )
            run = json.loads(proc.stdout.strip().splitlines()[-1])
            runs[str(tree)].append(run)
            if args.json:
                with args.json.open("a", encoding="utf-8") as out:
                    out.write(json.dumps({"tree": str(tree), **run}) + "\n")
            md = statistics.median
            print(
                f"{tree}: load {run['load']:.1f}: diagnostics {md(run['new'] + run['cached']):.1f} ms "
                f"(new text {md(run['new']):.1f}, cached {md(run['cached']):.1f}); hover after an edit {md(run['hover']):.1f} ms"
            )
    print("\npooled medians (ms):")
    for tree, rs in runs.items():
        pool = {k: [x for r in rs for x in r[k]] for k in ("new", "cached", "hover")}
        loads = [x for r in rs for x in (r["load"], r["load_after"])]
        print(
            f"{tree}: {len(rs)} runs, load {min(loads):.1f}-{max(loads):.1f}: diagnostics "
            f"{statistics.median(pool['new'] + pool['cached']):.1f} (new text {statistics.median(pool['new']):.1f}, "
            f"cached {statistics.median(pool['cached']):.1f}); hover after an edit {statistics.median(pool['hover']):.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
