"""The deliberately partial schema validator (docs/workflows.md), through a workflow's top-level
`input_schema` and a prompt step's `input_schema`: `type` (a name or a list; `integer` is a number
with a zero fraction; unknown names match anything), `enum`, `required`, recursion through
`properties`/`items` only, every problem listed with its path, and what is deliberately not checked
(`format`, `pattern`, bounds, `additionalProperties`, `oneOf`, extra fields)."""

from __future__ import annotations

import pytest

from lait_core.engine.workflow import StepFailed
from lait_core.engine.workflow.workflow_errors import WorkflowError
from tests.workflow.conftest import Harness

SCHEMA = """
input_schema:
  type: object
  required: [name, items]
  additionalProperties: false
  properties:
    name: {type: string, pattern: '^[a-z]+$', format: email, minLength: 50}
    level: {enum: [low, high, 3]}
    count: {type: [integer, 'null'], minimum: 10}
    anything: {type: decimal128}
    either: {oneOf: [{type: string}, {type: integer}]}
    items:
      type: array
      maxItems: 1
      items:
        type: object
        required: [id]
        properties:
          id: {type: integer}
steps:
  - jq: '.'
"""


async def test_what_is_checked_and_what_is_not(wf: Harness) -> None:
    wf.write("w.yml", SCHEMA)
    # not checked: pattern/format/minLength, minimum, maxItems, additionalProperties, oneOf,
    # unknown type names; extra fields are kept; 2.0 is an integer
    loose = (
        '{"name": "NOT AN EMAIL", "count": 2.0, "anything": [1], "either": true, "extra": 1,'
        ' "items": [{"id": 1, "more": "x"}, {"id": 3.0}]}'
    )
    result = await wf.run("w.yml", loose)
    assert result.value["extra"] == 1 and result.value["items"][0]["more"] == "x"
    assert (await wf.run("w.yml", '{"name": "a", "items": [], "count": null, "level": 3}')).value[
        "level"
    ] == 3

    bad = '{"name": 5, "level": "mid", "count": 1.5, "items": [{"id": "x"}, {}, 7]}'
    with pytest.raises(WorkflowError) as info:
        await wf.run("w.yml", bad)
    message = str(info.value)
    for problem in (
        "input.name must be of type string (got integer)",
        'input.level must be one of ["low", "high", 3] (got "mid")',
        "input.count must be of type integer or null (got number)",
        "input.items[0].id must be of type integer (got string)",
        "input.items[1] is missing required field(s): id",
        "input.items[2] must be of type object (got integer)",
    ):
        assert problem in message, message
    with pytest.raises(WorkflowError, match=r"input is missing required field\(s\): name, items"):
        await wf.run("w.yml", "{}")


async def test_step_input_schema_paths_and_booleans(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - jq: '{flag: 1, tags: ["a", 2]}'
          - id: p
            input_schema:
              type: object
              properties:
                flag: {type: boolean}
                tags: {type: array, items: {type: string}}
            prompt: 'never sent'
        """,
    )
    with pytest.raises(StepFailed) as info:
        await wf.run("w.yml", "x")
    message = str(info.value)
    assert message.startswith("step 'p': ")
    assert "input.flag must be of type boolean (got integer)" in message
    assert "input.tags[1] must be of type string (got integer)" in message
    assert "input.tags[0]" not in message
