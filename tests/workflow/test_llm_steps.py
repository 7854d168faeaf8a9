"""`prompt` and `agent` steps against the scripted OpenAI-compatible server (docs/workflows.md):
request bodies, settings fallback, Structured Outputs, retries."""

from __future__ import annotations

from typing import Any

import pytest

from lait_core.engine.llm.chat_types import ConfigurationError
from lait_core.engine.workflow import StepFailed
from tests.peers.openai_server import call, text, tool_calls
from tests.workflow.conftest import Harness


def _messages(body: Any) -> list[tuple[str, Any]]:
    return [(m["role"], m.get("content")) for m in body["messages"]]


async def test_prompt_step_renders_system_and_prompt_and_uses_defaults(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    server.push(text("first answer", usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}))
    server.push(text("second", usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}))
    wf_llm.write(
        "w.yml",
        """
        inputs:
          lang: {type: string, default: en}
        default:
          system: 'Answer in {{ inputs.lang }}.'
          temperature: 0.5
        steps:
          - id: ask
            input: '{q: .}'
            prompt: 'Q: {{ input.q }} / {{ input }}'
          - prompt: 'Again: {{ steps.ask }}'
            system: 'Own system'
            model: other-model
            max_tokens: 7
        """,
    )
    result = await wf_llm.run("w.yml", "why?")
    assert result.value == "second"
    assert result.usage.total_tokens == 7
    first, second = server.bodies
    assert first["model"] == "test-model" and first["temperature"] == 0.5
    assert _messages(first) == [("system", "Answer in en."), ("user", 'Q: why? / {"q":"why?"}')]
    assert second["model"] == "other-model" and second["max_completion_tokens"] == 7
    assert _messages(second) == [("system", "Own system"), ("user", "Again: first answer")]


async def test_model_required_error_names_the_step(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - id: p\n    prompt: hi\n")
    with pytest.raises(StepFailed) as info:
        await wf.run("w.yml", "x")
    assert isinstance(info.value.__cause__, ConfigurationError)
    assert str(info.value) == (
        "step 'p': model is required for step 'p'; set 'model' on the step, the workflow's default.model, or"
        " default.model in lait.config.yml"
    )


async def test_prompt_output_schema_structured_outputs(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    server.push(text('```json\n{"label": "bug", "score": 2}\n```'))
    wf_llm.write(
        "w.yml",
        """
        schemas:
          verdict:
            type: object
            properties:
              label: {type: string, enum: [bug, feature]}
              score: {type: integer}
            required: [label]
        steps:
          - prompt: 'classify {{ input }}'
            output_schema: verdict
          - jq: '.label + ":" + (.score | tostring)'
        """,
    )
    assert (await wf_llm.run("w.yml", "crash")).value == "bug:2"
    body = server.bodies[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "verdict"
    assert body["response_format"]["json_schema"]["strict"] is True
    server.push(text('{"label": "other"}'))
    with pytest.raises(StepFailed, match=r"output\.label must be one of"):
        await wf_llm.run("w.yml", "crash")
    server.push(text("not json"))
    with pytest.raises(StepFailed, match="the structured output was not valid JSON"):
        await wf_llm.run("w.yml", "crash")


async def test_prompt_input_schema_blocks_the_call(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    wf_llm.write(
        "w.yml",
        "steps:\n  - id: p\n    input_schema: {type: object, required: [a]}\n    prompt: 'x'\n",
    )
    with pytest.raises(StepFailed, match="input must be of type object"):
        await wf_llm.run("w.yml", "text")
    assert server.bodies == []


async def test_default_retry_and_timeout_apply_to_prompt_steps(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    server.push(text("slow", delay=3), text("fast"))
    wf_llm.write(
        "w.yml",
        """
        default:
          retry: {max_attempts: 2}
          timeout: 1
        steps:
          - id: p
            prompt: 'hi'
        """,
    )
    assert (await wf_llm.run("w.yml", "x")).value == "fast"
    assert (
        "    -> attempt 1/2 failed: step 'p' timed out after 1s (attempt 1/2); retrying in 0.0s"
        in wf_llm.progress()
    )


async def test_step_retry_replaces_the_default_block(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    server.push(text("not json"), text('{"ok": true}'))
    wf_llm.write(
        "w.yml",
        """
        default:
          retry: {max_attempts: 5, delay_seconds: 30}
        steps:
          - prompt: 'hi'
            output_schema: {type: object}
            retry: {max_attempts: 2}
        """,
    )
    assert (await wf_llm.run("w.yml", "x")).value == {"ok": True}
    assert wf_llm.last is not None
    assert any("retrying in 0.0s" in line for line in wf_llm.progress())


async def test_prompt_files_are_appended(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    server.push(text("ok"))
    (wf_llm.root / "notes-1.txt").write_text("file body\n")
    wf_llm.write("w.yml", "steps:\n  - prompt: 'read this'\n    files: ['notes-{{ input }}.txt']\n")
    await wf_llm.run("w.yml", "1")
    user = server.bodies[0]["messages"][-1]["content"]
    assert user.startswith("read this\n\n")
    assert "notes-1.txt" in user and "file body" in user


async def test_agent_step_inline_agent_system_and_user_message(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    server.push(text('{"n": 2}'))
    wf_llm.write(
        "w.yml",
        """
        inputs:
          tone: {type: string, default: dry}
        agents:
          helper:
            model: agent-model
            temperature: 0.1
            system: |
              Be {{ inputs.tone }}. Task {{ input.task }}; before: {{ steps.before }}.
            output_schema: {type: object, properties: {n: {type: integer}}}
        default:
          model: workflow-default
        steps:
          - id: before
            jq: '"b"'
          - agent: helper
            input: '{task: "t1"}'
            temperature: 0.9
          - jq: '.n'
        """,
    )
    assert (await wf_llm.run("w.yml", "x")).value == 2
    body = server.bodies[0]
    assert body["model"] == "agent-model"  # step -> agent -> workflow default
    assert body["temperature"] == 0.9
    assert _messages(body) == [("system", "Be dry. Task t1; before: b."), ("user", '{"task":"t1"}')]
    assert body["response_format"]["json_schema"]["strict"] is True


async def test_agent_step_file_relative_to_the_workflow_and_registry(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    wf_llm.write("agents/summarizer.md", "---\nname: summarizer\n---\nSummarize: {{ input }}\n")
    wf_llm.write("flows/w.yml", "steps:\n  - agent: ../agents/summarizer.md\n  - agent: registered\n")
    wf_llm.config_data = {"agents": {"registered": "agents/summarizer.md"}}
    server.push(text("one"), text("two"))
    assert (await wf_llm.run("flows/w.yml", "text")).value == "two"
    assert _messages(server.bodies[0]) == [("system", "Summarize: text"), ("user", "text")]
    assert _messages(server.bodies[1]) == [("system", "Summarize: one"), ("user", "one")]
    wf_llm.write("flows/bad.yml", "steps:\n  - id: a\n    agent: nobody\n")
    with pytest.raises(StepFailed, match="agent 'nobody' is neither defined in this workflow's 'agents:'"):
        await wf_llm.run("flows/bad.yml", "text")


async def test_child_defaults_override_the_callers_field_by_field(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    server.push(text("from child"))
    wf_llm.write(
        "child.yml",
        """
        default:
          temperature: 0.2
        models:
          fast:
            - provider: {base_url: 'SERVER'}
              model_id: child-fast
        steps:
          - prompt: 'in child'
        """.replace("SERVER", server.url),
    )
    wf_llm.write(
        "main.yml",
        """
        default:
          model: fast
          system: 'caller system'
          temperature: 1.5
        models:
          fast:
            - provider: {base_url: 'http://127.0.0.1:9/v1'}
              model_id: caller-fast
        steps:
          - workflow: child.yml
        """,
    )
    assert (await wf_llm.run("main.yml", "x")).value == "from child"
    body = server.bodies[0]
    assert body["model"] == "child-fast"  # the child's alias wins
    assert body["temperature"] == 0.2  # the child's field wins
    assert _messages(body)[0] == ("system", "caller system")  # inherited field by field


async def test_prompt_step_with_a_shell_tool(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    wf_llm.config_data = {
        "tools": {
            "count": {
                "command": ["sh", "-c", "printf '%s' \"$0\" | wc -c", "{{ input.text }}"],
                "description": "count characters",
                "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
            }
        }
    }
    server.push(tool_calls(call("tool__count", {"text": "hello"})), text("5 characters"))
    wf_llm.write("w.yml", "steps:\n  - prompt: 'count {{ input }}'\n    tools: [count]\n")
    assert (await wf_llm.run("w.yml", "hello")).value == "5 characters"
    tool_message = server.bodies[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["content"].strip() == "5"
