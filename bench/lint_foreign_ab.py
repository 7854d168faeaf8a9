#!/usr/bin/env python3
"""A/B: `lait lint --no-config DIR` of this tree against another lait tree (default /work/main), on the same
generated project, with other tools' files in it (issue 27: recognising them must not make `lait lint .`
slower on ordinary repositories).

    python3 bench/lint_foreign_ab.py [--other /work/main] [--n 300] [--runs 7] [--seed 20240601]

The project is bench/lint_vs_check_jsonschema.py's corpus (N workflows, N/5 agents) plus a repository's
usual dot-folders: `.github/workflows` and issue templates, `.vscode/settings.json`, and Claude Code and
VS Code agent files (`.claude/agents`, `.github/agents`, `.mcp.json`, `.vscode/mcp.json`). Both trees run
as subprocesses with PYTHONPATH set to the tree, alternating which goes first; the ratio (this / other) of
the median CPU time (user + system of the child, less sensitive to load than wall time) and of the median
wall time are printed with the load average. Target: CPU ratio <= 1.10.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

FOREIGN_FILES = {
    ".github/workflows/ci.yml": "name: CI\non: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n",
    ".github/ISSUE_TEMPLATE/bug.md": "---\nname: Bug\nabout: A bug\n---\nDescribe it.\n",
    ".vscode/settings.json": '{"editor.formatOnSave": true}\n',
    ".claude/settings.json": '{"permissions": {"allow": ["Bash(make)"]}, "enabledMcpjsonServers": ["fs"]}\n',
    ".mcp.json": '{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-fs", "."]}}}\n',
    ".vscode/mcp.json": '{\n  // local\n  "servers": {"fs": {"command": "npx", "args": ["-y", "server-fs"]}}\n}\n',
}
for i in range(20):
    FOREIGN_FILES[f".claude/agents/agent{i}.md"] = (
        f"---\nname: agent{i}\ndescription: Reviews part {i}.\ntools: Read, Grep, mcp__fs__read\nmodel: sonnet\n---\n"
        "You review code. Follow the checklist.\n" * 3
    )
    FOREIGN_FILES[f".github/agents/helper{i}.agent.md"] = (
        f"---\ndescription: Helper {i}.\ntools: ['search', 'fs/*']\n---\nHelp with part {i}.\n"
    )


def run(tree: str, project: Path) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "lint", "--no-config", str(project)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--other", default="/work/main")
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()
    from lint_vs_check_jsonschema import generate_corpus

    with tempfile.TemporaryDirectory(prefix="lait-foreign-ab-") as tmp:
        root = Path(tmp)
        corpus = generate_corpus(root / "gen", args.n, args.seed)
        project = Path(getattr(corpus, "project", root / "gen"))
        for rel, text in FOREIGN_FILES.items():
            path = project / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        trees = {"this": str(REPO), "other": args.other}
        for tree in trees.values():  # warm-up: bytecode, page cache
            run(tree, project)
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in trees}
        load_before = os.getloadavg()[0]
        for i in range(args.runs):
            order = list(trees) if i % 2 == 0 else list(reversed(trees))
            for name in order:
                times[name].append(run(trees[name], project))
        load_after = os.getloadavg()[0]
    med = {k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for k, v in times.items()}
    cpu_ratio = med["this"][0] / med["other"][0]
    wall_ratio = med["this"][1] / med["other"][1]
    print(f"project: {args.n} workflows, {args.n // 5} agents, {len(FOREIGN_FILES)} dot-folder files; runs: {args.runs}")
    for name, (cpu, wall) in med.items():
        print(f"  {name:5} {trees[name]}: CPU {cpu * 1000:.0f} ms, wall {wall * 1000:.0f} ms (medians)")
    print(f"ratio this/other: CPU {cpu_ratio:.3f}, wall {wall_ratio:.3f} (target CPU <= 1.10: {'met' if cpu_ratio <= 1.10 else 'NOT met'})")
    print(f"load average (1 min) before / after: {load_before:.2f} / {load_after:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
