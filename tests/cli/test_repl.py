"""The chat REPL through a real pseudo-terminal (pexpect) against the scripted server (issue 17
item 2 and its acceptance): a conversation with a tool call under --approve-tools, /model, /clear,
Ctrl-C cancelling a turn (the REPL goes on), history in later requests, and a clean exit."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.cli.conftest import REPO, Lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

CONFIG = """\
tools:
  touch:
    description: Create the file made.txt.
    command: [touch, made.txt]
models:
  other-alias:
    - provider: {base_url: "BASE"}
      model_id: other-model
"""


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as s:
        yield s


def _spawn(lait: Lait, *args: str, cwd: Path | None = None) -> pexpect.spawn:
    env = {k: v for k, v in lait.env.items() if not k.startswith(("OPENAI_", "LLM_"))}
    env.update(TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", PYTHONPATH=str(REPO), COLUMNS="200", LINES="40")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "lait_cli.main", *args],
        cwd=str(cwd or lait.cwd),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 200),
    )
    return child


def _wait(predicate: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _messages(server: ScriptedOpenAIServer, index: int) -> list[tuple[str, str]]:
    return [(m["role"], m.get("content") or "") for m in server.bodies[index]["messages"]]


def test_a_repl_conversation(lait: Lait, server: ScriptedOpenAIServer) -> None:
    lait.write("lait.config.yml", CONFIG.replace("BASE", server.url))
    server.push(
        tool_calls(call("tool__touch")),
        text("created it"),
        text("second answer"),
        text("after clear"),
        {"message": {"content": "too slow"}, "delay": 60},
        text("still here"),
    )
    child = _spawn(
        lait, "chat", "--base-url", server.url, "--model", "m", "--tool", "touch", "--approve-tools"
    )
    try:
        child.expect_exact("m>")
        child.sendline("please make the file")
        child.expect_exact("tool call: tool__touch")
        child.expect_exact("allow this call?")
        child.sendline("y")
        child.expect_exact("created it")
        child.expect_exact("m>")
        assert (lait.cwd / "made.txt").exists()

        child.sendline("/model other-model")
        child.expect_exact("model: other-model")
        child.expect_exact("other-model>")
        child.sendline("and again")
        child.expect_exact("second answer")
        child.expect_exact("other-model>")
        assert server.bodies[2]["model"] == "other-model"
        assert _messages(server, 2) == [
            ("user", "please make the file"),
            ("assistant", "created it"),
            ("user", "and again"),
        ]

        child.sendline("/clear")
        child.expect_exact("conversation cleared")
        child.sendline("fresh start")
        child.expect_exact("after clear")
        child.expect_exact("other-model>")
        assert _messages(server, 3) == [("user", "fresh start")]

        child.sendline("this one is slow")
        _wait(lambda: len(server.requests) == 5)
        child.sendintr()
        child.expect_exact("turn cancelled")
        child.expect_exact("other-model>")
        child.sendline("still there?")
        child.expect_exact("still here")
        assert _messages(server, 5) == [
            ("user", "fresh start"),
            ("assistant", "after clear"),
            ("user", "still there?"),
        ]
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, child.before
    assert (lait.cwd / ".lait" / "chat_history").read_text().count("still there?") == 1


def test_ctrl_d_exits_0_and_ctrl_c_at_an_empty_prompt_exits_130(
    lait: Lait, server: ScriptedOpenAIServer
) -> None:
    child = _spawn(lait, "--base-url", server.url, "--model", "m")  # bare `lait` on a terminal
    try:
        child.expect_exact("m>")
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    child = _spawn(lait, "chat", "--model", "m", "--base-url", server.url)
    try:
        child.expect_exact("m>")
        child.send("some text")
        child.sendcontrol("c")  # clears the line
        child.sendcontrol("c")  # on an empty line: leaves
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 130
    assert server.bodies == []


def test_sessions_persist_across_repl_runs(lait: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("first answer"), text("second answer"))
    for prompt, answer in (("one", "first answer"), ("two", "second answer")):
        child = _spawn(lait, "chat", "--model", "m", "--base-url", server.url, "--session", "work")
        try:
            child.expect_exact("m>")
            child.sendline(prompt)
            child.expect_exact(answer)
            child.expect_exact("m>")
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0
    assert _messages(server, 1) == [("user", "one"), ("assistant", "first answer"), ("user", "two")]
    assert len((lait.cwd / ".lait" / "sessions" / "work.jsonl").read_text().splitlines()) == 4
    assert os.environ.get("TERM") != "" or True


def test_multi_line_input_and_tab_completion(lait: Lait, server: ScriptedOpenAIServer) -> None:
    from lait_cli.support.repl import completions

    assert [c[0] for c in completions("/mo", [])] == ["/model"]
    assert [c[0] for c in completions("/model f", ["fast", "big"])] == ["fast"]
    lait.write("lait.config.yml", CONFIG.replace("BASE", server.url))
    server.push(text("got both lines"), text("and three"))
    child = _spawn(lait, "chat", "--base-url", server.url, "--model", "m")
    try:
        child.expect_exact("m>")
        child.send("first line\\")
        child.send("\r")
        child.send("second line\r")
        child.expect_exact("got both lines")
        assert _messages(server, 0) == [("user", "first line\nsecond line")]
        child.send("one")
        child.send("\x1b\r")  # Esc-Enter: a new line
        child.send("two\r")
        child.expect_exact("and three")
        assert _messages(server, 1)[-1] == ("user", "one\ntwo")
        child.send("/model other-al")
        child.expect_exact("/model other-al")
        child.send("\t")
        child.expect_exact("ias")  # the completion's rest appears on the line
        child.send("\r")
        child.expect_exact("model: other-alias")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


ELICIT_CONFIG = """\
mcp_servers:
  notes:
    command: PYTHON
    args: [-m, tests.peers.mcp_elicit_server]
    cwd: REPO
    allow_elicitation: true
"""


def test_an_elicitation_during_a_turn_is_asked_through_the_line_editor(
    lait: Lait, server: ScriptedOpenAIServer
) -> None:
    """A real MCP server's tool elicits during a REPL turn: the question is shown, the form is
    filled in field by field (each answer read by the line editor), the answer reaches the server,
    and the input line afterwards is clean (the next prompt takes a whole new line)."""
    lait.write("lait.config.yml", ELICIT_CONFIG.replace("PYTHON", sys.executable).replace("REPO", str(REPO)))
    server.push(
        tool_calls(call("notes__save_note", {"text": "buy milk"})),
        text("note saved"),
        text("second turn"),
    )
    child = _spawn(lait, "chat", "--base-url", server.url, "--model", "m", "--mcp", "notes")
    try:
        child.expect_exact("m>")
        child.sendline("save my note")
        child.expect_exact("Save the note 'buy milk'?")
        child.expect_exact("press Enter to fill in the form")
        child.send("\r")
        child.expect_exact("title (required)")
        child.send("Shopping\r")
        child.expect_exact("priority (required)")
        child.send("2\r")
        child.expect_exact('answer: {"title": "Shopping", "priority": 2}')
        child.expect_exact("send this answer?")
        child.send("\r")
        child.expect_exact("note saved")
        child.expect_exact("m>")
        tools = [m["content"] for m in server.bodies[1]["messages"] if m["role"] == "tool"]
        assert len(tools) == 1 and tools[0].startswith("saved 'Shopping' (priority 2): buy milk"), tools
        child.sendline("and now")
        child.expect_exact("second turn")
        child.expect_exact("m>")
        assert _messages(server, 2)[-1] == ("user", "and now")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, child.before
    history = (lait.cwd / ".lait" / "chat_history").read_text()
    assert "Shopping" not in history  # answers to questions are not input-line history


def test_ctrl_r_finds_an_entry_of_an_earlier_repl_run(lait: Lait, server: ScriptedOpenAIServer) -> None:
    """History is kept per project: a second REPL process finds the first one's entry with Ctrl-R
    and a fragment of it, and Enter sends the entry found."""
    lait.write("lait.config.yml", "default:\n  model: m\n")
    server.push(text("first answer"), text("second answer"), text("found again"))
    child = _spawn(lait, "chat", "--base-url", server.url)
    try:
        child.expect_exact("m>")
        child.sendline("the zebra entry")
        child.expect_exact("first answer")
        child.expect_exact("m>")
        child.sendline("something else")
        child.expect_exact("second answer")
        child.expect_exact("m>")
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    (lait.cwd / "sub").mkdir()
    child = _spawn(lait, "chat", "--base-url", server.url, cwd=lait.cwd / "sub")  # the project found upward
    try:
        child.expect_exact("m>")
        child.sendcontrol("r")
        child.expect_exact("reverse-i-search")
        child.send("zeb")
        child.expect_exact("ra entry")  # "the zebra entry" with the fragment highlighted
        child.send("\r")
        child.expect_exact("found again")
        child.expect_exact("m>")
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert _messages(server, 2) == [("user", "the zebra entry")]
