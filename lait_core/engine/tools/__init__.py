"""Tool sources: the interface (:mod:`.base`), qualified naming (:mod:`.naming`) and one module per
source (:mod:`.shell` now; MCP, subagents and skills plug into the same interface)."""

from lait_core.engine.tools.base import (
    DEFAULT_PARAMETERS,
    CallContext,
    Tool,
    ToolKind,
    ToolResult,
    ToolSet,
    ToolSource,
    parse_arguments,
)
from lait_core.engine.tools.naming import qualify, sanitize

__all__ = [
    "DEFAULT_PARAMETERS",
    "CallContext",
    "Tool",
    "ToolKind",
    "ToolResult",
    "ToolSet",
    "ToolSource",
    "parse_arguments",
    "qualify",
    "sanitize",
]
