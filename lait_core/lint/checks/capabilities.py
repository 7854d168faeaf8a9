"""LAIT501–LAIT505: capability names in workflows and agents against lait.config.yml."""

from __future__ import annotations

from lait_core.documents.document_models import Config
from lait_core.documents.validate import suggest
from lait_core.rules.capabilities.mcp_no_allowed_tools import CODE as MCP_NO_ALLOWED_TOOLS
from lait_core.rules.capabilities.names_not_checked import SkipTracker
from lait_core.rules.capabilities.unknown_mcp_server import CODE as UNKNOWN_MCP_SERVER
from lait_core.rules.capabilities.unknown_skill import CODE as UNKNOWN_SKILL
from lait_core.rules.capabilities.unknown_subagent import CODE as UNKNOWN_SUBAGENT
from lait_core.rules.capabilities.unknown_tool import CODE as UNKNOWN_TOOL
from lait_core.syntax.diagnostics import Diagnostic, Fix, Severity
from lait_core.syntax.yaml.tree import MappingNode, SequenceNode

_LISTS = (
    ("mcp", UNKNOWN_MCP_SERVER, "MCP server", "mcp_servers"),
    ("skills", UNKNOWN_SKILL, "skill", "skills"),
    ("subagents", UNKNOWN_SUBAGENT, "subagent", "agents"),
    ("tools", UNKNOWN_TOOL, "tool", "tools"),
)


def check_capabilities(
    owner: MappingNode, ctx: str, config: Config | None, out: list[Diagnostic], skip: SkipTracker
) -> None:
    for key, code, what, section in _LISTS:
        node = owner.get(key)
        if not isinstance(node, SequenceNode) or not node.items:
            continue
        if config is None:
            skip.skipped = True
            continue
        known: dict[str, object] = getattr(config, section)
        for item in node.items:
            name = item.to_python()
            if not isinstance(name, str):
                continue
            if name not in known:
                guess = suggest(name, list(known))
                hint = f"; did you mean '{guess}'?" if guess else ""
                fixes = (Fix(f"Replace with '{guess}'", item.range, guess),) if guess else ()
                out.append(
                    Diagnostic(
                        code,
                        f"{ctx} references unknown {what} '{name}'; define it under '{section}:' in"
                        f" lait.config.yml{hint}",
                        item.range,
                        fixes=fixes,
                    )
                )
            elif key == "mcp" and config.mcp_servers[name].allowed_tools == []:
                out.append(
                    Diagnostic(
                        MCP_NO_ALLOWED_TOOLS,
                        f"{ctx} references MCP server '{name}', whose 'allowed_tools' in lait.config.yml is an"
                        " empty list; every tool call to it will be rejected at runtime",
                        item.range,
                        Severity.WARNING,
                    )
                )
