"""Registry names (`workflows:`, `agents:`) resolve against the folder of the config file that
defines them, also when that config file is named by a relative `--config` path from another
working directory (the paths were once joined onto the config folder twice)."""

from __future__ import annotations

import json

from tests.cli.conftest import Lait

PARENT = """\
steps:
  - workflow: child
    with: '{n: 2}'
  - jq: '. * 10'
"""
CHILD = """\
inputs:
  n: {type: integer}
steps:
  - jq: '$inputs.n + 1'
"""


def test_registry_workflow_via_relative_config(lait: Lait) -> None:
    lait.write("proj/lait.config.yml", "workflows:\n  parent: flows/parent.yml\n  child: flows/child.yml\n")
    lait.write("proj/flows/parent.yml", PARENT)
    lait.write("proj/flows/child.yml", CHILD)
    run = lait("run", "--config", "proj/lait.config.yml", "--json", "parent", "go")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["content"] == "30"


def test_registry_agent_list_via_relative_config(lait: Lait) -> None:
    lait.write("proj/lait.config.yml", "agents:\n  helper: agents/helper.md\n")
    lait.write("proj/agents/helper.md", "---\ndescription: Helps.\n---\nYou help.\n")
    run = lait("agent", "list", "--config", "proj/lait.config.yml")
    assert run.returncode == 0, run.stderr
    assert "helper" in run.stdout
    assert "broken" not in run.stdout + run.stderr
