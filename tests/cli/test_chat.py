"""`lait [OPTIONS] [PROMPT]` (docs/cli.md) as a real subprocess against the
scripted OpenAI-compatible server, asserting the exact request bodies: plain chat, alias resolution
from a config, env-var equivalents, `--stream`, `--json`, `--json-schema`, attachments, a shell-tool
loop, `--approve-tools` without a terminal, exit codes, the stdin rules, subcommand precedence and
Ctrl-C while a shell tool runs (no process of the tool's tree may survive)."""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import REPO, Lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, error, text, tool_calls

CTRL_C = "lait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)..."


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as s:
        yield s


@pytest.fixture
def chat(lait: Lait) -> Lait:
    """`lait` with none of the chat env vars of the surrounding environment."""
    for key in list(lait.env):
        if key.startswith(("OPENAI_", "LLM_")):
            del lait.env[key]
    return lait


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def live_group_members(pgid: int) -> list[int]:
    """Running members of process group ``pgid`` (zombies do not count: nothing reaps orphans here)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


# -- plain chat, config, env -------------------------------------------------------------------
def test_plain_chat_sends_the_prompt_and_prints_the_answer(chat: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("Hello there"))
    run = chat("--base-url", server.url, "--model", "gpt-test", "hello")
    assert (run.returncode, run.stdout, run.stderr) == (0, "Hello there\n", "")
    assert server.bodies == [{"model": "gpt-test", "messages": [user("hello")], "stream": False}]
    assert server.requests[0].headers["authorization"] == "Bearer lm-studio"
    assert server.requests[0].path == "/v1/chat/completions"


def test_model_alias_sampling_and_system_come_from_the_config(
    chat: Lait, server: ScriptedOpenAIServer
) -> None:
    chat.write(
        "lait.config.yml",
        textwrap.dedent(
            f"""\
            api_key: "${{CHAT_TEST_KEY}}"
            default:
              model: fast
              system: You are terse.
              max_tokens: 50
              temperature: 0.9
            models:
              fast:
                - provider: {{base_url: "{server.url}"}}
                  model_id: real-model-id
                  default_temperature: 0.3
                  default_reasoning_effort: low
            """
        ),
    )
    chat.env["CHAT_TEST_KEY"] = "sk-from-config"
    server.push(text("one"), text("two"))
    first = chat("hi")
    second = chat("--top-p", "0.5", "--temperature", "1.5", "--reasoning-effort", "high", "again")
    assert (first.returncode, first.stdout, second.returncode, second.stdout) == (0, "one\n", 0, "two\n")
    system = {"role": "system", "content": "You are terse."}
    assert server.bodies == [
        {
            "model": "real-model-id",
            "messages": [system, user("hi")],
            "stream": False,
            "reasoning_effort": "low",
            "temperature": 0.3,
            "max_completion_tokens": 50,
        },
        {
            "model": "real-model-id",
            "messages": [system, user("again")],
            "stream": False,
            "reasoning_effort": "high",
            "temperature": 1.5,
            "top_p": 0.5,
            "max_completion_tokens": 50,
        },
    ]
    assert [r.headers["authorization"] for r in server.requests] == ["Bearer sk-from-config"] * 2


def test_show_usage_sums_every_request_and_prices_it(chat: Lait, server: ScriptedOpenAIServer) -> None:
    chat.write(
        "lait.config.yml",
        textwrap.dedent(
            f"""\
            tools:
              ok: {{command: [echo, ok]}}
            models:
              priced:
                - provider: {{base_url: "{server.url}"}}
                  model_id: p
                  pricing: {{input_per_1m: 2.0, output_per_1m: 10.0}}
            """
        ),
    )
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
    server.push({**tool_calls(call("tool__ok")), "usage": usage}, {**text("priced answer"), "usage": usage})
    run = chat("--model", "priced", "--tool", "ok", "--show-usage", "q")
    assert (run.returncode, run.stdout) == (0, "priced answer\n")
    assert run.stderr == "usage: prompt=2000 completion=200 total=2200 cost=$0.006000\n"


def test_env_vars_stand_in_for_the_flags_and_flags_win(chat: Lait, server: ScriptedOpenAIServer) -> None:
    chat.env.update(
        {
            "LLM_MODEL": "env-model",
            "LLM_TEMPERATURE": "0.7",
            "LLM_TOP_P": "0.9",
            "LLM_MAX_TOKENS": "12",
            "LLM_REASONING_EFFORT": "minimal",
            "OPENAI_BASE_URL": server.url,
            "OPENAI_API_KEY": "sk-env",
        }
    )
    server.push(text("a"), text("b"))
    assert chat("x").returncode == 0
    assert chat("--model", "flag-model", "--max-tokens", "3", "y").returncode == 0
    sampling = {"reasoning_effort": "minimal", "temperature": 0.7, "top_p": 0.9}
    assert server.bodies == [
        {
            "model": "env-model",
            "messages": [user("x")],
            "stream": False,
            **sampling,
            "max_completion_tokens": 12,
        },
        {
            "model": "flag-model",
            "messages": [user("y")],
            "stream": False,
            **sampling,
            "max_completion_tokens": 3,
        },
    ]
    assert server.requests[0].headers["authorization"] == "Bearer sk-env"


def test_system_file_and_attachments(chat: Lait, server: ScriptedOpenAIServer) -> None:
    chat.write("system.txt", "Be brief.\n")
    chat.write("notes.md", "has ``` a fence\n")
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 8
    (chat.cwd / "pic.bin").write_bytes(png)
    (chat.cwd / "doc.pdf").write_bytes(b"%PDF-1.4 tiny")
    server.push(text("ok"))
    run = chat(
        *("--base-url", server.url, "--model", "m", "--system-file", "system.txt"),
        *("--file", "notes.md", "--file", "doc.pdf", "--image", "pic.bin"),
        *("--image", "https://example.com/cat.jpg", "look"),
    )
    assert run.returncode == 0, run.stderr
    pdf_url = "data:application/pdf;base64," + base64.b64encode(b"%PDF-1.4 tiny").decode()
    assert server.bodies[0]["messages"] == [
        {"role": "system", "content": "Be brief.\n"},
        user(
            [
                {"type": "text", "text": "look\n\n````notes.md\nhas ``` a fence\n\n````"},
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()},
                },
                {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
                {"type": "file", "file": {"filename": "doc.pdf", "file_data": pdf_url}},
            ]
        ),
    ]


# -- output modes --------------------------------------------------------------------------------
def test_stream_prints_the_deltas_and_requests_usage_when_shown(
    chat: Lait, server: ScriptedOpenAIServer
) -> None:
    usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    server.push(
        {"message": {"content": "streamed answer", "reasoning": "hmm"}, "usage": usage},
        {"message": {"content": "quiet one"}, "usage": usage},
    )
    run = chat("--base-url", server.url, "--model", "m", "--stream", "--show-usage", "--show-reasoning", "go")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "Reasoning:\nhmm\n\nstreamed answer\n"
    assert run.stderr == "usage: prompt=7 completion=3 total=10\n"
    quiet = chat("--base-url", server.url, "--model", "m", "--stream", "--show-usage", "--quiet", "q")
    assert (quiet.stdout, quiet.stderr) == ("quiet one\n", "")
    assert server.bodies == [
        {"model": "m", "messages": [user("go")], "stream": True, "stream_options": {"include_usage": True}},
        {"model": "m", "messages": [user("q")], "stream": True},
    ]


def test_stream_to_a_file_sends_reasoning_to_stderr(chat: Lait, server: ScriptedOpenAIServer) -> None:
    server.push({"message": {"content": "file body", "reasoning": "why"}})
    run = chat(
        "--base-url", server.url, "--model", "m", "--stream", "--show-reasoning", "-o", "out.txt", "go"
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "Reasoning:\nwhy")
    assert (chat.cwd / "out.txt").read_text() == "file body\n"


def test_an_output_file_that_cannot_be_written_is_refused_before_any_request(
    chat: Lait, server: ScriptedOpenAIServer
) -> None:
    """`-o DIR` or `-o` into a missing folder: a usage error (exit 2, docs/cli.md) before the config
    is read or a request is sent, so no answer is asked for that could not be kept."""
    (chat.cwd / "outdir").mkdir()
    server.push(text("never asked"))
    for mode in ([], ["--stream"], ["--json"]):
        into_dir = chat("--base-url", server.url, "--model", "m", *mode, "-o", "outdir", "go")
        assert (into_dir.returncode, into_dir.stdout) == (2, "")
        assert into_dir.stderr == "lait: -o 'outdir' is a directory; name a file to write the answer to\n"
        no_folder = chat("--base-url", server.url, "--model", "m", *mode, "--output", "nope/a.txt", "go")
        assert (no_folder.returncode, no_folder.stdout) == (2, "")
        assert no_folder.stderr == "lait: -o 'nope/a.txt': the folder 'nope' does not exist\n"
    assert server.requests == []


def test_json_prints_content_reasoning_and_usage(chat: Lait, server: ScriptedOpenAIServer) -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    server.push({"message": {"content": "42", "reasoning_content": "math"}, "usage": usage}, text("no usage"))
    run = chat("--base-url", server.url, "--model", "m", "--json", "q")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"content": "42", "reasoning": "math", "usage": usage}
    to_file = chat("--base-url", server.url, "--model", "m", "--json", "-o", "answer.json", "q")
    assert (to_file.returncode, to_file.stdout) == (0, "")
    assert json.loads((chat.cwd / "answer.json").read_text()) == {
        "content": "no usage",
        "reasoning": None,
        "usage": None,
    }


def test_show_reasoning_without_stream(chat: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(
        {"message": {"content": "answer", "reasoning": "because"}},
        {"message": {"content": "a2", "reasoning": "r2"}},
    )
    run = chat("--base-url", server.url, "--model", "m", "--show-reasoning", "q")
    assert (run.returncode, run.stdout, run.stderr) == (0, "Reasoning:\nbecause\n\nanswer\n", "")
    to_file = chat("--base-url", server.url, "--model", "m", "--show-reasoning", "-o", "a.txt", "q")
    assert (to_file.returncode, to_file.stdout, to_file.stderr) == (0, "", "Reasoning:\nr2\n")
    assert (chat.cwd / "a.txt").read_text() == "a2\n"


def test_render_draws_markdown_only_on_a_terminal(chat: Lait, server: ScriptedOpenAIServer) -> None:
    markdown = "# Title\n\n* **bold** item\n"
    server.push(text(markdown), text(markdown))
    piped = chat("--base-url", server.url, "--model", "m", "--render", "q")
    assert piped.stdout == markdown + "\n"  # not a terminal: the raw text
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "--base-url", server.url, "--model", "m", "--render", "q"],
        cwd=chat.cwd,
        env={**chat.env, "COLUMNS": "40", "TERM": "dumb"},
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
    )
    os.close(slave)
    shown = b""
    try:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: every writer is gone
                break
            if not chunk:
                break
            shown += chunk
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    rendered = shown.decode()
    assert "Title" in rendered and "bold item" in rendered
    assert "# Title" not in rendered and "**" not in rendered


def test_verbose_shows_resolution_and_bodies_but_never_the_key(
    chat: Lait, server: ScriptedOpenAIServer
) -> None:
    server.push(text("a"), text("b"))
    args = ("--base-url", server.url, "--api-key", "sk-very-secret", "--model", "m", "--temperature", "0.5")
    one = chat(*args, "-v", "q")
    assert one.returncode == 0
    assert one.stderr.splitlines() == [
        f"debug: model: m at {server.url}; api key: literal",
        "debug: sampling: reasoning_effort=None temperature=0.5 top_p=None max_tokens=None",
    ]
    two = chat(*args, "-vv", "q")
    lines = two.stderr.splitlines()
    body = {"model": "m", "messages": [user("q")], "stream": False, "temperature": 0.5}
    assert lines[2] == "debug: request: " + json.dumps(body)
    assert lines[3].startswith('debug: response: {"content": "b"')
    assert "sk-very-secret" not in one.stderr + two.stderr
    assert server.requests[0].headers["authorization"] == "Bearer sk-very-secret"


def test_json_schema_sets_response_format(chat: Lait, server: ScriptedOpenAIServer) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    chat.write("schema.json", json.dumps(schema))
    server.push(text('{"n": 1}'), text('{"n": 2}'))
    run = chat("--base-url", server.url, "--model", "m", "--json-schema", "schema.json", "count")
    named = chat(
        "--base-url",
        server.url,
        "--model",
        "m",
        "--json-schema",
        "schema.json",
        "--schema-name",
        "count_v2",
        "c",
    )
    assert (run.stdout, named.stdout) == ('{"n": 1}\n', '{"n": 2}\n')
    formats = [b["response_format"] for b in server.bodies]
    assert formats == [
        {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}
        for name in ("structured_output", "count_v2")
    ]


# -- tools -----------------------------------------------------------------------------------------
SHELL_TOOLS = """\
tools:
  shout:
    description: Upper-case a word.
    command: [sh, -c, 'printf "%s\\n" "$1" | tr a-z A-Z', sh, "{{ input.word }}"]
    parameters:
      type: object
      properties: {word: {type: string}}
      required: [word]
  touch:
    command: [touch, ran.txt]
"""


def test_shell_tool_loop(chat: Lait, server: ScriptedOpenAIServer) -> None:
    chat.write("lait.config.yml", SHELL_TOOLS)
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    chat.write("schema.json", json.dumps(schema))
    server.push(
        tool_calls(
            call("tool__shout", {"word": "hi"}), call("tool__shout", {"word": "yo"}), content="calling"
        ),
        text("tool-free draft"),
        text('{"n": 2}'),
    )
    run = chat(
        *("--base-url", server.url, "--model", "m", "--tool", "shout", "--json-schema", "schema.json"),
        "shout hi and yo",
    )
    assert (run.returncode, run.stdout) == (0, '{"n": 2}\n'), run.stderr
    tool = {
        "type": "function",
        "function": {
            "name": "tool__shout",
            "description": "Upper-case a word.",
            "parameters": {
                "type": "object",
                "properties": {"word": {"type": "string"}},
                "required": ["word"],
            },
        },
    }
    first = [user("shout hi and yo")]
    history = [
        *first,
        {
            "role": "assistant",
            "content": "calling",
            "tool_calls": [
                {
                    "id": "call_0",
                    "type": "function",
                    "function": {"name": "tool__shout", "arguments": '{"word":"hi"}'},
                },
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "tool__shout", "arguments": '{"word":"yo"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": "HI"},
        {"role": "tool", "tool_call_id": "call_1", "content": "YO"},
    ]
    response_format = {
        "type": "json_schema",
        "json_schema": {"name": "structured_output", "schema": schema, "strict": True},
    }
    assert server.bodies == [
        {"model": "m", "messages": first, "stream": False, "tools": [tool], "tool_choice": "auto"},
        {"model": "m", "messages": history, "stream": False, "tools": [tool], "tool_choice": "auto"},
        {"model": "m", "messages": history, "stream": False, "response_format": response_format},
    ]


def test_default_tools_and_unknown_tool(chat: Lait, server: ScriptedOpenAIServer) -> None:
    chat.write("lait.config.yml", SHELL_TOOLS + "default:\n  tools: [touch]\n")
    server.push(tool_calls(call("tool__touch")), text("touched"))
    run = chat("--base-url", server.url, "--model", "m", "go")
    assert (run.returncode, run.stdout) == (0, "touched\n"), run.stderr
    assert (chat.cwd / "ran.txt").exists()
    assert [t["function"]["name"] for t in server.bodies[0]["tools"]] == ["tool__touch"]
    unknown = chat("--base-url", server.url, "--model", "m", "--tool", "nope", "go")
    assert unknown.returncode == 1
    assert unknown.stderr == "lait: unknown tool 'nope'; define it under 'tools:' in lait.config.yml\n"
    assert len(server.bodies) == 2  # nothing was sent


def test_approve_tools_without_a_terminal_is_an_error(chat: Lait, server: ScriptedOpenAIServer) -> None:
    chat.write("lait.config.yml", SHELL_TOOLS)
    server.push(tool_calls(call("tool__touch")))
    run = chat("--base-url", server.url, "--model", "m", "--tool", "touch", "--approve-tools", "go")
    assert run.returncode == 1
    assert run.stderr.startswith(
        "lait: --approve-tools needs an interactive terminal, but stdin is not a TTY"
    )
    assert run.stdout == ""
    assert not (chat.cwd / "ran.txt").exists()
    assert len(server.bodies) == 1


# -- exit codes ------------------------------------------------------------------------------------
def test_model_api_error_exits_4(chat: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(error(400, "bad request body"))
    run = chat("--base-url", server.url, "--model", "m", "hi")
    assert (run.returncode, run.stdout) == (4, "")
    assert run.stderr == f"lait: request to {server.url} failed: HTTP 400: bad request body\n"


def test_unreachable_server_exits_4(chat: Lait) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    run = chat("--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m", "hi")
    assert run.returncode == 4
    assert run.stderr.startswith(f"lait: request to http://127.0.0.1:{port}/v1 failed: connection failed")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--json", "--stream", "x"], "lait: --json and --stream cannot be used together\n"),
        (
            ["--system", "a", "--system-file", "f", "x"],
            "lait: --system and --system-file cannot be used together\n",
        ),
        (["--schema-name", "n", "x"], "lait: --schema-name requires --json-schema\n"),
        (
            ["--config", "c.yml", "--no-config", "x"],
            "lait: --config and --no-config cannot be used together\n",
        ),
        (["--temperature", "2.5", "x"], "'--temperature'"),
        (["--max-tokens", "0", "x"], "'--max-tokens'"),
        (
            ["--reasoning-effort", "extreme", "x"],
            "'extreme' is not one of none, minimal, low, medium, high, xhigh",
        ),
        (["--json-schema", "s.json", "--schema-name", "bad name", "x"], "1-64 characters"),
        (["--bogus", "x"], "No such option"),
        (  # `lait chat` checks its shared options as `lait [PROMPT]` does, before needing a terminal
            ["chat", "--reasoning-effort", "extreme"],
            "Invalid value for '--reasoning-effort' (env var: 'LLM_REASONING_EFFORT'): 'extreme' is not one of",
        ),
        (["chat", "--max-tokens", "4294967296"], "'--max-tokens'"),
        (
            ["--model", "m", "lint", "."],
            "lait: the argument '--model' cannot be used with subcommand 'lint'\n",
        ),
        (
            ["--stream", "schema", "config"],
            "lait: the argument '--stream' cannot be used with subcommand 'schema'\n",
        ),
    ],
)
def test_usage_errors_exit_2(chat: Lait, args: list[str], message: str) -> None:
    run = chat(*args)
    assert run.returncode == 2
    assert message in run.stderr
    assert run.stdout == ""


def test_configuration_problems(chat: Lait, server: ScriptedOpenAIServer) -> None:
    missing = chat("--config", "nope.yml", "--model", "m", "x")
    assert (missing.returncode, missing.stderr) == (
        3,
        "lait: failed to read YAML configuration file 'nope.yml': no such file\n",
    )
    chat.write("lait.config.yml", "default:\n  modle: m\n")
    invalid = chat("x")
    assert invalid.returncode == 3
    assert invalid.stderr.startswith("lait: ") and "lait.config.yml:2:3:" in invalid.stderr
    no_model = chat("--no-config", "--base-url", server.url, "x")
    assert no_model.returncode == 1
    assert "no model given" in no_model.stderr


# -- stdin -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "stdin", "content"),
    [
        (["hello"], b"", "hello"),
        (["hello"], b"piped context\n\n", "hello\n\npiped context"),
        ([], b"from stdin\r\n", "from stdin"),
        (["-"], b"explicit stdin\n", "explicit stdin"),
        (["hello"], b"  \n\t\n", "hello"),
        (["--", "lint"], b"", "lint"),
        (["--", "-"], b"dash after --\n", "dash after --"),
    ],
    ids=[
        "prompt",
        "prompt+piped",
        "piped",
        "dash",
        "whitespace-piped",
        "after-dashdash",
        "dash-after-dashdash",
    ],
)
def test_stdin_rules(
    chat: Lait, server: ScriptedOpenAIServer, args: list[str], stdin: bytes, content: str
) -> None:
    server.push(text("ok"))
    run = chat("--base-url", server.url, "--model", "m", *args, stdin=stdin)
    assert run.returncode == 0, run.stderr
    assert server.bodies[0]["messages"] == [user(content)]


@pytest.mark.parametrize("args", [[], ["-"]], ids=["nothing", "dash"])
def test_a_prompt_is_required(chat: Lait, server: ScriptedOpenAIServer, args: list[str]) -> None:
    run = chat("--base-url", server.url, "--model", "m", *args, stdin=b" \n\n")
    assert run.returncode == 2
    assert run.stderr.startswith("lait: a PROMPT is required; provide one or pipe input via stdin")
    assert server.bodies == []


def test_subcommands_keep_working(chat: Lait) -> None:
    chat.write("wf.yml", "name: [\n")
    lint = chat("--no-config", "lint", "wf.yml")
    assert lint.returncode == 3 and lint.stdout.startswith("wf.yml:")
    assert chat("schema", "config").stdout.startswith("{")
    globals_first = chat("-vv", "--approve-tools", "--no-config", "lint", "wf.yml")  # globals before it
    assert (globals_first.returncode, globals_first.stdout) == (3, lint.stdout)
    version = chat("--version")
    assert (version.returncode, version.stdout.startswith("lait ")) == (0, True)
    help_text = chat("--help")
    assert help_text.returncode == 0
    assert "Usage: lait [OPTIONS] [PROMPT]" in help_text.stdout
    assert "lint " in help_text.stdout and "--approve-tools" in help_text.stdout


# -- Ctrl-C ----------------------------------------------------------------------------------------
def _wait_for(path: Path, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


def _wait_gone(pgid: int, timeout: float = 5.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (members := live_group_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return members


SLOW_TOOL = """\
tools:
  slow:
    command: [sh, -c, 'echo $$ > tool.pid; sleep 60 & sleep 60; wait']
"""


@pytest.mark.parametrize("presses", [1, 2], ids=["once", "twice"])
def test_ctrl_c_during_a_shell_tool_kills_its_tree(
    chat: Lait, server: ScriptedOpenAIServer, presses: int
) -> None:
    chat.write("lait.config.yml", SLOW_TOOL)
    server.push(tool_calls(call("tool__slow")), text("never"))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lait_cli.main",
            "--base-url",
            server.url,
            "--model",
            "m",
            "--tool",
            "slow",
            "go",
        ],
        cwd=chat.cwd,
        env=chat.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    pgid = 0
    try:
        pgid = int(_wait_for(chat.cwd / "tool.pid"))
        deadline = time.monotonic() + 10
        while len(live_group_members(pgid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(live_group_members(pgid)) == 3  # sh and both sleeps
        for _ in range(presses):
            proc.send_signal(signal.SIGINT)
            time.sleep(0.05)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if pgid:
            survivors = _wait_gone(pgid)
            for pid in survivors:
                os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert survivors == []
    assert out == b""
    lines = err.decode().splitlines()
    assert lines[0] == CTRL_C
    assert "Traceback" not in err.decode()
    assert len(server.bodies) == 1  # cancelled before the next round


SECOND_CTRL_C = """
import asyncio, os, subprocess, sys
from lait_cli.support.terminal import Interrupts, run_interruptible

async def stubborn(interrupts):
    child = subprocess.Popen(["sleep", "60"], start_new_session=True)
    interrupts.on_spawn(child.pid)
    print(child.pid, flush=True)
    while True:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            print("cancel ignored", flush=True)

interrupts = Interrupts()
run_interruptible(stubborn(interrupts), interrupts)
"""


def test_second_ctrl_c_exits_130_at_once_and_kills_tool_groups(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", SECOND_CTRL_C],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    try:
        child = int(proc.stdout.readline())
        proc.send_signal(signal.SIGINT)
        assert proc.stdout.readline() == "cancel ignored\n"
        assert proc.poll() is None  # the first Ctrl-C only asked
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert _wait_gone(child) == []
    assert proc.stderr is not None and proc.stderr.read() == CTRL_C + "\n"


APPROVE = ("--tool", "touch", "--approve-tools", "go")


def test_ctrl_c_at_an_approval_prompt(chat: Lait, server: ScriptedOpenAIServer) -> None:
    """The prompt thread still blocks in a read of the terminal; lait exits 130 anyway."""
    chat.write("lait.config.yml", SHELL_TOOLS)
    server.push(tool_calls(call("tool__touch")))
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", *("--base-url", server.url, "--model", "m"), *APPROVE],
        cwd=chat.cwd,
        env=chat.env,
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(slave)
    try:
        assert proc.stderr is not None
        seen = b""
        deadline = time.monotonic() + 20
        while b"allow this call?" not in seen and time.monotonic() < deadline:
            seen += os.read(proc.stderr.fileno(), 4096)
        assert seen.startswith(b'tool call: tool__touch\narguments: {}\ncommand: ["touch", "ran.txt"]\n')
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
        rest = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert proc.returncode == 130
    assert rest.decode() == CTRL_C + "\nlait: interrupted\n"
    assert not (chat.cwd / "ran.txt").exists()


# -- MCP servers, subagents and skills in chat ---------------------------------------------------
def _peer_config(*names: str) -> str:
    lines = ["mcp_servers:"]
    for name in names:
        lines += [
            f"  {name}:",
            f"    command: {json.dumps(sys.executable)}",
            '    args: ["-m", "tests.peers.mcp_peer"]',
            f"    cwd: {json.dumps(str(REPO))}",
        ]
    return "\n".join(lines) + "\n"


def test_mcp_flag_replaces_default_mcp(chat: Lait, server: ScriptedOpenAIServer) -> None:
    chat.write("lait.config.yml", _peer_config("peer", "calc") + "default:\n  mcp: [peer]\n")
    server.push(tool_calls(call("peer__add", {"a": 1, "b": 2}, id="c1")), text("three"))
    run = chat("--base-url", server.url, "--model", "m", "add 1 and 2")
    assert (run.returncode, run.stdout) == (0, "three\n"), run.stderr
    first, second = server.bodies
    assert "peer__add" in [t["function"]["name"] for t in first["tools"]]
    assert second["messages"][-1]["content"].startswith("3")
    assert "cannot use" not in run.stderr
    server.push(text("no call"))
    run = chat("--base-url", server.url, "--model", "m", "--mcp", "calc", "hi")
    assert (run.returncode, run.stdout) == (0, "no call\n"), run.stderr
    names = {t["function"]["name"].split("__")[0] for t in server.bodies[2]["tools"]}
    assert names == {"calc"}
    unknown = chat("--base-url", server.url, "--model", "m", "--mcp", "nope", "hi")
    assert unknown.returncode == 1
    assert unknown.stderr.startswith("lait: unknown MCP server 'nope'; define it under 'mcp_servers:'")


def test_subagent_flag_and_default_skills(chat: Lait, server: ScriptedOpenAIServer) -> None:
    chat.write("agents/helper.md", "---\ndescription: Helps out.\n---\nYou help with {{ input }}.")
    chat.write("agents/other.md", "---\n---\nOther.")
    chat.write("skills/style/SKILL.md", "---\ndescription: House style.\n---\nWrite plainly.")
    chat.write(
        "lait.config.yml",
        textwrap.dedent(
            """\
            agents: {helper: agents/helper.md, other: agents/other.md}
            skills: {style: skills/style}
            default:
              model: sub-model
              subagents: [other]
              skills: [style]
            """
        )
        + f"base_url: {server.url}\n",
    )
    server.push(
        tool_calls(call("agent__helper", {"input": "dishes"}, id="c1")),
        text("dishes done"),
        text("all done"),
    )
    run = chat("--model", "m", "--subagent", "helper", "--system", "Base.", "go")
    assert (run.returncode, run.stdout, run.stderr) == (0, "all done\n", "")
    parent, child, last = server.bodies
    skills = "## Skill: style\n\nHouse style.\n\nWrite plainly."
    assert parent["messages"][0] == {"role": "system", "content": f"Base.\n\n---\n\n{skills}"}
    assert [t["function"]["name"] for t in parent["tools"]] == ["agent__helper"]
    assert child["messages"][0]["content"] == f"You help with dishes.\n\n---\n\n{skills}"
    # the subagent's settings: its frontmatter, then default: (not the caller's --model/--subagent)
    assert (parent["model"], child["model"]) == ("m", "sub-model")
    assert [t["function"]["name"] for t in child["tools"]] == ["agent__other"]
    assert last["messages"][-1] == {"role": "tool", "tool_call_id": "c1", "content": "dishes done"}


def test_progressive_skills_in_chat(chat: Lait, server: ScriptedOpenAIServer) -> None:
    chat.write("style.md", "---\ndescription: House style.\n---\nWrite plainly.")
    chat.write(
        "lait.config.yml",
        "skills: {style: style.md}\ndefault:\n  skills: [style]\n  skill_progressive_disclosure: true\n",
    )
    server.push(tool_calls(call("skill__style", {}, id="c1")), text("plain answer"))
    run = chat("--base-url", server.url, "--model", "m", "answer")
    assert (run.returncode, run.stdout, run.stderr) == (0, "plain answer\n", "")
    first, second = server.bodies
    assert first["messages"][0]["content"] == (
        "## Skill: style\n\nHouse style.\n\n"
        "(Call the `skill__style` tool to read this skill's full instructions before following it.)"
    )
    assert [t["function"]["name"] for t in first["tools"]] == ["skill__style"]
    assert second["messages"][-1]["content"] == "## Skill: style\n\nHouse style.\n\nWrite plainly."


REPL_OWN = {"--show-usage", "--no-history", "--render"}
"""Options whose help says what they do in the REPL (per turn), not in a single-shot chat."""


def test_lait_chat_declares_its_options_as_bare_chat_does() -> None:
    import typer

    from lait_cli.commands import chat as chat_command
    from lait_cli.commands.single_shot import chat_app

    def options(command: object) -> dict[str, tuple[object, ...]]:
        return {
            p.opts[0]: (p.opts, p.help, p.envvar, p.metavar, p.min, p.max, p.callback is not None, p.multiple)
            for p in command.params  # type: ignore[attr-defined]
            if p.param_type_name == "option"
        }

    app = typer.Typer()
    chat_command.register(app)
    repl = options(typer.main.get_group(app).commands["chat"])
    bare = options(typer.main.get_command(chat_app({})))
    assert set(repl) - REPL_OWN <= set(bare)
    assert len(set(repl) - REPL_OWN) == 14
    for name in set(repl) - REPL_OWN:
        assert repl[name] == bare[name], name


def test_lait_chat_with_a_prompt_points_to_the_one_shot_form(chat: Lait) -> None:
    run = chat("chat", "--model", "m", "what is lait?")
    assert run.returncode == 2
    assert run.stderr == (
        "lait: lait chat takes no PROMPT (it starts the REPL); for one question use: lait 'what is lait?'\n"
    )
    assert run.stdout == ""
    typo = chat("chat", "--modle", "m")
    assert typo.returncode == 2
    assert "No such option: --modle" in typo.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["caf\udce9"], "the request holds text that is not valid UTF-8"),  # the byte 0xe9 in argv
        (["--api-key", "sk-\u00e9", "hi"], "the API key holds characters an HTTP header cannot carry"),
        (["--base-url", "http://127.0.0.1:9/v1\t", "hi"], "is not a valid URL"),
    ],
)
def test_what_no_request_can_carry_is_reported_before_sending(
    chat: Lait, server: ScriptedOpenAIServer, args: list[str], message: str
) -> None:
    run = chat("--no-config", "--base-url", server.url, "--model", "m", *args)
    assert run.returncode == 1
    assert run.stderr.startswith("lait: ") and message in run.stderr, run.stderr
    assert "internal error" not in run.stderr and "sk-\u00e9" not in run.stderr
    assert server.requests == []
