"""`notifications/tools/list_changed` drops the pool's cached tool list: the next listing asks the
real server again (tests/peers/mcp_url_server.py adds a tool in `grow` and notifies)."""

from __future__ import annotations

import asyncio
import sys

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.run.interaction import HeadlessInteraction
from lait_core.engine.tools.base import CallContext
from tests.mcp.conftest import REPO, Pools


async def test_list_changed_drops_the_cached_list(pools: Pools) -> None:
    config = McpServerConfig(command=sys.executable, args=["-m", "tests.peers.mcp_url_server"], cwd=str(REPO))
    pool = pools({"shop": config})
    source = pool.source("shop")
    before = [t.name for t in await source.list_tools()]
    assert "extra" not in before and "grow" in before
    assert [t.name for t in await source.list_tools()] == before  # cached: no second tools/list
    grow = next(t for t in await source.list_tools() if t.name == "grow")
    result = await source.call(grow, "{}", CallContext(HeadlessInteraction(), "c1"))
    assert result.text.startswith("grown")
    for _ in range(200):  # the notification is handled on the connection's own task
        if pool._servers["shop"].listing is None:
            break
        await asyncio.sleep(0.05)
    after = [t.name for t in await source.list_tools()]
    assert after == [*before, "extra"]
    extra = next(t for t in await source.list_tools() if t.name == "extra")
    assert (await source.call(extra, "", CallContext(HeadlessInteraction(), "c2"))).text.startswith(
        "extra here"
    )
