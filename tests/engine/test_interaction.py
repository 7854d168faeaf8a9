"""The terminal Interaction through a real pseudo-terminal (approvals and elicitation; docs/config.md,
docs/mcp.md):
exact prompts, y/n/a answers, no re-prompt, non-TTY errors, one prompt at a time across
concurrent loops, and a cancelled read that keeps the lock until it returns."""

from __future__ import annotations

import asyncio
import io
import os
import select
import termios
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest

from lait_cli.support.terminal_dialogs import APPROVAL_PROMPT, PromptState, TerminalInteraction
from lait_core.engine.llm.chat_types import ApprovalError, user_message
from lait_core.engine.llm.client import ChatClient
from lait_core.engine.run.interaction import (
    ApprovalDecision,
    ApprovalRequest,
    AskError,
    ElicitationRequest,
    ElicitationResult,
    HeadlessInteraction,
    Question,
    ReasoningDelta,
    StreamEnded,
    TextDelta,
    WarningEvent,
)
from lait_core.engine.run.tool_loop import LoopOptions, run_tool_loop
from lait_core.engine.tools import ToolSet
from tests.engine.conftest import caller_for, shell_source
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls


class Pty:
    """A pseudo-terminal: the interaction reads and writes the slave side, the test the master."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        attrs = termios.tcgetattr(self.slave)
        attrs[3] &= ~termios.ECHO  # the test only wants what lait writes
        termios.tcsetattr(self.slave, termios.TCSANOW, attrs)
        self.stdin: TextIO = open(self.slave, encoding="utf-8", closefd=False)  # noqa: SIM115
        self.stderr: TextIO = open(self.slave, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        self._pending = ""

    def terminal(self, state: PromptState, **kwargs: object) -> TerminalInteraction:
        return TerminalInteraction(stdin=self.stdin, stderr=self.stderr, state=state, **kwargs)  # type: ignore[arg-type]

    def _read(self, wait: float) -> str:
        ready, _, _ = select.select([self.master], [], [], wait)
        if not ready:
            return ""
        return os.read(self.master, 65536).decode("utf-8").replace("\r\n", "\n")

    async def until(self, marker: str, timeout: float = 5.0) -> str:
        """Everything written up to and including ``marker``."""
        deadline = time.monotonic() + timeout
        while marker not in self._pending:
            if time.monotonic() > deadline:
                raise AssertionError(f"{marker!r} not written; got {self._pending!r}")
            self._pending += await asyncio.to_thread(self._read, 0.05)
        end = self._pending.index(marker) + len(marker)
        out, self._pending = self._pending[:end], self._pending[end:]
        return out

    async def quiet(self, wait: float = 0.3) -> str:
        """Whatever is written within ``wait`` seconds (expected: nothing)."""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            self._pending += await asyncio.to_thread(self._read, 0.05)
        out, self._pending = self._pending, ""
        return out

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> None:
        self.stdin.close()
        self.stderr.close()
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def pty() -> Iterator[Pty]:
    p = Pty()
    yield p
    p.close()


@pytest.fixture
def state() -> PromptState:
    return PromptState()


RG = ApprovalRequest("tool__rg", '{"pattern":"TODO"}', "tool", command=("rg", "--json", "TODO"))
EXPECTED_RG_PROMPT = (
    "tool call: tool__rg\n"
    'arguments: {"pattern":"TODO"}\n'
    'command: ["rg", "--json", "TODO"]\n'
    "allow this call? [y(es)/n(o)/a(lways for this tool)] "
)


@pytest.mark.parametrize(
    ("answer", "decision"),
    [
        ("y", ApprovalDecision.ONCE),
        ("Y", ApprovalDecision.ONCE),
        ("n", ApprovalDecision.DENY),
        ("N", ApprovalDecision.DENY),
    ],
)
async def test_prompt_and_answers(
    pty: Pty, state: PromptState, answer: str, decision: ApprovalDecision
) -> None:
    task = asyncio.create_task(pty.terminal(state).approve(RG))
    assert await pty.until(APPROVAL_PROMPT) == EXPECTED_RG_PROMPT
    pty.type(answer)
    assert await task is decision
    assert state.always == set()


async def test_always_approves_the_tool_for_the_process(pty: Pty, state: PromptState) -> None:
    terminal = pty.terminal(state)
    mcp_call = ApprovalRequest("fs__read_file", '{"path":"/tmp"}', "mcp", server="fs")
    task = asyncio.create_task(terminal.approve(mcp_call))
    assert await pty.until(APPROVAL_PROMPT) == (
        'tool call: fs__read_file\narguments: {"path":"/tmp"}\n' + APPROVAL_PROMPT  # no command line for MCP
    )
    pty.type("a")
    assert await task is ApprovalDecision.SESSION
    assert state.always == {"fs__read_file"}
    # another interaction of the same process does not ask again
    again = await pty.terminal(state).approve(ApprovalRequest("fs__read_file", "{}", "mcp", server="fs"))
    assert again is ApprovalDecision.ONCE
    assert await pty.quiet(0.1) == ""


@pytest.mark.parametrize("answer", ["x", "yes", ""])
async def test_any_other_answer_is_an_error_without_reprompt(
    pty: Pty, state: PromptState, answer: str
) -> None:
    task = asyncio.create_task(pty.terminal(state).approve(RG))
    await pty.until(APPROVAL_PROMPT)
    pty.type(answer)
    with pytest.raises(ApprovalError, match="expected y, n or a"):
        await task
    assert await pty.quiet(0.1) == ""


async def test_prompt_omits_the_command_line_when_argv_does_not_render(pty: Pty, state: PromptState) -> None:
    task = asyncio.create_task(
        pty.terminal(state).approve(ApprovalRequest("tool__rg", "{}", "tool", command=None))
    )
    assert await pty.until(APPROVAL_PROMPT) == "tool call: tool__rg\narguments: {}\n" + APPROVAL_PROMPT
    pty.type("n")
    assert await task is ApprovalDecision.DENY


async def test_non_tty_stdin_is_an_error(state: PromptState) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"y\n")
    stderr = io.StringIO()
    with open(read_end, encoding="utf-8") as piped:
        terminal = TerminalInteraction(stdin=piped, stderr=stderr, state=state)
        with pytest.raises(ApprovalError, match="stdin is not a TTY"):
            await terminal.approve(RG)
    os.close(write_end)
    assert stderr.getvalue() == ""  # nothing was prompted


async def test_concurrent_prompts_never_interleave(pty: Pty, state: PromptState) -> None:
    first = asyncio.create_task(pty.terminal(state).approve(ApprovalRequest("a__one", "{}", "mcp")))
    second = asyncio.create_task(pty.terminal(state).approve(ApprovalRequest("b__two", "{}", "mcp")))
    shown = await pty.until(APPROVAL_PROMPT)
    assert await pty.quiet() == ""  # the other prompt waits for the lock
    pty.type("y")
    shown2 = await pty.until(APPROVAL_PROMPT)
    pty.type("n")
    decisions = {shown.splitlines()[0]: None, shown2.splitlines()[0]: None}
    assert set(decisions) == {"tool call: a__one", "tool call: b__two"}
    results = {await first, await second}
    assert results == {ApprovalDecision.ONCE, ApprovalDecision.DENY}


async def test_a_cancelled_read_keeps_the_lock_until_it_returns(pty: Pty, state: PromptState) -> None:
    abandoned = asyncio.create_task(pty.terminal(state).approve(ApprovalRequest("a__one", "{}", "mcp")))
    await pty.until(APPROVAL_PROMPT)
    abandoned.cancel()
    with pytest.raises(asyncio.CancelledError):
        await abandoned
    nxt = asyncio.create_task(pty.terminal(state).approve(ApprovalRequest("b__two", "{}", "mcp")))
    assert await pty.quiet() == ""  # still locked by the pending read
    pty.type("y")  # answers the abandoned prompt and is discarded
    assert await pty.until(APPROVAL_PROMPT) == "tool call: b__two\narguments: {}\n" + APPROVAL_PROMPT
    pty.type("n")
    assert await nxt is ApprovalDecision.DENY


async def test_cancel_while_waiting_for_the_lock_never_prompts(pty: Pty, state: PromptState) -> None:
    holder = asyncio.create_task(pty.terminal(state).approve(ApprovalRequest("a__one", "{}", "mcp")))
    await pty.until(APPROVAL_PROMPT)
    waiter = asyncio.create_task(pty.terminal(state).approve(ApprovalRequest("b__two", "{}", "mcp")))
    await asyncio.sleep(0.1)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    pty.type("y")
    assert await holder is ApprovalDecision.ONCE
    assert await pty.quiet() == ""  # b__two was never shown


async def test_loops_with_approval_through_the_terminal(
    pty: Pty, state: PromptState, llm_server: ScriptedOpenAIServer, client: ChatClient, tmp_path: Path
) -> None:
    """Two concurrent tool loops, one terminal: prompts come one at a time and answers apply."""
    log = tmp_path / "log"
    source = shell_source(
        {"note": {"command": ["sh", "-c", f"echo {{{{ input.msg }}}} >> {log}; echo noted"]}}
    )
    llm_server.push(
        tool_calls(call("tool__note", {"msg": "same"})),
        tool_calls(call("tool__note", {"msg": "same"})),
        text("done"),
        text("done"),
    )
    terminal = pty.terminal(state)

    async def one_loop() -> list[str]:
        tools = await ToolSet.assemble([source])
        result = await run_tool_loop(
            caller_for(llm_server, client),
            [user_message("go")],
            tools,
            terminal,
            LoopOptions(approve_tools=True),
        )
        return [m["content"] for m in result.messages if m["role"] == "tool"]

    loops = asyncio.gather(one_loop(), one_loop())
    prompt = (
        'tool call: tool__note\narguments: {"msg":"same"}\n'
        f'command: ["sh", "-c", "echo same >> {log}; echo noted"]\n' + APPROVAL_PROMPT
    )
    assert await pty.until(APPROVAL_PROMPT) == prompt
    assert await pty.quiet() == ""
    pty.type("y")
    assert await pty.until(APPROVAL_PROMPT) == prompt
    pty.type("n")
    outcomes = sorted(tuple(r) for r in await loops)
    assert outcomes == [("denied interactively (--approve-tools)",), ("noted",)]
    assert log.read_text() == "same\n"


# -- elicitation -----------------------------------------------------------------------------------
CITY = ElicitationRequest(
    "weather",
    "form",
    "Which city?",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "days": {"type": "integer", "title": "Days"},
        },
        "required": ["city"],
    },
    allowed=True,
)


@pytest.mark.parametrize(
    ("answer", "result"),
    [
        ('{"city": "Tokyo"}', ElicitationResult("accept", {"city": "Tokyo"})),
        ("decline", ElicitationResult("decline")),
        ("CANCEL", ElicitationResult("cancel")),
        ("Tokyo", ElicitationResult("decline")),
        ("[1]", ElicitationResult("decline")),
    ],
)
async def test_elicitation_form(pty: Pty, state: PromptState, answer: str, result: ElicitationResult) -> None:
    task = asyncio.create_task(pty.terminal(state).elicit(CITY))
    shown = await pty.until("fill in the form: ")
    assert shown.splitlines()[:3] == [
        "mcp_servers.weather: Which city?",
        "  - city (required): string — City name",
        "  - days: integer — Days",
    ]
    pty.type(answer)
    assert await task == result


async def test_elicitation_declines_without_asking_and_asks_for_urls(pty: Pty, state: PromptState) -> None:
    terminal = pty.terminal(state)
    not_allowed = ElicitationRequest("s", "form", "?", allowed=False)
    assert await terminal.elicit(not_allowed) == ElicitationResult("decline")
    assert await terminal.elicit(
        ElicitationRequest("s", "future-mode", "?", allowed=True)
    ) == ElicitationResult("decline")
    assert await pty.quiet(0.1) == ""
    # URL mode asks whether the person opens the URL themselves (Y/n/c); "n" declines
    url = ElicitationRequest("s", "url", "Log in", url="https://example.org/auth", allowed=True)
    task = asyncio.create_task(terminal.elicit(url))
    assert "https://example.org/auth" in await pty.until("/c(ancel)] ")
    pty.type("n")
    assert await task == ElicitationResult("decline")
    piped = TerminalInteraction(stdin=io.StringIO('{"city":"x"}\n'), stderr=io.StringIO(), state=state)
    assert await piped.elicit(CITY) == ElicitationResult("decline")


async def test_elicitation_uses_its_own_lock(pty: Pty, state: PromptState) -> None:
    """Spec 3.7: a separate lock, so an approval prompt does not block an elicitation."""
    state.approval_lock.acquire()
    try:
        task = asyncio.create_task(pty.terminal(state).elicit(CITY))
        await pty.until("fill in the form: ")
        pty.type("decline")
        assert await task == ElicitationResult("decline")
    finally:
        state.approval_lock.release()


# -- ask -------------------------------------------------------------------------------------------
async def test_ask_on_a_terminal(pty: Pty, state: PromptState) -> None:
    task = asyncio.create_task(pty.terminal(state).ask(Question("Deploy?", ("yes", "no"))))
    assert await pty.until("choices: yes, no\n") == "Deploy?\nchoices: yes, no\n"
    pty.type("yes")
    assert await task == "yes"


async def test_ask_without_a_terminal(state: PromptState) -> None:
    piped = TerminalInteraction(stdin=io.StringIO("typed\n"), stderr=io.StringIO(), state=state)
    assert await piped.ask(Question("Deploy?", default="no")) == "no"
    with pytest.raises(AskError, match="no 'default:' is set"):
        await piped.ask(Question("Deploy?"))
    headless = HeadlessInteraction(answers={"Q": "A"})
    assert await headless.ask(Question("Q")) == "A"
    assert await headless.elicit(CITY) == ElicitationResult("decline")


# -- events ----------------------------------------------------------------------------------------
def test_terminal_events() -> None:
    out, err = io.StringIO(), io.StringIO()
    terminal = TerminalInteraction(stdin=io.StringIO(), stdout=out, stderr=err, show_reasoning=True)
    for e in (
        ReasoningDelta("think"),
        ReasoningDelta("ing"),
        TextDelta("Hel"),
        TextDelta("lo"),
        StreamEnded(final=False),
    ):
        terminal.event(e)
    terminal.event(TextDelta(" again"))
    terminal.event(StreamEnded(final=True))
    terminal.event(WarningEvent("request to x failed"))
    assert out.getvalue() == "Reasoning:\nthinking\n\nHello again\n"
    assert err.getvalue() == "warning: request to x failed\n"
    quiet = TerminalInteraction(stdin=io.StringIO(), stdout=(o := io.StringIO()), stderr=io.StringIO())
    quiet.event(ReasoningDelta("hidden"))
    quiet.event(TextDelta("shown"))
    assert o.getvalue() == "shown"


def test_tool_call_line_shows_compact_arguments_whatever_the_model_spacing() -> None:
    """Issue 12 item 7: `-v` prints `tool call: NAME ARGS` with ARGS as compact JSON, so the line does
    not depend on the spacing a model (or a CPU's arithmetic) produced; text that is not JSON is shown
    as it is."""
    from lait_cli.support.terminal_dialogs import TerminalInteraction
    from lait_core.engine.run.interaction import ToolCallStarted

    err = io.StringIO()
    terminal = TerminalInteraction(stdin=io.StringIO(), stdout=io.StringIO(), stderr=err, verbose=True)
    for arguments in ('{ "a": 2, "b": 3 }', '{"a":2,"b":3}', '{\n  "a" : 2 ,\n"b":3}'):
        terminal.event(ToolCallStarted("c1", "tool__add", arguments))
    terminal.event(ToolCallStarted("c2", "tool__note", '{ "text": "café, ok" }'))
    terminal.event(ToolCallStarted("c3", "tool__bad", "{not json"))
    assert err.getvalue().splitlines() == [
        'tool call: tool__add {"a":2,"b":3}',
        'tool call: tool__add {"a":2,"b":3}',
        'tool call: tool__add {"a":2,"b":3}',
        'tool call: tool__note {"text":"café, ok"}',
        "tool call: tool__bad {not json",
    ]
