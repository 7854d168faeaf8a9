"""LAIT101 config-unknown-key: lait.config.yml has a key lait does not know."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

C = "lait.config.yml"

CODE = "LAIT101"

RULE = rule(
    CODE,
    "config-unknown-key",
    Severity.ERROR,
    "lait.config.yml has a key lait does not know.",
    "Config parsing is strict at every level (top level, `default`, `models` entries, `provider`, "
    "`mcp_servers`, `tools`, `tool_policy`, `jev`), so a typo is an error rather than a silently ignored "
    "setting. The message suggests the closest known key, and the language server offers it as a fix.",
    Example("defualt:\n  model: qwen\n", filename=C),
    Example("default:\n  model: qwen\n", filename=C),
)
