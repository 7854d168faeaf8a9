"""`lait agent run FILE|NAME [INPUT]` and `lait agent list` as real subprocesses against the scripted
OpenAI-compatible server (docs/workflows.md): the body rendered with the parsed INPUT as
the system prompt, the raw INPUT as the user message, settings from the frontmatter and the config's
`default:` only, `input_schema` checked before any request, Structured Outputs, a shell tool loop,
registry names, output flags, stdin rules and located errors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, error, text, tool_calls

REVIEWER = """\
---
name: reviewer
description: Reviews a text.
model: review-model
temperature: 0.1
input_schema:
  type: object
  properties:
    text: {type: string}
  required: [text]
---
You review{{#if input.focus}} with a focus on {{ input.focus }}{{/if}}.
Text: {{ input.text }}
"""


@pytest.fixture
def project(lait_no_model_env: Lait, server: ScriptedOpenAIServer) -> Lait:
    lait = lait_no_model_env
    lait.write(
        "lait.config.yml",
        f"base_url: {server.url}\n"
        "default: {model: default-model, max_tokens: 40}\n"
        "agents:\n  reviewer: agents/reviewer.md\n  plain: agents/plain.md\n"
        "tools:\n  shout:\n    command: [python3, -c, 'import sys; print(sys.argv[1].upper())', '{{ input.word }}']\n"
        "    parameters: {type: object, properties: {word: {type: string}}, required: [word]}\n",
    )
    lait.write("agents/reviewer.md", REVIEWER)
    lait.write("agents/plain.md", "---\ndescription: Plain.\n---\nYou are plain. Input: {{ input }}\n")
    return lait


def system(content: str) -> dict[str, Any]:
    return {"role": "system", "content": content}


def user(content: str) -> dict[str, Any]:
    return {"role": "user", "content": content}


def test_input_renders_the_body_and_is_sent_raw(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("looks good"))
    raw = '{"text": "hello", "focus": "tone"}'
    run = project("agent", "run", "agents/reviewer.md", raw)
    assert (run.returncode, run.stdout, run.stderr) == (0, "looks good\n", "")
    assert server.bodies == [
        {
            "model": "review-model",
            "messages": [system("You review with a focus on tone.\nText: hello"), user(raw)],
            "stream": False,
            "temperature": 0.1,
            "max_completion_tokens": 40,
        }
    ]


def test_a_registered_name_and_a_string_input(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("plain answer"))
    sub = project.cwd / "deeper"
    sub.mkdir()
    run = project("agent", "run", "plain", "just words", cwd=sub)
    assert (run.returncode, run.stdout) == (0, "plain answer\n"), run.stderr
    assert server.bodies[0]["model"] == "default-model"
    assert server.bodies[0]["messages"] == [system("You are plain. Input: just words"), user("just words")]


def test_input_schema_is_checked_before_any_request(project: Lait, server: ScriptedOpenAIServer) -> None:
    run = project("agent", "run", "reviewer", '{"focus": "x"}')
    assert run.returncode == 1
    assert run.stderr == (
        "lait: the input of agent 'reviewer' does not match its input_schema: input is missing required"
        " field(s): text\n"
    )
    not_object = project("agent", "run", "reviewer", "just text")
    assert not_object.returncode == 1
    assert "input must be of type object (got string)" in not_object.stderr
    assert server.requests == []


def test_structured_output(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write(
        "agents/judge.md",
        "---\nmodel: m\noutput_schema:\n  type: object\n  properties: {ok: {type: boolean}}\n"
        "  required: [ok]\nschema_name: verdict\n---\nJudge.\n",
    )
    server.push(text('{"ok": true}'))
    run = project("agent", "run", "agents/judge.md", "is it fine?")
    assert (run.returncode, run.stdout) == (0, '{"ok": true}\n'), run.stderr
    assert server.bodies[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "verdict",
            "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
            "strict": True,
        },
    }
    server.push(text("not json"))
    bad = project("agent", "run", "agents/judge.md", "again")
    assert bad.returncode == 1
    assert "the structured output was not valid JSON" in bad.stderr


def test_a_shell_tool_loop(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("agents/loud.md", "---\nmodel: m\ntools: [shout]\n---\nUse the tool.\n")
    server.push(tool_calls(call("tool__shout", {"word": "quiet"})), text("done: QUIET"))
    run = project("agent", "run", "agents/loud.md", "go")
    assert (run.returncode, run.stdout) == (0, "done: QUIET\n"), run.stderr
    assert [t["function"]["name"] for t in server.bodies[0]["tools"]] == ["tool__shout"]
    assert server.bodies[1]["messages"][-1] == {"role": "tool", "tool_call_id": "call_0", "content": "QUIET"}


def test_output_flags(project: Lait, server: ScriptedOpenAIServer) -> None:
    usage = {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8}
    server.push(text("answer", usage=usage), text("to file"))
    run = project("agent", "run", "plain", "x", "--json", "--show-usage")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"content": "answer", "reasoning": None, "usage": usage}
    assert run.stderr == "usage: prompt=7 completion=1 total=8\n"
    to_file = project("agent", "run", "plain", "x", "-o", "out.txt")
    assert (to_file.returncode, to_file.stdout) == (0, "")
    assert (project.cwd / "out.txt").read_text() == "to file\n"


def test_stdin_is_the_input(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("a"), text("b"))
    piped = project("agent", "run", "plain", stdin=b"from pipe\n")
    assert piped.returncode == 0, piped.stderr
    both = project("agent", "run", "plain", "arg", stdin=b"pipe")
    assert both.returncode == 0, both.stderr
    assert [b["messages"][1] for b in server.bodies] == [user("from pipe"), user("arg\n\npipe")]
    none = project("agent", "run", "plain")
    assert (none.returncode, none.stderr) == (
        2,
        "lait: an INPUT is required; provide one or pipe input via stdin\n",
    )


def test_errors_are_located_or_classified(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("agents/bad.md", "---\nmodel: m\ntemprature: 1\n---\nx\n")
    bad = project("agent", "run", "agents/bad.md", "x")
    assert bad.returncode == 3
    first, last = bad.stderr.splitlines()
    assert first.startswith("agents/bad.md:3:1: LAIT202 error: ")
    assert last == "lait: 'agents/bad.md' is not a valid agent file"
    missing = project("agent", "run", "nobody", "x")
    assert missing.returncode == 1
    assert "agent 'nobody' not found" in missing.stderr
    server.push(error(401, "no such key"))
    api = project("agent", "run", "plain", "x")
    assert api.returncode == 4
    assert "no such key" in api.stderr
    project.write("agents/nomodel.md", "---\n---\nx\n")
    no_model = project("--no-config", "agent", "run", "agents/nomodel.md", "x")
    assert no_model.returncode == 1
    assert no_model.stderr.startswith("lait: model is required for agent 'nomodel'")


def test_agent_list(project: Lait) -> None:
    project.write("agents/broken.md", "no frontmatter\n")
    config = project.cwd / "lait.config.yml"
    config.write_text(
        config.read_text().replace(
            "agents:\n", "agents:\n  broken: agents/broken.md\n  gone: agents/gone.md\n"
        )
    )
    run = project("agent", "list")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith("broken ")
    names = [line.split()[0] for line in run.stdout.splitlines()]
    assert names == ["broken", "gone", "plain", "reviewer"]
    assert "reviewer  agents/reviewer.md  Reviews a text." in run.stdout
    assert "(broken: " in run.stdout.splitlines()[1]
    warnings = run.stderr.splitlines()
    assert warnings[0].startswith("warning: agents.broken (agents/broken.md): line 1:1: ")
    assert warnings[1].startswith("warning: agents.gone (agents/gone.md): no such file")
