"""Exit code 3 (validation) for every file a run needs, not only the top workflow: an invalid agent
file reached by an `agent:` step, and an invalid agent named to `lait agent run` (spec
tools-mcp-cli 1.6: classification goes by error type along the cause chain)."""

from __future__ import annotations

from tests.cli.conftest import Lait

BAD_AGENT = "---\ntemperature: hot\n---\nYou help.\n"


def test_invalid_agent_file_in_a_workflow_exits_3(lait: Lait) -> None:
    lait.write("lait.config.yml", "default: {model: m}\n")
    lait.write("agents/bad.md", BAD_AGENT)
    lait.write("wf.yml", "steps:\n  - id: first\n    agent: agents/bad.md\n")
    run = lait("run", "wf.yml", "go")
    assert run.returncode == 3, run.stderr
    assert "agents/bad.md:2:" in run.stderr
    assert run.stderr.splitlines()[-1].startswith("lait: step 'first': ")
    assert "Traceback" not in run.stderr


def test_invalid_agent_file_for_agent_run_exits_3(lait: Lait) -> None:
    lait.write("lait.config.yml", "default: {model: m}\n")
    lait.write("agents/bad.md", BAD_AGENT)
    run = lait("agent", "run", "agents/bad.md", "hi")
    assert run.returncode == 3, run.stderr
    assert "agents/bad.md:2:" in run.stderr
