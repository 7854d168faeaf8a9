#!/usr/bin/env python3
"""What one ``lait test`` over many test files costs against one ``lait run --replay`` per workflow
(issue 14).

Run from anywhere (it finds the repository from its own location)::

    python3 bench/test_suite.py [--files 200] [--processes 200] [--runs 3]

Setup, in a temporary project whose model is the scripted OpenAI-compatible server
(``tests/peers/openai_server.py``, a separate process): ``--files`` workflows (a ``prompt`` step
whose text differs per workflow, then a ``jq`` step) and one test file per workflow (``equals``,
``jq``, ``usage`` and ``step_output`` assertions), all recorded at once with ``lait test
--record``; then the server is stopped, so nothing below reaches a model.

Measured, alternating, ``--runs`` times:

1. ``lait test tests`` -- one process replaying every test file (8 at once);
2. ``lait run wf_N.yml INPUT --replay tape --no-history``, one process per workflow, one after the
   other, for the first ``--processes`` workflows; the total is scaled to ``--files`` workflows when
   fewer are run (the per-process cost does not depend on which workflow runs).

Printed: the medians, the per-file costs and the ratio (1) / (2) (target <= 0.1). Results: a
table on stdout and ``bench/.out/test_suite.json``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.peers.openai_server import start_process  # noqa: E402

OUT_FILE = REPO / "bench" / ".out" / "test_suite.json"
TARGET_RATIO = 0.1
USAGE = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}

WORKFLOW = """\
name: bench-{n}
steps:
  - id: answer
    prompt: "Workflow {n}: answer about {{{{ input }}}}"
  - jq: '{{answer: $steps.answer, n: {n}}}'
"""
TEST = """\
workflow: ../workflows/wf_{n:04d}.yml
input: cats
replay: ../tape
assert:
  - type: equals
    value: {{answer: recorded answer, n: {n}}}
  - type: jq
    expr: '.n == {n}'
  - type: usage
    max_total_tokens: 15
  - type: step_output
    id: answer
    assert:
      - type: contains
        value: recorded
"""


def lait(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lait_cli.main", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )


def setup(project: Path, files: int, env: dict[str, str]) -> None:
    (project / "workflows").mkdir(parents=True)
    (project / "tests").mkdir()
    for n in range(files):
        (project / "workflows" / f"wf_{n:04d}.yml").write_text(WORKFLOW.format(n=n), encoding="utf-8")
        (project / "tests" / f"t_{n:04d}.yml").write_text(TEST.format(n=n), encoding="utf-8")
    script = [{"message": {"content": "recorded answer"}, "usage": USAGE} for _ in range(files)]
    server, url = start_process(script, project.parent)
    try:
        (project / "lait.config.yml").write_text(
            f'models:\n  main:\n    - provider: {{base_url: "{url}", api_key: bench}}\n'
            "      model_id: bench-model\ndefault:\n  model: main\n",
            encoding="utf-8",
        )
        recorded = lait(["test", "--record", "tests"], project, env)
        if recorded.returncode != 0 or f"cassettes: {files} new" not in recorded.stderr:
            raise SystemExit(f"recording failed:\n{recorded.stdout}{recorded.stderr}")
    finally:
        server.kill()
        server.wait()


def one_test_process(project: Path, files: int, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = lait(["test", "tests"], project, env)
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or not done.stdout.endswith(f"{files} passed, 0 failed, {files} total\n"):
        raise SystemExit(f"lait test failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed


def run_processes(project: Path, processes: int, env: dict[str, str]) -> float:
    started = time.perf_counter()
    for n in range(processes):
        done = lait(
            ["run", f"workflows/wf_{n:04d}.yml", "cats", "--replay", "tape", "--no-history"], project, env
        )
        if done.returncode != 0 or json.loads(done.stdout) != {"answer": "recorded answer", "n": n}:
            raise SystemExit(f"lait run failed:\n{done.stdout}{done.stderr}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--processes", type=int, default=200, help="lait run processes per round (scaled)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    processes = min(args.processes, args.files)
    tmp = Path(tempfile.mkdtemp(prefix="lait-bench-tests-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LAIT_", "OPENAI_", "LLM_"))}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["XDG_CONFIG_HOME"] = str(tmp / "xdg")
    env["XDG_DATA_HOME"] = str(tmp / "data")
    try:
        project = tmp / "project"
        setup(project, args.files, env)
        suite: list[float] = []
        each: list[float] = []
        for _ in range(args.runs):
            suite.append(one_test_process(project, args.files, env))
            each.append(run_processes(project, processes, env) * args.files / processes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    suite_median, each_median = statistics.median(suite), statistics.median(each)
    ratio = suite_median / each_median
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    rows = [
        ("one `lait test` over all files", suite_median, suite_median / args.files),
        (
            f"`lait run --replay` per workflow ({processes} run, scaled)",
            each_median,
            each_median / args.files,
        ),
    ]
    print(f"{args.files} test files, {args.runs} rounds, load average {load}")
    for name, total, per in rows:
        print(f"  {name:<52} {total:8.2f} s   {per * 1000:8.1f} ms per file")
    print(f"  ratio {ratio:.3f} (target <= {TARGET_RATIO})")
    OUT_FILE.parent.mkdir(parents=True, exist_ok=True)
    OUT_FILE.write_text(
        json.dumps(
            {
                "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                "machine": platform.platform(),
                "cpus": os.cpu_count(),
                "load_average": load,
                "files": args.files,
                "processes": processes,
                "suite_seconds": suite,
                "per_process_seconds_scaled": each,
                "ratio": ratio,
                "target": TARGET_RATIO,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
