"""``lait policy test`` and the tool loop share one decision function: for each case, the verdict
:func:`lait_core.commands.policy_check.evaluate` gives from the config alone (nothing runs) is what a
real tool loop over the real peer does, and its message is, character for character, what the
model reads (a ``tool_policy`` denial) or the run's error (``allowed_tools``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.commands.policy_check import Case, evaluate
from lait_core.documents.document_models import Config
from lait_core.engine.llm.chat_types import AllowedToolsError, user_message
from lait_core.engine.llm.client import ChatClient
from lait_core.engine.run.interaction import HeadlessInteraction
from lait_core.engine.run.tool_loop import LoopOptions, run_tool_loop
from lait_core.engine.tools.base import ToolSet
from lait_core.engine.tools.tool_policy import Policy
from tests.engine.conftest import FAST_RETRY, caller_for
from tests.mcp.conftest import Pools, peer
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

CASES = [
    ("peer__echo", {"deny": ["*__echo"]}, None),
    ("peer__echo", {"allow": ["peer__add"]}, None),
    ("peer__echo", {"allow": ["*"], "deny": ["peer__e*"]}, None),
    ("peer__echo", {}, ["add"]),
    ("peer__echo", {}, []),
    ("peer__echo", {"allow": ["peer__*"]}, ["echo"]),
    ("peer__echo", {}, None),
]


@pytest.mark.parametrize(("name", "tool_policy", "allowed"), CASES)
async def test_the_loop_does_what_policy_test_says(
    pools: Pools,
    llm_server: ScriptedOpenAIServer,
    tmp_path: Path,
    name: str,
    tool_policy: dict[str, list[str]],
    allowed: list[str] | None,
) -> None:
    marker = tmp_path / "marker"
    server = peer("--marker", str(marker), allowed_tools=allowed)
    config = Config.model_validate(
        {"mcp_servers": {"peer": server.model_dump(exclude_none=True)}, "tool_policy": tool_policy}
    )
    verdict = evaluate(Case(name, '{"text": "hi"}'), config, None, approve=False).verdict

    pool = pools({"peer": server})
    tools = await ToolSet.assemble([pool.source("peer")])
    llm_server.push(tool_calls(call(name, {"text": "hi"})), text("done"))
    options = LoopOptions(policy=Policy.from_config(config.tool_policy))
    async with ChatClient(timeout=10.0, retry=FAST_RETRY) as client:
        try:
            await run_tool_loop(
                caller_for(llm_server, client), [user_message("go")], tools, HeadlessInteraction(), options
            )
        except AllowedToolsError as exc:
            assert (verdict.outcome, verdict.source, verdict.hard) == ("deny", "allowed_tools", True)
            assert str(exc) == verdict.message
            return
    result = [m["content"] for m in llm_server.bodies[-1]["messages"] if m["role"] == "tool"]
    calls = [line for line in marker.read_text().splitlines() if line.startswith("call ")]
    if verdict.outcome == "deny":
        assert verdict.source == "tool_policy" and not verdict.hard
        assert result == [verdict.message]  # the model reads the explanation itself
        assert calls == []
    else:
        assert verdict.outcome == "allow"
        assert result[0].split("\n\n")[0] == "hi" and calls == ["call echo hi"]
