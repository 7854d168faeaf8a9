"""The progress lines of a workflow run (docs/workflows.md) as TerminalInteraction prints them on
stderr, with nothing on stdout."""

from __future__ import annotations

import io
from pathlib import Path

from lait_cli.support.terminal_dialogs import TerminalInteraction
from lait_core.documents.document_models import Config
from lait_core.engine.run.run_session import RunSession
from lait_core.engine.workflow import WorkflowResult, run_workflow
from tests.workflow.conftest import Harness


async def _run_terminal(root: Path, path: Path, prompt: str) -> tuple[WorkflowResult, str, str]:
    out, err = io.StringIO(), io.StringIO()
    interaction = TerminalInteraction(stdin=io.StringIO(), stdout=out, stderr=err)
    async with RunSession.open(Config(), root, interaction) as session:
        result = await run_workflow(session, path, prompt=prompt)
    return result, out.getvalue(), err.getvalue()


async def test_progress_lines_on_stderr(wf: Harness) -> None:
    wf.write("child.yml", "name: kid\nsteps:\n  - id: inner\n    jq: '.'\n")
    path = wf.write(
        "w.yml",
        """
        name: demo
        description: shows progress
        steps:
          - id: skipped
            when: 'false'
            jq: '1'
          - parallel:
              a:
                - jq: '1'
              b:
                - jq: '2'
                - id: named
                  jq: '3'
          - for_each: '[1, 2]'
            max_concurrency: 2
            steps:
              - jq: '.'
          - for_each: '[1]'
            steps:
              - workflow: child.yml
          - id: flaky
            run: [sh, -c, 'exit 1']
            retry: {max_attempts: 2}
            on_error:
              - jq: '"recovered"'
        """,
    )
    result, stdout, stderr = await _run_terminal(wf.root, path, "x")
    assert result.value == "recovered"
    assert stdout == ""
    lines = stderr.splitlines()
    parallel = [line for line in lines if line.startswith(("[a]", "[b]"))]
    items = [line for line in lines if line.startswith("[item-")]
    ordered = [line for line in lines if not line.startswith(("[a]", "[b]", "[item-"))]
    assert sorted(parallel) == ["[a] [1] step-3 (jq)", "[b] [1] step-4 (jq)", "[b] [2] named"]
    assert sorted(items) == ["[item-1] [1] step-7 (jq)", "[item-2] [1] step-7 (jq)"]
    assert ordered == [
        "==> demo: shows progress",
        "[1] skipped (skipped)",
        "[2] step-2 (parallel)",
        "[3] step-6 (for_each)",
        "    -> iterating over 2 item(s)",
        "[4] step-8 (for_each)",
        "    -> iterating over 1 item(s)",
        "    -> item 1/1",
        "[5] step-9 (workflow)",
        "    -> kid",
        "    [1] inner",
        "[6] flaky",
        "    -> attempt 1/2 failed: command 'sh' failed (exit status: 1); retrying in 0.0s",
        "    -> step failed, running 'on_error': command 'sh' failed (exit status: 1)",
        "[7] step-11 (jq)",
    ]


async def test_failed_step_event_carries_the_error(wf: Harness) -> None:
    """Editors show why a step failed: ``StepFinished(status='failed')`` has the error text."""
    from lait_core.engine.run.interaction import HeadlessInteraction, StepFinished
    from lait_core.engine.workflow import StepFailed

    path = wf.write("w.yml", "steps:\n  - id: ok\n    jq: '1'\n  - id: bad\n    run: [sh, -c, 'exit 3']\n")
    interaction = HeadlessInteraction()
    async with RunSession.open(Config(), wf.root, interaction) as session:
        try:
            await run_workflow(session, path, prompt="x")
        except StepFailed:
            pass
        else:
            raise AssertionError("the run should fail")
    finished = {e.label: e for e in interaction.of_type(StepFinished)}
    assert finished["ok"].status == "ok" and finished["ok"].error is None
    assert finished["bad"].status == "failed"
    assert finished["bad"].error is not None and "exit" in finished["bad"].error
