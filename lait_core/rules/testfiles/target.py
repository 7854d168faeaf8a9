"""What a test or eval file points at: its target workflow, that workflow's step ids and the qualified
tool names it can call. Shared by the LAIT7xx checks and the editor (completion, hover, navigation)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from lait_core.documents.document_models import Config
from lait_core.documents.workflow_file import WorkflowDocument
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

_CAPABILITY_PREFIXES = (
    ("tools", "tool", "shell tool"),
    ("subagents", "agent", "subagent"),
    ("skills", "skill", "skill"),
)


def string_at(node: Node | None, *keys: str) -> ScalarNode | None:
    """The non-empty string scalar at ``keys`` below ``node`` (None when absent or not a string)."""
    for key in keys:
        node = node.get(key) if isinstance(node, MappingNode) else None
    if isinstance(node, ScalarNode) and isinstance(node.value, str) and node.value:
        return node
    return None


def workflow_node(root: Node | None) -> ScalarNode | None:
    """The scalar naming the target workflow: ``workflow:`` (test) or ``target: {workflow:}`` (eval)."""
    return string_at(root, "workflow") or string_at(root, "target", "workflow")


def resolve(file: Path, value: str) -> Path:
    """A path written in a test or eval file, relative to that file, normalised."""
    return Path(os.path.normpath(file.parent / value))


@dataclass(slots=True)
class ToolNames:
    """The qualified tool names a workflow can call."""

    exact: dict[str, str] = field(default_factory=dict)
    """Name -> what it is (``shell tool 'shout'``)."""
    servers: dict[str, str] = field(default_factory=dict)
    """MCP server -> ``SERVER__`` prefix (any of its tools)."""
    complete: bool = True
    """False when the workflow reaches tools lait does not follow (agent files, child workflows)."""

    def knows(self, name: str) -> bool:
        return name in self.exact or any(name.startswith(f"{server}__") for server in self.servers)


def _qualified(prefix: str, name: str) -> str:
    from lait_core.engine.tools.naming import sanitize

    return sanitize(f"{prefix}__{name}")


def _add_lists(owner: Node | None, out: ToolNames, config: Config | None) -> None:
    if not isinstance(owner, MappingNode):
        return
    for key, prefix, what in _CAPABILITY_PREFIXES:
        items = owner.get(key)
        if isinstance(items, SequenceNode):
            for item in items.items:
                if isinstance(item, ScalarNode) and isinstance(item.value, str) and item.value:
                    out.exact.setdefault(_qualified(prefix, item.value), f"{what} '{item.value}'")
    servers = owner.get("mcp")
    if isinstance(servers, SequenceNode):
        for item in servers.items:
            if isinstance(item, ScalarNode) and isinstance(item.value, str) and item.value:
                _add_server(item.value, out, config)


def _add_server(name: str, out: ToolNames, config: Config | None) -> None:
    server = config.mcp_servers.get(name) if config is not None else None
    allowed = server.allowed_tools if server is not None else None
    if allowed:  # a list of exact names: only those can be called
        for tool in allowed:
            if "*" not in tool and "?" not in tool:
                out.exact.setdefault(_qualified(name, tool), f"tool '{tool}' of MCP server '{name}'")
            else:
                out.servers.setdefault(name, f"MCP server '{name}'")
    else:
        out.servers.setdefault(_qualified(name, "")[:-2], f"MCP server '{name}'")


def tool_names(workflow: WorkflowDocument | None, config: Config | None) -> ToolNames:
    """Names from the ``tools``/``mcp``/``subagents``/``skills`` lists of the workflow's steps, inline
    agents and ``default:``, and of the config's ``default:``."""
    out = ToolNames()
    workflow_root = workflow.root if workflow is not None else None
    if workflow is None or not isinstance(workflow_root, MappingNode):
        return out
    _add_lists(workflow_root.get("default"), out, config)
    agents = workflow_root.get("agents")
    if isinstance(agents, MappingNode):
        for _k, _kn, value in agents.items():
            _add_lists(value, out, config)
    inline = {str(k) for k, _kn, _v in agents.items()} if isinstance(agents, MappingNode) else set()
    for step in workflow.all_steps():
        _add_lists(step.node, out, config)
        if step.kind == "workflow":
            out.complete = False
        elif step.kind == "agent":
            ref = step.node.get("agent")
            if not (isinstance(ref, ScalarNode) and ref.value in inline):
                out.complete = False
    if config is not None:
        default = config.default
        for key, prefix, what in _CAPABILITY_PREFIXES:
            for name in getattr(default, key, None) or []:
                out.exact.setdefault(_qualified(prefix, name), f"{what} '{name}' (lait.config.yml default)")
        for name in default.mcp or []:
            _add_server(name, out, config)
    return out
