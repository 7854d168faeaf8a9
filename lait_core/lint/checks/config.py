"""Config-level checks: LAIT103 api-key pairs, LAIT104 tool definitions, LAIT105 workflow registry,
LAIT106 `${VAR}` placeholders (LAIT110, the MCP `oauth:` block, is in mcp_oauth). They run on each config file with its own located tree."""

from __future__ import annotations

from pathlib import Path

from lait_core.diagnostics import Diagnostic
from lait_core.documents.config import ConfigDocument
from lait_core.rules.config.api_key_pair import CODE as API_KEY_PAIR
from lait_core.rules.config.env_placeholder import CODE as ENV_PLACEHOLDER
from lait_core.rules.config.mcp_oauth import check_mcp_oauth
from lait_core.rules.config.missing_gguf_file import check_gguf_files
from lait_core.rules.config.missing_workflow_file import CODE as MISSING_WORKFLOW_FILE
from lait_core.rules.config.no_effect_key import check_no_effect
from lait_core.rules.config.prompt_undeclared_var import check_prompt_vars
from lait_core.rules.config.prompt_unknown_name import check_prompt_names
from lait_core.rules.config.python_from_path import check_python_from_path
from lait_core.rules.config.tool_definition import CODE as TOOL_DEFINITION
from lait_core.rules.security import literal_secret, option_injection, shell_interpolation
from lait_core.source.tree import MappingNode, Node, ScalarNode, SequenceNode

_EXPANDED_TOP = ("base_url", "api_key")


def _pair(node: Node | None, context: str, out: list[Diagnostic]) -> None:
    if isinstance(node, MappingNode) and "api_key" in node and "api_key_cmd" in node:
        key = node.key_node("api_key_cmd")
        assert key is not None
        out.append(
            Diagnostic(
                API_KEY_PAIR, f"{context} sets both 'api_key' and 'api_key_cmd'; set exactly one", key.range
            )
        )


def check_api_keys(root: MappingNode, out: list[Diagnostic]) -> None:
    _pair(root, "top-level configuration", out)
    _pair(root.get("jev"), "'jev:' configuration", out)
    models = root.get("models")
    if isinstance(models, MappingNode):
        for alias, _k, entries in sorted(models.items(), key=lambda t: str(t[0])):
            if not isinstance(entries, SequenceNode):
                continue
            for i, entry in enumerate(entries.items, 1):
                if isinstance(entry, MappingNode):
                    ctx = f'model definition "{alias}"' + (f"'s fallback entry #{i}" if i > 1 else "")
                    _pair(entry.get("provider"), ctx, out)


def check_tools(root: MappingNode, out: list[Diagnostic]) -> None:
    tools = root.get("tools")
    if not isinstance(tools, MappingNode):
        return
    for name, _k, tool in sorted(tools.items(), key=lambda t: str(t[0])):
        if not isinstance(tool, MappingNode):
            continue
        command = tool.get("command")
        if isinstance(command, SequenceNode) and not command.items:
            out.append(
                Diagnostic(
                    TOOL_DEFINITION, f"tool definition \"{name}\" has an empty 'command' list", command.range
                )
            )
            continue
        if isinstance(command, SequenceNode) and isinstance(command.items[0], ScalarNode):
            first = command.items[0].to_python()
            if isinstance(first, str) and not first.strip():
                out.append(
                    Diagnostic(
                        TOOL_DEFINITION,
                        f"tool definition \"{name}\"'s 'command' must start with a program",
                        command.items[0].range,
                    )
                )
                continue
        params = tool.get("parameters")
        if params is not None and not isinstance(params, MappingNode):
            out.append(
                Diagnostic(
                    TOOL_DEFINITION,
                    f"tool definition \"{name}\"'s 'parameters' must be a JSON object",
                    params.range,
                )
            )


def check_registry(root: MappingNode, base: Path, out: list[Diagnostic]) -> None:
    workflows = root.get("workflows")
    if not isinstance(workflows, MappingNode):
        return
    for name, _k, value in sorted(workflows.items(), key=lambda t: str(t[0])):
        rel = value.to_python()
        if not isinstance(rel, str):
            continue
        path = Path(rel) if Path(rel).is_absolute() else base / rel
        if not path.is_file():
            out.append(
                Diagnostic(
                    MISSING_WORKFLOW_FILE,
                    f"workflows.{name} resolves to '{path}', which does not exist",
                    value.range,
                )
            )


def _expanded_values(root: MappingNode) -> list[Node]:
    nodes: list[Node] = [n for k in _EXPANDED_TOP if (n := root.get(k)) is not None]
    for section, keys in (("jev", ("base_url", "api_key")),):
        sub = root.get(section)
        if isinstance(sub, MappingNode):
            nodes += [n for k in keys if (n := sub.get(k)) is not None]
    models = root.get("models")
    if isinstance(models, MappingNode):
        for _alias, _k, entries in models.items():
            if isinstance(entries, SequenceNode):
                for entry in entries.items:
                    provider = entry.get("provider") if isinstance(entry, MappingNode) else None
                    if isinstance(provider, MappingNode):
                        nodes += [n for k in ("base_url", "api_key") if (n := provider.get(k)) is not None]
    servers = root.get("mcp_servers")
    if isinstance(servers, MappingNode):
        for _name, _k, server in servers.items():
            if not isinstance(server, MappingNode):
                continue
            nodes += [n for k in ("command", "cwd", "url") if (n := server.get(k)) is not None]
            args = server.get("args")
            if isinstance(args, SequenceNode):
                nodes += args.items
            for k in ("env", "headers"):
                sub = server.get(k)
                if isinstance(sub, MappingNode):
                    nodes += [v for _kk, v in sub.pairs]
            oauth = server.get("oauth")
            if isinstance(oauth, MappingNode) and (client_id := oauth.get("client_id")) is not None:
                nodes.append(client_id)
    tools = root.get("tools")
    if isinstance(tools, MappingNode):
        for _name, _k, tool in tools.items():
            if isinstance(tool, MappingNode):
                env = tool.get("env")
                if isinstance(env, MappingNode):
                    nodes += [v for _kk, v in env.pairs]
                cwd = tool.get("cwd")
                if cwd is not None:
                    nodes.append(cwd)
    return nodes


def check_placeholders(root: MappingNode, out: list[Diagnostic]) -> None:
    from lait_core.documents.envvars import check

    for node in _expanded_values(root):
        if isinstance(node, ScalarNode) and isinstance(node.value, str) and "${" in node.value:
            error = check(node.value)
            if error is not None:
                out.append(Diagnostic(ENV_PLACEHOLDER, error.message, node.span(error.start, error.end)))


def check_config(doc: ConfigDocument) -> list[Diagnostic]:
    """Every config-level check of one config file (it must have loaded)."""
    out: list[Diagnostic] = []
    root = doc.root
    if root is None:
        return out
    check_api_keys(root, out)
    check_tools(root, out)
    check_registry(root, Path(doc.path).parent, out)
    check_gguf_files(root, Path(doc.path).parent, out)
    check_placeholders(root, out)
    option_injection.check(root, out)
    literal_secret.check(root, doc.path, out)
    shell_interpolation.check_config(root, out)
    check_no_effect(root, out)
    check_mcp_oauth(root, out)
    check_prompt_vars(root, out)
    check_prompt_names(root, out)
    check_python_from_path(root, out)
    return out
