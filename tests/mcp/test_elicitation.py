"""Elicitation (docs/mcp.md) end to end: the peer asks, lait's TerminalInteraction
answers from a real pty (or a non-TTY stream), in both protocol eras (2026-07-28
``input_required`` rounds through resolvers; 2025-11-25 ``elicitation/create`` via ``ctx.elicit``)."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Iterator
from typing import TextIO

import pytest

from lait_cli.support.terminal_dialogs import PromptState, TerminalInteraction
from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.run.interaction import HeadlessInteraction, Interaction
from lait_core.engine.tools.base import CallContext, ToolResult
from lait_core.engine.tools.mcp_tools import McpToolSource
from tests.mcp.conftest import HttpPeer, Pools, peer


class Pty:
    """A pty whose slave side is the interaction's stdin; answers are typed into the master."""

    def __init__(self) -> None:
        self.master, slave = os.openpty()
        self.stdin: TextIO = open(slave, encoding="utf-8")  # noqa: SIM115
        self.stderr = io.StringIO()

    def type(self, *lines: str) -> None:
        for line in lines:
            os.write(self.master, line.encode() + b"\n")

    def interaction(self) -> TerminalInteraction:
        return TerminalInteraction(
            stdin=self.stdin, stderr=self.stderr, stdout=io.StringIO(), state=PromptState()
        )

    def close(self) -> None:
        os.close(self.master)  # first: a prompt thread still reading gets EIO and lets go of stdin
        self.stdin.close()


@pytest.fixture
def pty() -> Iterator[Pty]:
    p = Pty()
    try:
        yield p
    finally:
        p.close()


async def run(source: McpToolSource, name: str, args: str, interaction: Interaction) -> ToolResult:
    tools = {t.name: t for t in await source.list_tools()}
    return await source.call(tools[name], args, CallContext(interaction, "c1"))


def first(result: ToolResult) -> str:
    return result.text.split("\n\n")[0]


GREET = '{"greeting": "hi"}'


async def test_form_json_answers_over_two_rounds_2026(pools: Pools, pty: Pty) -> None:
    source = pools({"peer": peer(allow_elicitation=True)}).source("peer")
    pty.type('{"name": "Tokyo"}', '{"ok": true, "note": "yes"}')
    result = await run(source, "greet", GREET, pty.interaction())
    assert first(result) == "hi, Tokyo! (ok=True note=yes; proto 2026-07-28)"
    err = pty.stderr.getvalue()
    assert "mcp_servers.peer: hi: what is your name?\n  - name (required): string — Your name\n" in err
    assert "mcp_servers.peer: Greet Tokyo?\n  - ok (required): boolean — Really do it?\n" in err
    assert '  - note: string — Anything to add (default: "")\n' in err
    assert (
        err.count(
            "answer with one line of JSON (an object), or 'decline' / 'cancel', or press Enter to fill in the form: "
        )
        == 2
    )


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        (["decline", "DECLINE"], "hi, <decline>! (decline; proto 2026-07-28)"),
        (["cancel", "Cancel"], "hi, <cancel>! (cancel; proto 2026-07-28)"),
        (["what?", "[1, 2]"], "hi, <decline>! (decline; proto 2026-07-28)"),
    ],
)
async def test_form_decline_cancel_and_anything_else(
    pools: Pools, pty: Pty, answers: list[str], expected: str
) -> None:
    source = pools({"peer": peer(allow_elicitation=True)}).source("peer")
    pty.type(*answers)
    assert first(await run(source, "greet", GREET, pty.interaction())) == expected
    if answers[0] == "what?":
        assert pty.stderr.getvalue().count("note: the answer is not a JSON object; declining") == 2


async def test_declined_without_prompt_when_not_allowed_or_not_a_tty(pools: Pools, pty: Pty) -> None:
    pool = pools({"off": peer(), "on": peer("--legacy", allow_elicitation=True)})
    pty.type('{"name": "never read"}')
    assert first(await run(pool.source("off"), "greet", GREET, pty.interaction())) == (
        "hi, <decline>! (decline; proto 2026-07-28)"
    )
    assert pty.stderr.getvalue() == ""
    piped = io.StringIO('{"name": "piped"}\n')
    err = io.StringIO()
    not_a_tty = TerminalInteraction(stdin=piped, stderr=err, state=PromptState())
    assert first(await run(pool.source("on"), "ask_legacy", '{"topic": "x"}', not_a_tty)) == "legacy decline"
    assert err.getvalue() == ""
    assert piped.read() == '{"name": "piped"}\n'


async def test_legacy_ctx_elicit_and_url_mode(pools: Pools, pty: Pty) -> None:
    source = pools({"old": peer("--legacy", allow_elicitation=True)}).source("old")
    pty.type('{"name": "Kyoto"}')
    interaction = pty.interaction()
    assert (
        first(await run(source, "ask_legacy", '{"topic": "cities"}', interaction)) == "legacy answer: Kyoto"
    )
    assert "mcp_servers.old: Tell me about cities\n  - name (required): string — Your name\n" in (
        pty.stderr.getvalue()
    )
    pty.type("n")
    assert first(await run(source, "ask_url", "", interaction)) == "url decline"
    assert (
        "mcp_servers.old: Sign in\n  open this URL in your browser (lait does not open it): "
        "https://example.invalid/login\n  the server continues when you are done there\n"
    ) in pty.stderr.getvalue()
    pty.type("")
    assert first(await run(source, "ask_url", "", interaction)) == "url accept"
    pty.type("decline", "cancel")
    assert (
        first(await run(source, "greet", GREET, interaction)) == "hi, <decline>! (cancel; proto 2025-11-25)"
    )


async def test_prompts_from_two_servers_are_serialised(pools: Pools, pty: Pty) -> None:
    pool = pools(
        {"a": peer("--legacy", allow_elicitation=True), "b": peer("--legacy", allow_elicitation=True)}
    )
    await asyncio.gather(pool.source("a").list_tools(), pool.source("b").list_tools())
    interaction = pty.interaction()
    pty.type('{"name": "first"}', '{"name": "second"}')
    results = await asyncio.gather(
        run(pool.source("a"), "ask_legacy", '{"topic": "A"}', interaction),
        run(pool.source("b"), "ask_legacy", '{"topic": "B"}', interaction),
    )
    answers = sorted(first(r) for r in results)
    assert answers == ["legacy answer: first", "legacy answer: second"]
    err = pty.stderr.getvalue()
    prompt = "answer with one line of JSON (an object), or 'decline' / 'cancel', or press Enter to fill in the form: "
    blocks = [b for b in err.split(prompt) if b]
    assert len(blocks) == 2
    assert all(b.count("mcp_servers.") == 1 for b in blocks)  # no prompt printed inside another


async def test_input_required_rounds_are_bounded(pools: Pools) -> None:
    source = pools({"peer": peer(allow_elicitation=True)}).source("peer")
    result = await run(source, "ask_forever", '{"topic": "x"}', HeadlessInteraction())
    assert result.is_error
    assert result.text == (
        "isError: true\n\nMCP server 'peer' asked for more input more than 16 times during one call of "
        "'ask_forever'; lait gave up"
    )
    assert first(await run(source, "add", '{"a": 1, "b": 2}', HeadlessInteraction())) == "3"


async def test_input_required_rounds_over_http(pools: Pools, http_peer: HttpPeer, pty: Pty) -> None:
    source = pools({"web": McpServerConfig(url=http_peer.url, allow_elicitation=True)}).source("web")
    pty.type('{"name": "Osaka"}', "cancel")
    result = await run(source, "greet", GREET, pty.interaction())
    assert first(result) == "hi, Osaka! (cancel; proto 2026-07-28)"
    assert "mcp_servers.web: hi: what is your name?\n" in pty.stderr.getvalue()


async def test_a_read_error_declines_with_a_note(pools: Pools) -> None:
    master, slave = os.openpty()
    stdin = open(slave, encoding="utf-8")  # noqa: SIM115
    err = io.StringIO()
    try:
        interaction = TerminalInteraction(stdin=stdin, stderr=err, stdout=io.StringIO(), state=PromptState())
        source = pools({"peer": peer(allow_elicitation=True)}).source("peer")
        task = asyncio.create_task(run(source, "greet", GREET, interaction))
        for _ in range(400):
            if "press Enter to fill in the form: " in err.getvalue():
                break
            await asyncio.sleep(0.025)
        os.close(master)  # the terminal goes away while lait reads the answer (EIO)
        result = await task
    finally:
        stdin.close()
    assert first(result) == "hi, <decline>! (decline; proto 2026-07-28)"
    # the first question: a note; the second: no longer a terminal, declined without a prompt
    assert err.getvalue().count("note: could not read the answer; declining\n") == 1
    assert err.getvalue().count("mcp_servers.peer:") == 1


async def test_an_unknown_mode_is_declined_without_a_prompt(pty: Pty) -> None:
    from types import SimpleNamespace

    from lait_core.engine.mcp import elicitation

    params = SimpleNamespace(mode="telepathy", message="think of a number")
    answer = await elicitation.answer("future", params, True, pty.interaction())
    assert answer.action == "decline"
    assert pty.stderr.getvalue() == ""
