"""Hover on a ``tool_policy`` pattern of lait.config.yml: which known tools it matches and what the
tool loop would decide for each, through :func:`lait_core.engine.tools.tool_decision.decide` (the function
``lait policy test`` and the loop use), so the editor shows the same explanation a model gets.

Known tools are the ones the config names without starting anything: shell tools (``tool__x``),
registered agents (``agent__x``) and skills (``skill__x``), and the MCP tools pinned in the
``lait.lock`` beside the file (read bounded; a missing or broken lock just adds none). The policy is
this file's (a global config's patterns are not included here; ``lait policy test`` merges both).
"""

from __future__ import annotations

import json
from pathlib import Path

from lait_core.language.nodes import trail_at
from lait_core.syntax.positions import Position, Range
from lait_core.syntax.yaml.tree import MappingNode, ScalarNode, SequenceNode

MAX_LISTED = 12


def _patterns(root: MappingNode, key: str) -> tuple[str, ...]:
    policy = root.get("tool_policy")
    items = policy.get(key) if isinstance(policy, MappingNode) else None
    if not isinstance(items, SequenceNode):
        return ()
    return tuple(i.value for i in items.items if isinstance(i, ScalarNode) and isinstance(i.value, str))


def _names(root: MappingNode, section: str, prefix: str) -> list[str]:
    from lait_core.engine.tools.naming import sanitize

    entries = root.get(section)
    if not isinstance(entries, MappingNode):
        return []
    return [sanitize(f"{prefix}__{name}") for name in entries if isinstance(name, str)]


def _pinned(config_dir: Path) -> list[str]:
    from lait_core.engine.mcp.lock import LockError, load_lock
    from lait_core.engine.tools.naming import sanitize

    try:
        lock = load_lock(config_dir)
    except LockError:
        return []
    if lock is None:
        return []
    return [
        sanitize(f"{server}__{tool}")
        for server, entry in sorted(lock.servers.items())
        for tool in sorted(entry.get("tools") or {})
    ]


def policy_pattern_hover(root: MappingNode | None, pos: Position, path: str) -> tuple[str, Range] | None:
    """(markdown, the pattern's range) on a ``tool_policy.allow``/``deny`` item, else None."""
    if root is None:
        return None
    trail = trail_at(root, pos)
    keys = trail.keys
    node = trail.node
    if len(keys) != 3 or keys[0] != "tool_policy" or keys[1] not in ("allow", "deny") or trail.on_key:
        return None
    if not isinstance(node, ScalarNode) or not isinstance(node.value, str):
        return None
    from lait_core.engine.tools.tool_decision import decide
    from lait_core.engine.tools.tool_policy import Policy, glob_match

    pattern = node.value
    policy = Policy(_patterns(root, "allow"), _patterns(root, "deny"))
    known = [
        *_names(root, "tools", "tool"),
        *_names(root, "agents", "agent"),
        *_names(root, "skills", "skill"),
        *_pinned(Path(path).parent),
    ]
    matched = [name for name in dict.fromkeys(known) if glob_match(pattern, name)]
    lines = [f"**tool_policy.{keys[1]}** pattern `{pattern}`"]
    if not matched:
        lines.append(
            "\nmatches none of the tools this config names or `lait.lock` pins (MCP tools that are not "
            "pinned are not known without starting their server)."
        )
    else:
        lines.append("")
        for name in matched[:MAX_LISTED]:
            verdict = decide(name, policy)
            lines.append(f"- `{name}`: **{verdict.outcome}** — {json.dumps(verdict.message)[1:-1]}")
        if len(matched) > MAX_LISTED:
            lines.append(f"- and {len(matched) - MAX_LISTED} more")
    lines.append("\n`lait policy test NAME` shows the verdict with the global config and `--approve-tools`.")
    return "\n".join(lines), node.range
