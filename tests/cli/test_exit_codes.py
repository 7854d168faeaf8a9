"""Exit code 3 (validation) for every file a run needs, not only the top workflow: an invalid agent
file reached by an `agent:` step, and an invalid agent named to `lait agent run` (docs/cli.md:
classification goes by error type along the cause chain). A missing input file is neither a usage error
(2) nor a validation failure (3) but a general error (1), for every command
that reads one."""

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


def test_a_missing_input_file_is_a_general_error_for_every_command(lait: Lait) -> None:
    lait.write("lait.config.yml", "default: {model: m}\n")
    runs = {
        "test": lait("test", "nope"),
        "eval": lait("eval", "nope.yml"),
        "eval dir": lait("eval", "."),
        "run": lait("run", "nope.yml", "go"),
        "graph": lait("graph", "nope.yml"),
    }
    assert {name: run.returncode for name, run in runs.items()} == dict.fromkeys(runs, 1)
    assert runs["test"].stderr == "lait: no such file or directory 'nope'\n"
    assert runs["eval"].stderr == "lait: no such file 'nope.yml'\n"
    assert runs["eval dir"].stderr == "lait: '.' is a directory, not a file\n"
