#!/usr/bin/env python3
"""A/B: `lait lint --no-config DIR` of this tree against another lait tree (default /work/main), on the same
generated project, with other tools' files in it (issue 27: recognising them must not make `lait lint .`
slower on ordinary repositories).

    python3 bench/lint_foreign_ab.py [--other /work/main] [--n 300] [--runs 7] [--seed 20240601]

The project is bench/lint_vs_check_jsonschema.py's corpus (N workflows, N/5 agents) plus a repository's
usual dot-folders: `.github/workflows` and issue templates, `.vscode/settings.json`, and Claude Code and
VS Code agent files (`.claude/agents`, `.github/agents`, `.mcp.json`, `.vscode/mcp.json`). The timing is
bench/ab_lint.py's (interleaved runs with PYTHONPATH set to each tree, CPU and wall time of the child);
this script only builds the project. Target: this tree's CPU time at most 1.10 times the other's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
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
        project = generate_corpus(root / "gen", args.n, args.seed).project
        for rel, text in FOREIGN_FILES.items():
            path = project / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        print(f"project: {args.n} workflows, {args.n // 5} agents, {len(FOREIGN_FILES)} dot-folder files")
        print(f"A = {args.other}, B = {REPO}; load average before: {os.getloadavg()[0]:.2f}", flush=True)
        done = subprocess.run(
            [
                sys.executable,
                str(HERE / "ab_lint.py"),
                "--a",
                args.other,
                "--b",
                str(REPO),
                "--runs",
                str(args.runs),
                str(project),
            ],
            cwd=root,
            check=False,
        )
        print(f"load average after: {os.getloadavg()[0]:.2f} (target: B/A CPU <= 1.10)")
        return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
