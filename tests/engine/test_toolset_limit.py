"""At most 8,192 tools in one tool set, all sources together (docs/mcp.md)."""

from __future__ import annotations

import pytest

from lait_core.engine.llm.chat_types import ToolNameError
from lait_core.engine.tools.base import (
    MAX_TOOLS,
    CallContext,
    Tool,
    ToolKind,
    ToolResult,
    ToolSet,
    ToolSource,
)


class NumberedTools(ToolSource):
    """A source offering ``count`` trivial tools named ``<prefix>_<n>``."""

    kind = ToolKind.SHELL

    def __init__(self, prefix: str, count: int) -> None:
        self.prefix = prefix
        self.count = count

    async def list_tools(self) -> list[Tool]:
        return [
            Tool(f"{self.prefix}_{i}", f"{self.prefix}_{i}", None, {"type": "object"}, self.kind, self)
            for i in range(self.count)
        ]

    async def call(self, tool: Tool, arguments: str, ctx: CallContext) -> ToolResult:
        return ToolResult(tool.name)


async def test_exactly_the_limit_is_fine() -> None:
    tools = await ToolSet.assemble([NumberedTools("a", MAX_TOOLS - 1), NumberedTools("b", 1)])
    assert len(tools) == MAX_TOOLS


async def test_one_more_than_the_limit_across_sources_is_an_error() -> None:
    with pytest.raises(ToolNameError, match="too many tools for one request: more than 8,192"):
        await ToolSet.assemble([NumberedTools("a", MAX_TOOLS), NumberedTools("b", 1)])
