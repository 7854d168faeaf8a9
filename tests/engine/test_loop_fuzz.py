"""Issue 19 acceptance: random tool-call batches thrown at the tool loop 200 times (seeded).

Each batch holds one to five calls drawn from: valid calls of a fast tool, a slow tool (it
outlives its 1 s timeout), tools whose ``sh -c`` forks a background child that keeps the pipes
open, that detaches from them, or that forks a child which forks again; arguments that are not
JSON, that hold a raw NUL (not JSON either) or an escaped one (a NUL in argv), arguments too
large for one argv item, and unknown tool names. Expected: an unknown name aborts with
``UnknownToolError`` before anything runs, else any non-JSON arguments abort with
``ToolArgumentsError``, else the loop ends with the model's answer; never a hang past the
timeouts, and no process of the batch left running afterwards. Eight loops run at a time, each
against its own scripted model server."""

from __future__ import annotations

import asyncio
import json
import os
import random
import uuid
from typing import Any

from lait_core.engine.llm.chat_types import ToolArgumentsError, UnknownToolError, user_message
from lait_core.engine.llm.client import ChatClient
from lait_core.engine.processes.spawn import live_groups
from lait_core.engine.run.interaction import HeadlessInteraction
from lait_core.engine.run.tool_loop import LoopResult, run_tool_loop
from lait_core.engine.tools import ToolSet
from tests.engine.conftest import caller_for, shell_source
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.processes import running_with_marker

SEED = 19
BATCHES = 200
LANES = 8
HANG_LIMIT = 30.0
"""Every tool times out after 1 s; only a hang gets near this."""

TOOLS: dict[str, dict[str, Any]] = {
    "fast": {"command": ["echo", "{{ input.a }}"], "timeout": 1},
    "slow": {"command": ["sleep", "30"], "timeout": 1},
    "holds": {"command": ["sh", "-c", "sleep 30 & echo started"], "timeout": 1},
    "detaches": {"command": ["sh", "-c", "sleep 30 >/dev/null 2>&1 & echo detached"], "timeout": 1},
    "nested": {"command": ["sh", "-c", "sh -c 'sleep 30 & sleep 30' & sleep 30"], "timeout": 1},
}
KINDS = ["valid"] * 10 + ["bad-json", "raw-nul", "escaped-nul", "huge", "unknown"]


def random_call(rng: random.Random, index: int) -> tuple[dict[str, Any], str]:
    """One call and its kind."""
    kind = rng.choice(KINDS)
    # the slow and forking tools are rarer than the fast one, to keep the run short
    name = rng.choice(["fast"] * 6 + ["slow", "holds", "detaches", "nested"])
    cid = f"c{index}"
    if kind == "valid":
        return call(f"tool__{name}", {"a": f"x{index}"}, id=cid), kind
    if kind == "bad-json":
        return call(f"tool__{name}", rng.choice(["{bad json", '{"a": ', "[1, 2", "}"]), id=cid), kind
    if kind == "raw-nul":
        return call(f"tool__{name}", '{"a": "x\0y"}', id=cid), kind
    if kind == "escaped-nul":
        return call("tool__fast", json.dumps({"a": "x\0y"}), id=cid), kind
    if kind == "huge":  # beyond the kernel's limit for one argv item (128 KiB): a spawn failure
        return call("tool__fast", {"a": "y" * rng.randint(200_000, 1_000_000)}, id=cid), kind
    return call(rng.choice(["tool__nope", "nope", "tool__" + "z" * 300]), {}, id=cid), kind


def expected(kinds: list[str]) -> type[BaseException] | None:
    if "unknown" in kinds:
        return UnknownToolError
    if "bad-json" in kinds or "raw-nul" in kinds:
        return ToolArgumentsError
    return None


async def one_batch(client: ChatClient, server: ScriptedOpenAIServer, rng: random.Random) -> None:
    picked = [random_call(rng, i) for i in range(rng.randint(1, 5))]
    calls, kinds = [c for c, _ in picked], [k for _, k in picked]
    marker = uuid.uuid4().hex
    server.clear()
    server.push(tool_calls(*calls), text("done"))
    source = shell_source(TOOLS, environ={**os.environ, "LAIT_TEST_MARKER": marker})
    tools = await ToolSet.assemble([source])
    interaction = HeadlessInteraction()
    loop = run_tool_loop(caller_for(server, client, interaction), [user_message("go")], tools, interaction)
    want = expected(kinds)
    outcome: LoopResult | BaseException
    try:
        outcome = await asyncio.wait_for(loop, HANG_LIMIT)
    except (ToolArgumentsError, UnknownToolError) as exc:
        outcome = exc
    assert running_with_marker(marker) == [], kinds
    if want is None:
        assert isinstance(outcome, LoopResult), (kinds, outcome)
        assert outcome.response.content == "done"
        results = {m["tool_call_id"]: m["content"] for m in outcome.messages if m["role"] == "tool"}
        for c, kind in picked:
            if kind in ("escaped-nul", "huge"):
                assert results[c["id"]].startswith("tool command failed: "), (kind, results[c["id"]][:200])
    else:
        assert isinstance(outcome, want), (kinds, outcome)


async def lane(client: ChatClient, seed: int, count: int) -> None:
    rng = random.Random(seed)
    with ScriptedOpenAIServer() as server:
        for _ in range(count):
            await one_batch(client, server, rng)


async def test_random_tool_call_batches_never_hang_or_leak() -> None:
    async with ChatClient(timeout=HANG_LIMIT) as client:
        await asyncio.gather(*(lane(client, SEED * 100 + k, BATCHES // LANES) for k in range(LANES)))
    assert live_groups() == frozenset()
