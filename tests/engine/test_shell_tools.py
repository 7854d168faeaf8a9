"""Custom shell tools (docs/config.md): argv templates without a
shell, validation before spawning, env allowlist and cwd, output caps that kill the process tree,
timeouts, and the exact result strings."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from lait_core.engine.llm.chat_types import ToolArgumentsError, ToolNameError
from lait_core.engine.run.interaction import HeadlessInteraction
from lait_core.engine.tools import CallContext, ToolResult, ToolSet
from lait_core.engine.tools.shell import ShellToolSource
from tests.engine.conftest import barrier, live_group_members, shell_source

REPO = Path(__file__).resolve().parents[2]
PATTERN_SCHEMA = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string"},
        "mode": {"enum": ["fast", "slow"]},
        "n": {"type": "integer"},
    },
    "required": ["pattern"],
}


async def run_tool(
    definition: dict[str, Any], arguments: Any, *, environ: dict[str, str] | None = None, **kwargs: Any
) -> tuple[ToolResult, list[int]]:
    spawned: list[int] = []
    source = shell_source({"t": definition}, environ=environ, on_spawn=spawned.append, **kwargs)
    tools = await ToolSet.assemble([source])
    tool = tools.tools[0]
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    result = await source.call(tool, text, CallContext(HeadlessInteraction(), "call_0"))
    return result, spawned


async def test_argv_is_rendered_and_run_without_a_shell(tmp_path: Path) -> None:
    pwned = tmp_path / "pwned"
    pattern = f"$(touch {pwned}); `touch {pwned}` *"
    result, _ = await run_tool(
        {
            "command": ["printf", "%s|%s", "{{ input.pattern }}", "{{ json input.n }}"],
            "parameters": PATTERN_SCHEMA,
        },
        {"pattern": pattern, "n": 3},
    )
    assert result == ToolResult(f"{pattern}|3")
    assert not pwned.exists()


async def test_templates_are_not_html_escaped_and_json_helper_is_compact() -> None:
    result, _ = await run_tool(
        {"command": ["printf", "%s %s", "{{ input.q }}", "{{ json input.obj }}"]},
        {"q": "<a href='x'>&</a>", "obj": {"k": [1, "é"]}},
    )
    assert result.text == '<a href=\'x\'>&</a> {"k":[1,"é"]}'


@pytest.mark.parametrize(
    ("command", "arguments", "message"),
    [
        (
            ["echo", "{{ input.missing }}"],
            {},
            "tool command failed: command[1] ('{{ input.missing }}'): 'input.missing' is missing",
        ),
        (["echo", "{{ input }}"], {"a": 1}, "tool command failed: command[1] uses a bare '{{ input }}'"),
        (
            ["echo", "{{ steps.x }}"],
            {},
            "tool command failed: command[1] ('{{ steps.x }}'): 'steps.x' is missing",
        ),
        (["echo", "{{#if}}"], {}, "tool command failed: command[1] ('{{#if}}'):"),
    ],
)
async def test_render_failures_are_results_and_nothing_runs(
    command: list[str], arguments: Any, message: str
) -> None:
    result, spawned = await run_tool({"command": command}, arguments)
    assert result.is_error and result.text.startswith(message), result.text
    assert spawned == []


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "tool arguments failed validation: arguments is missing required field(s): pattern"),
        (
            {"pattern": 1},
            "tool arguments failed validation: arguments.pattern must be of type string (got integer)",
        ),
        ({"pattern": "x", "mode": "medium"}, 'arguments.mode must be one of ["fast", "slow"] (got "medium")'),
        ({"pattern": "x", "n": 1.5}, "arguments.n must be of type integer (got number)"),
    ],
)
async def test_validation_happens_before_spawning(arguments: Any, message: str) -> None:
    result, spawned = await run_tool({"command": ["echo", "hi"], "parameters": PATTERN_SCHEMA}, arguments)
    assert result.is_error and message in result.text
    assert result.text.startswith("tool arguments failed validation: ")
    assert spawned == []


async def test_validation_accepts_extra_fields_and_integral_floats() -> None:
    result, _ = await run_tool(
        {"command": ["echo", "{{ input.pattern }}"], "parameters": PATTERN_SCHEMA},
        {"pattern": "ok", "n": 2.0, "x": 1},
    )
    assert result == ToolResult("ok")


@pytest.mark.parametrize("blank", ["", "  ", "null"])
async def test_blank_or_null_arguments_are_an_empty_object(blank: str) -> None:
    result, _ = await run_tool({"command": ["echo", "ran"]}, blank)
    assert result == ToolResult("ran")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ("{not json", "arguments that are not valid JSON"),
        ("[1, 2]", "arguments that are an array, not a JSON object"),
        ('"text"', "arguments that are a string, not a JSON object"),
        ("42", "arguments that are a number, not a JSON object"),
        ("true", "arguments that are a boolean, not a JSON object"),
    ],
)
async def test_malformed_arguments_are_hard_errors(arguments: str, message: str) -> None:
    with pytest.raises(ToolArgumentsError, match=message):
        await run_tool({"command": ["echo", "never"]}, arguments)


async def test_env_allowlist_replaces_the_environment() -> None:
    environ = {"PATH": os.environ["PATH"], "SAFE_TOKEN": "s3cret", "LEAK": "must not be seen"}
    result, _ = await run_tool(
        {"command": ["env"], "env": {"PATH": "${PATH}", "SAFE_TOKEN": "${SAFE_TOKEN}", "LITERAL": "x"}},
        {},
        environ=environ,
    )
    assert sorted(result.text.splitlines()) == sorted(
        [f"PATH={os.environ['PATH']}", "SAFE_TOKEN=s3cret", "LITERAL=x"]
    )


async def test_without_env_the_parent_environment_is_inherited() -> None:
    result, _ = await run_tool(
        {"command": ["sh", "-c", "echo $PARENT_VAR"]}, {}, environ={**os.environ, "PARENT_VAR": "inherited"}
    )
    assert result.text == "inherited"


async def test_env_without_path_cannot_find_a_relative_command() -> None:
    result, _ = await run_tool({"command": ["echo", "x"], "env": {"ONLY": "1"}}, {})
    assert result.is_error
    assert result.text == "tool command failed: failed to spawn 'echo': No such file or directory"


async def test_env_and_cwd_expansion_failures_are_results() -> None:
    result, spawned = await run_tool({"command": ["true"], "env": {"X": "${UNSET_VAR_XYZ}"}}, {}, environ={})
    assert result.text == (
        "tool command failed: 'tools.t.env.X': environment variable 'UNSET_VAR_XYZ' referenced by '${UNSET_VAR_XYZ}' "
        "is not set"
    )
    assert spawned == []
    result, spawned = await run_tool({"command": ["true"], "cwd": "${UNSET_VAR_XYZ}"}, {}, environ={})
    assert result.text.startswith("tool command failed: 'tools.t.cwd': environment variable 'UNSET_VAR_XYZ'")
    assert spawned == []


async def test_cwd_is_expanded(tmp_path: Path) -> None:
    (tmp_path / "sandbox").mkdir()
    result, _ = await run_tool(
        {"command": ["pwd"], "cwd": "${BASE}/sandbox"}, {}, environ={**os.environ, "BASE": str(tmp_path)}
    )
    assert result.text == str(tmp_path / "sandbox")


async def test_stdin_is_empty_and_closed() -> None:
    started = time.monotonic()
    result, _ = await run_tool({"command": ["cat"]}, {})
    assert result == ToolResult("")
    assert time.monotonic() - started < 20  # not the 30 s tool timeout: cat saw the end of stdin


@pytest.mark.parametrize(
    ("printed", "expected"),
    [("a\\n\\n", "a\n"), ("a\\r\\n", "a"), ("a\\r\\n\\r\\n", "a\r\n"), ("a", "a"), ("\\n", "")],
)
async def test_exactly_one_trailing_line_ending_is_removed(printed: str, expected: str) -> None:
    result, _ = await run_tool({"command": ["printf", printed]}, {})
    assert result.text == expected


async def test_stderr_is_dropped_on_success() -> None:
    result, _ = await run_tool({"command": ["sh", "-c", "echo out; echo noise >&2"]}, {})
    assert result == ToolResult("out")


async def test_non_zero_exit_is_a_result_with_trimmed_stderr() -> None:
    result, _ = await run_tool(
        {"command": ["sh", "-c", "echo partial; printf '  oops\\n\\n' >&2; exit 3"]}, {}
    )
    assert result == ToolResult(
        "tool command failed: command 'sh' exited with exit status: 3: oops", is_error=True
    )
    result, _ = await run_tool({"command": ["false"]}, {})
    assert result.text == "tool command failed: command 'false' exited with exit status: 1"


async def test_killed_by_a_signal() -> None:
    result, _ = await run_tool({"command": ["sh", "-c", "kill -9 $$"]}, {})
    assert result.text == "tool command failed: command 'sh' exited with signal: 9 (SIGKILL)"


async def test_non_utf8_stdout_is_a_failure() -> None:
    result, _ = await run_tool({"command": ["printf", "\\377\\376"]}, {})
    assert (
        result.text
        == "tool command failed: command 'printf' wrote output that is not UTF-8; binary output is not supported"
    )


async def test_timeout_kills_the_process_tree() -> None:
    started = time.monotonic()
    result, spawned = await run_tool(
        {"command": ["sh", "-c", "sleep 30 & sleep 30; echo {{ input.x }}"], "timeout": 1}, {"x": "y"}
    )
    assert (
        result.text
        == 'tool command failed: command timed out after 1s: ["sh", "-c", "sleep 30 & sleep 30; echo y"]'
    )
    assert 1 <= time.monotonic() - started < 20  # not the 30 s the background sleep would hold the pipe
    assert live_group_members(spawned[0]) == []


def test_default_timeout_is_30_seconds() -> None:
    source = shell_source({"t": {"command": ["x"]}})
    assert source.definitions["t"].timeout == 30


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
async def test_output_cap_kills_the_tree(stream: str) -> None:
    redirect = "" if stream == "stdout" else " >&2"
    command = ["sh", "-c", f"sleep 30 & yes{redirect}"]
    result, spawned = await run_tool({"command": command}, {}, output_limit=1024 * 1024)
    assert result.text == (
        f"tool command failed: command 'sh' wrote more than 1 MiB to {stream}; the process tree was killed"
    )
    assert live_group_members(spawned[0]) == []


def test_endless_output_is_killed_at_16_mib_with_bounded_memory() -> None:
    """The real 16 MiB cap, measured in a fresh interpreter: peak RSS grows by about the cap, not
    by what the command would print."""
    script = textwrap.dedent(
        """
        import asyncio, json, resource, time
        from lait_core.documents.document_models import ShellToolDefinition
        from lait_core.engine.run.interaction import HeadlessInteraction
        from lait_core.engine.tools import CallContext, ToolSet
        from lait_core.engine.tools.shell import ShellToolSource

        async def main():
            source = ShellToolSource(["yes"], {"yes": ShellToolDefinition(command=["yes", "lait"])})
            tool = (await ToolSet.assemble([source])).tools[0]
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            started = time.monotonic()
            result = await source.call(tool, "{}", CallContext(HeadlessInteraction(), "c"))
            elapsed = time.monotonic() - started
            after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            print(json.dumps({"text": result.text, "growth_kib": after - before, "elapsed": elapsed}))

        asyncio.run(main())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (
        report["text"]
        == "tool command failed: command 'yes' wrote more than 16 MiB to stdout; the process tree was killed"
    )
    assert report["growth_kib"] < 48 * 1024
    assert report["elapsed"] < 10


async def test_up_to_eight_shell_calls_run_concurrently(tmp_path: Path) -> None:
    """All eight calls meet at a barrier: each gets past it only while the seven others run."""
    source = shell_source({"nap": {"command": barrier(tmp_path / "met", 8, "echo met"), "timeout": 60}})
    tool = (await ToolSet.assemble([source])).tools[0]
    ctx = CallContext(HeadlessInteraction(), "c")
    results = await asyncio.gather(*(source.call(tool, "{}", ctx) for _ in range(8)))
    assert results == [ToolResult("met")] * 8


async def test_preview_shows_the_rendered_argv() -> None:
    source = shell_source({"rg": {"command": ["rg", "--json", "{{ input.pattern }}"]}})
    tool = (await ToolSet.assemble([source])).tools[0]
    assert source.preview(tool, '{"pattern": "TODO"}') == ("rg", "--json", "TODO")
    assert source.preview(tool, "{}") is None  # does not render
    assert source.preview(tool, "{bad") is None


async def test_unknown_tool_reference() -> None:
    source = ShellToolSource(["rg"], {})
    with pytest.raises(ToolNameError) as info:
        await source.list_tools()
    assert str(info.value) == "unknown tool 'rg'; define it under 'tools:' in lait.config.yml"


async def test_pattern_keeps_an_option_out_of_the_argv(tmp_path: Path) -> None:
    """lait enforces ``pattern`` of top-level string properties (the original's validator does not),
    so ``^[^-]`` really keeps ``--version`` from reaching ``ls`` as an option (LAIT601's advice)."""
    schema = {"type": "object", "properties": {"path": {"type": "string", "pattern": "^[^-]"}}}
    definition = {"command": ["ls", "{{ input.path }}"], "parameters": schema, "cwd": str(tmp_path)}
    result, spawned = await run_tool(definition, {"path": "--version"})
    assert result.is_error and spawned == []
    assert result.text == (
        "tool arguments failed validation: arguments.path: \"--version\" does not match the pattern '^[^-]'"
    )
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    result, _ = await run_tool(definition, {"path": "a.txt"})
    assert result == ToolResult("a.txt")
    broken = {
        "command": ["echo", "{{ input.path }}"],
        "parameters": {"properties": {"path": {"pattern": "("}}},
    }
    result, spawned = await run_tool(broken, {"path": "x"})
    assert result.is_error and "is not a valid regular expression" in result.text and spawned == []
