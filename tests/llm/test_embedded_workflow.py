"""A workflow on the embedded model through ``lait run`` (a real subprocess, offline): a prompt step
with a real shell tool, whose answer feeds a jq step, then a structured step with an
``output_schema`` -- nothing in the workflow engine knows the model runs in-process."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.llm.conftest import require_peer
from tests.llm.test_embedded_errors import lait, lait_env

CONFIG = """\
default:
  model: embedded
tools:
  grep:
    description: Search files for a regular expression.
    command: [grep, -rn, "{{ input.pattern }}", "{{ input.path }}"]
    parameters:
      type: object
      properties:
        pattern: {type: string}
        path: {type: string}
      required: [pattern, path]
    timeout: 10
"""

WORKFLOW = """\
name: offline
description: A tool call, a jq step and a structured answer on the built-in model.
steps:
  - id: search
    prompt: |
      Call the grep tool with pattern "description" and path "{{ input }}".
    tools: [grep]
    max_tokens: 32
  - id: length
    jq: '$steps.search | length'
  - id: verdict
    prompt: "Is this text about software? {{ steps.search }}"
    output_schema:
      type: object
      properties:
        software: {type: boolean}
      required: [software]
      additionalProperties: false
    max_tokens: 24
    output: '{software: .software, answer_length: $steps.length}'
"""


def test_lait_run_workflow_with_a_shell_tool_on_the_embedded_model(tmp_path: Path) -> None:
    require_peer()
    env = lait_env(tmp_path)
    work = tmp_path / "work"
    (work / "docs").mkdir(parents=True)
    (work / "docs" / "a.md").write_text("title: A\ndescription: the first document\n")
    (work / "lait.config.yml").write_text(CONFIG)
    (work / "offline.yml").write_text(WORKFLOW)

    linted = lait(["lint", "."], work, env)
    assert linted.returncode == 0, linted

    ran = lait(["-v", "run", "offline.yml", "docs", "--json"], work, env)
    assert ran.returncode == 0, ran
    # one call, its arguments as compact JSON; the grammar forces the schema (two strings), the
    # values are the model's
    calls = re.findall(r"^tool call: tool__grep (\{.*\})$", ran.stderr, re.MULTILINE)
    assert len(calls) == 1, ran.stderr
    arguments = json.loads(calls[0])
    assert isinstance(arguments["pattern"], str) and isinstance(arguments["path"], str), arguments
    result = json.loads(ran.stdout)
    value = json.loads(result["content"]) if isinstance(result["content"], str) else result["content"]
    assert isinstance(value["software"], bool)
    assert isinstance(value["answer_length"], int) and value["answer_length"] > 0
    assert result["usage"]["prompt_tokens"] > 0 and result["usage"]["completion_tokens"] > 0
