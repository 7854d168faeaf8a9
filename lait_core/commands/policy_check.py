"""``lait policy test``: the verdict a configured project gives a call, without running anything.

:func:`evaluate` finds what a qualified name refers to (an MCP server's tool when its prefix is a
configured server, else a shell tool, subagent, skill or served workflow), gathers the facts the
run would have -- the merged ``tool_policy``, the server's ``allowed_tools``, ``lait.lock`` -- and
hands them to :func:`lait_core.engine.tools.tool_decision.decide`, the function the tool loop uses.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lait_core.documents.document_models import Config
from lait_core.engine.mcp.lock import McpLock, launch_entry
from lait_core.engine.tools.naming import AGENT_PREFIX, SHELL_PREFIX, SKILL_PREFIX, WORKFLOW_PREFIX, sanitize
from lait_core.engine.tools.standing_grants import GRANTS_FILE, Grants, grant_target
from lait_core.engine.tools.tool_decision import Verdict, decide, read_only_reason
from lait_core.engine.tools.tool_policy import Policy, allowed_tools_refusal


class CaseError(ValueError):
    """A case that is not ``NAME [JSON-object]``."""


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    arguments: str
    """The JSON text of the arguments ('' for none)."""


@dataclass(frozen=True, slots=True)
class Evaluated:
    case: Case
    kind: str
    """``mcp``, ``shell``, ``agent``, ``skill``, ``workflow`` or ``unknown`` (nothing configured offers it)."""
    server: str | None
    verdict: Verdict


def parse_case(text: str) -> Case:
    """``'server__tool {"a": 1}'``: the name, then optionally a JSON object of arguments."""
    stripped = text.strip()
    if not stripped:
        raise CaseError(
            "an empty case; write a tool name like 'notes__add_note', optionally followed by JSON"
        )
    name, _, rest = stripped.partition(" ")
    rest = rest.strip()
    if rest:
        try:
            value = json.loads(rest)
        except ValueError as exc:
            raise CaseError(f"'{stripped}': the arguments are not valid JSON: {exc}") from None
        if not isinstance(value, dict):
            raise CaseError(f"'{stripped}': the arguments must be a JSON object, like '{{\"a\": 1}}'")
    return Case(name, rest)


def _server_of(config: Config, name: str) -> tuple[str, str] | None:
    """The configured server whose qualified prefix starts ``name``, and the tool's name."""
    best: tuple[str, str] | None = None
    for server in config.mcp_servers:
        prefix = sanitize(server) + "__"
        if name.startswith(prefix) and (best is None or len(server) > len(best[0])):
            best = (server, name[len(prefix) :])
    return best


def _kind(config: Config, name: str) -> str:
    prefix, _, rest = name.partition("__")
    known: dict[str, tuple[str, Mapping[str, object]]] = {
        SHELL_PREFIX: ("shell", config.tools),
        AGENT_PREFIX: ("agent", config.agents),
        SKILL_PREFIX: ("skill", config.skills),
        WORKFLOW_PREFIX: ("workflow", config.workflows),
    }
    if prefix in known:
        kind, entries = known[prefix]
        return kind if any(sanitize(k) == rest for k in entries) else "unknown"
    return "unknown"


def evaluate(
    case: Case,
    config: Config,
    lock: McpLock | None,
    *,
    approve: bool,
    approval: str = "--approve-tools",
    grants: Grants | None = None,
) -> Evaluated:
    """The verdict a run of this project would give ``case``."""
    policy = Policy.from_config(config.tool_policy)
    found = _server_of(config, case.name)
    if found is not None:
        server, tool = found
        server_config = config.mcp_servers[server]
        refusal = allowed_tools_refusal(server, tool, server_config.allowed_tools)
        lock_refusal = lock.unpinned(server, tool) if lock is not None else None
        key: tuple[str | None, str | None] = (server, grant_target(launch_entry(server_config)))
        kind = "mcp"
    else:
        refusal = lock_refusal = None
        key = (None, None)
        kind = _kind(config, case.name)
    grant = grants.find(case.name, *key) if grants is not None and approve else None
    read_only = None
    if kind == "mcp" and lock is not None and key[0] is not None:
        pinned = (lock.servers.get(key[0]) or {}).get("tools") or {}
        entry = pinned.get(found[1]) if found is not None else None
        annotations = entry.get("annotations") if isinstance(entry, dict) else None
        read_only = read_only_reason(
            key[0], annotations if isinstance(annotations, dict) else None, config.approvals.read_only
        )
    verdict = decide(
        case.name,
        policy,
        refusal=refusal,
        lock_refusal=lock_refusal,
        approve=approve,
        approval=approval,
        granted=None if grant is None else f"granted {grant.granted} in {GRANTS_FILE}",
        read_only=read_only,
    )
    return Evaluated(case, kind, key[0], verdict)


def project_lock(config_dir: Path) -> McpLock | None:
    from lait_core.engine.mcp.lock import load_lock

    return load_lock(config_dir)
