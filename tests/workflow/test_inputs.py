"""`inputs:` and `--input`, the typing of PROMPT by `input_schema`, top-level `output`/`timeout`, and
nothing running before the whole file validates (docs/workflows.md)."""

from __future__ import annotations

import time

import pytest

from lait_core.engine.run.interaction import Note
from lait_core.engine.workflow import InputError, WorkflowLoadError, WorkflowTimedOut, parse_input_options
from tests.engine.conftest import live_group_members
from tests.workflow.conftest import Harness


def test_parse_input_options() -> None:
    assert parse_input_options(["a=1", "b=x=y", "a=2", "e="]) == {"a": "2", "b": "x=y", "e": ""}
    with pytest.raises(InputError, match="must have the form KEY=VALUE"):
        parse_input_options(["novalue"])
    with pytest.raises(InputError, match="empty key"):
        parse_input_options(["=v"])


async def test_inputs_binding_rules(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        inputs:
          id: string
          count: {type: integer, default: 1}
          data:
          flag: {type: boolean, description: whether to go}
        steps:
          - jq: '$inputs'
        """,
    )
    result = await wf.run("w.yml", None, inputs={"id": "0012", "data": '{"k": [1]}', "flag": "true"})
    assert result.value == {"id": "0012", "count": 1, "data": {"k": [1]}, "flag": True}
    result = await wf.run(
        "w.yml", None, inputs={"id": "1", "data": "not json", "flag": "false", "count": "7"}
    )
    assert result.value == {"id": "1", "count": 7, "data": "not json", "flag": False}
    with pytest.raises(InputError, match=r"^missing required input 'flag' \(whether to go\)$"):
        await wf.run("w.yml", None, inputs={"id": "1", "data": "1"})
    with pytest.raises(
        InputError, match=r"^unknown input 'nope'; the workflow declares: id, count, data, flag$"
    ):
        await wf.run("w.yml", None, inputs={"nope": "1"})
    with pytest.raises(InputError, match=r"inputs\.count must be of type integer \(got string\)"):
        await wf.run("w.yml", None, inputs={"id": "1", "data": "1", "flag": "true", "count": "many"})
    assert (await wf.run("w.yml", "also a prompt", inputs={"id": "1", "data": "1", "flag": "true"})).value[
        "id"
    ] == "1"


async def test_inputs_without_declaration_and_prompt_required(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - jq: '.'\n")
    with pytest.raises(InputError, match=r"^input 'k' was provided, but the workflow declares no 'inputs:'$"):
        await wf.run("w.yml", "x", inputs={"k": "v"})
    with pytest.raises(InputError, match="a PROMPT is required"):
        await wf.run("w.yml", None)
    wf.write("d.yml", "inputs:\n  a: {default: 1}\nsteps:\n  - jq: '[., $inputs.a]'\n")
    assert (await wf.run("d.yml", None)).value == [None, 1]


async def test_prompt_typing_by_input_schema(wf: Harness) -> None:
    wf.write("plain.yml", "steps:\n  - jq: 'type'\n")
    assert (await wf.run("plain.yml", '{"a": 1}')).value == "string"
    wf.write("str.yml", "input_schema: {type: string}\nsteps:\n  - jq: 'type'\n")
    assert (await wf.run("str.yml", "42")).value == "string"
    wf.write("obj.yml", "input_schema: {type: object, required: [a]}\nsteps:\n  - jq: '.a'\n")
    assert (await wf.run("obj.yml", '{"a": [true]}')).value == [True]
    with pytest.raises(InputError, match="PROMPT is not valid JSON"):
        await wf.run("obj.yml", "not json")
    with pytest.raises(Exception, match="input is missing required field"):
        await wf.run("obj.yml", '{"b": 1}')
    wf.write("any.yml", "input_schema: {description: anything}\nsteps:\n  - jq: 'type'\n")
    assert (await wf.run("any.yml", "[1]")).value == "array"
    assert (await wf.run("any.yml", "words")).value == "string"
    wf.write(
        "named.yml",
        "schemas:\n  req: {file: req.json}\ninput_schema: req\nsteps:\n  - jq: '.n'\n",
    )
    wf.write("req.json", '{"type": "object", "properties": {"n": {"type": "integer"}}}')
    assert (await wf.run("named.yml", '{"n": 3}')).value == 3
    with pytest.raises(Exception, match=r"input\.n must be of type integer"):
        await wf.run("named.yml", '{"n": "3"}')


async def test_top_level_output_sees_steps_and_inputs(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        inputs:
          who: {type: string, default: you}
        output: '{last: ., first: $steps.first, who: $inputs.who}'
        steps:
          - id: first
            jq: '"one"'
          - jq: '2'
        """,
    )
    result = await wf.run("w.yml", "x")
    assert result.value == {"last": 2, "first": "one", "who": "you"}
    assert result.text == '{"last":2,"first":"one","who":"you"}'


async def test_top_level_timeout(wf: Harness) -> None:
    wf.write("w.yml", "timeout: 1\nsteps:\n  - run: [sh, -c, 'sleep 20 & sleep 20; wait']\n")
    started = time.monotonic()
    with pytest.raises(WorkflowTimedOut) as info:
        await wf.run("w.yml", "x")
    assert time.monotonic() - started < 15  # not the sleeps' 20 s
    assert info.value.kind == "timed_out"
    assert wf.last is not None
    assert [n.message for n in wf.last.of_type(Note)] == [
        "lait: the workflow's 'timeout' (1s) was exceeded; cancelling the run"
    ]
    assert all(live_group_members(p) == [] for p in wf.spawned)


async def test_nothing_runs_before_the_file_validates(wf: Harness) -> None:
    marker = wf.root / "ran"
    wf.write(
        "w.yml",
        f"""
        steps:
          - run: [touch, '{marker}']
          - id: bad
            jq: '.['
          - nope: 1
        """,
    )
    with pytest.raises(WorkflowLoadError) as info:
        await wf.run("w.yml", "x")
    message = str(info.value)
    assert "is not a valid workflow (2 errors)" in message
    assert "w.yml:4:11: LAIT402" in message and "w.yml:5:5: LAIT308" in message
    assert not marker.exists()
    assert wf.spawned == []


async def test_version_1_is_rejected_before_running(wf: Harness) -> None:
    wf.write("v1.yml", "version: 1\nnodes:\n  a: {use: prompt}\n")
    with pytest.raises(WorkflowLoadError, match="version 1 workflow"):
        await wf.run("v1.yml", "x")


async def test_missing_file(wf: Harness) -> None:
    with pytest.raises(WorkflowLoadError, match="cannot read workflow: no such file"):
        await wf.run("absent.yml", "x")


async def test_no_prompt_with_inputs_starts_from_null_without_schema_check(wf: Harness) -> None:
    wf.write(
        "w.yml",
        "input_schema: {type: object}\ninputs:\n  a: {default: 1}\nsteps:\n  - jq: '[., $inputs.a]'\n",
    )
    assert (await wf.run("w.yml", None)).value == [None, 1]
