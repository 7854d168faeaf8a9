"""LAIT106 env-placeholder: a `${VAR}` placeholder is malformed."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

C = "lait.config.yml"

CODE = "LAIT106"

RULE = rule(
    CODE,
    "env-placeholder",
    Severity.ERROR,
    "A `${VAR}` placeholder is malformed.",
    "Values that expand environment variables (`base_url`, `api_key`, MCP `command`/`args`/`env`/`url`/"
    "`headers`, tool `env`/`cwd`) use `${NAME}` with NAME made of letters, digits and `_`. There is no "
    "`${VAR:-default}` syntax and no escape. Whether the variable is set is checked by `lait doctor`, not "
    "by lint.",
    Example("base_url: ${LLM_URL:-http://localhost:1234/v1}\n", filename=C),
    Example("base_url: ${LLM_URL}\n", filename=C),
)


_EXPANDED_TOP = ("base_url", "api_key")


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
                out.append(Diagnostic(CODE, error.message, node.span(error.start, error.end)))
