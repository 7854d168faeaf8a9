"""Checkpoints (docs/workflows.md, issue 13): `--checkpoint` writes `.lait/runs/<id>.json`
after each top-level step; a run killed with SIGKILL mid-step resumes at that step with the saved
`$steps`; `--resume` refuses (exit 2) a completed run, changed completed steps and changed inputs;
`lait runs list/show`."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, text

SLOW = (
    "import os, sys, time, pathlib\n"
    "if pathlib.Path('fast').exists():\n"
    "    print('slow step done'); sys.exit(0)\n"
    "pathlib.Path('started').write_text(str(os.getpid()))\n"
    "time.sleep(120)\n"
)
WF = f"""\
inputs:
  topic: {{type: string}}
steps:
  - id: first
    prompt: "about {{{{ inputs.topic }}}}"
  - id: slow
    run: [{json.dumps(sys.executable)}, -c, {json.dumps(SLOW)}]
  - id: last
    jq: '{{first: $steps.first, slow: ., topic: $inputs.topic}}'
"""


def checkpoints(project: Lait) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted((project.cwd / ".lait" / "runs").glob("*.json"))]


def test_a_run_killed_mid_step_resumes_at_that_step(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", WF)
    server.push(text("the first answer"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "run", "wf.yml", "--input", "topic=cats", "--checkpoint"],
        cwd=project.cwd,
        env=project.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    started = project.cwd / "started"
    child = None
    try:
        deadline = time.monotonic() + 60
        while not started.exists() or not started.read_text():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        child = int(started.read_text())
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if child is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)  # the step's process, orphaned by the SIGKILL
    (saved,) = checkpoints(project)
    assert saved["status"] == "failed" and saved["completed_index"] == 1
    assert saved["top_level_labels"] == ["first", "slow", "last"]
    assert saved["steps_outputs"] == {"first": "the first answer"}
    assert saved["inputs"] == {"topic": "cats"} and saved["counter"] == 1
    for key in ("run_id", "workflow_path", "initial_input", "current_value"):
        assert key in saved
    run_id = str(saved["run_id"])
    listed = project("runs", "list").stdout
    assert listed.startswith(f"{run_id}\tfailed\t1/3\t")
    assert json.loads(project("runs", "show", run_id).stdout)["run_id"] == run_id

    (project.cwd / "fast").write_text("")
    resumed = project("run", "wf.yml", "--resume", run_id)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout) == {
        "first": "the first answer",
        "slow": "slow step done",
        "topic": "cats",
    }
    assert f"resuming run '{run_id}' after 1 completed step(s)" in resumed.stderr
    assert "[2] slow" in resumed.stderr and "[1] first" not in resumed.stderr
    assert len(server.requests) == 1  # the completed prompt step was not sent again
    (done,) = checkpoints(project)
    assert done["status"] == "completed" and done["completed_index"] == 3

    again = project("run", "wf.yml", "--resume", run_id)
    assert again.returncode == 2 and "already completed" in again.stderr


def _failed_run(project: Lait, server: ScriptedOpenAIServer) -> str:
    project.write("wf.yml", WF.replace("    run: [", "    jq: 'error(\"boom\")'\n    #run: ["))
    server.push(text("first"))
    failed = project("run", "wf.yml", "--input", "topic=cats", "--checkpoint")
    assert failed.returncode == 1
    (saved,) = checkpoints(project)
    run_id = str(saved["run_id"])
    assert failed.stderr.endswith(
        f"run checkpointed as '{run_id}'; resume with `lait run wf.yml --resume {run_id}`\n"
    )
    return run_id


def test_resume_refuses_changed_completed_steps_and_inputs(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    run_id = _failed_run(project, server)
    original = (project.cwd / "wf.yml").read_text()
    changed_input = project("run", "wf.yml", "--resume", run_id, "--input", "topic=dogs")
    assert changed_input.returncode == 2 and "--input values differ" in changed_input.stderr
    project.write("wf.yml", original.replace("about {{ inputs.topic }}", "regarding {{ inputs.topic }}"))
    changed_step = project("run", "wf.yml", "--resume", run_id)
    assert changed_step.returncode == 2
    assert "completed step(s) first changed" in changed_step.stderr
    project.write("wf.yml", original.replace("id: first", "id: premier"))
    relabelled = project("run", "wf.yml", "--resume", run_id)
    assert relabelled.returncode == 2 and "the completed steps changed" in relabelled.stderr
    project.write("other.yml", original)
    other = project("run", "other.yml", "--resume", run_id)
    assert other.returncode == 2 and "not '" in other.stderr
    unknown = project("run", "wf.yml", "--resume", "20200101-000000-000000000-1-0")
    assert unknown.returncode == 2 and "no checkpoint for run" in unknown.stderr
    dry = project("run", "wf.yml", "--resume", run_id, "--dry-run")
    assert dry.returncode == 2

    # only the part not run yet changed: a warning, and the run continues
    project.write("wf.yml", original.replace("jq: 'error(\"boom\")'", "jq: '\"fixed\"'"))
    fixed = project("run", "wf.yml", "--resume", run_id, "--input", "topic=cats")
    assert fixed.returncode == 0, fixed.stderr
    assert "warning: the steps of run" in fixed.stderr
    assert json.loads(fixed.stdout) == {"first": "first", "slow": "fixed", "topic": "cats"}
