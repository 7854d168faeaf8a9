"""LAIT605 mcp-env-inherited: a stdio MCP server inherits lait's whole environment while the config
reads secrets from that environment."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

CODE = "LAIT605"
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
_SHOWN = 4

RULE = rule(
    CODE,
    "mcp-env-inherited",
    Severity.WARNING,
    "A stdio MCP server inherits lait's whole environment, secrets the config reads from it included.",
    "A `command:` server starts with every variable of lait's environment (the shell's and `.env`'s) "
    "plus its `env:`, so a key the config reads with `${OPENAI_API_KEY}` reaches a third-party program "
    "that never needed it. `env_inherit: false` gives the server only its `env:` plus PATH, HOME, "
    "LANG and TERM; pass what it needs explicitly (`env: {GITHUB_TOKEN: ${GITHUB_TOKEN}}`). "
    "`confine: project` in the same file makes that the default. Reported when the config names a "
    "variable whose name says KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL outside the server's own "
    "`env:`; the message lists the names, never values.",
    Example(
        "api_key: ${OPENAI_API_KEY}\nmcp_servers:\n  notes:\n    command: notes-mcp\n",
        filename="lait.config.yml",
    ),
    Example(
        "api_key: ${OPENAI_API_KEY}\nmcp_servers:\n  notes:\n    command: notes-mcp\n    env_inherit: false\n",
        filename="lait.config.yml",
    ),
)


def _strings(node: Node | None, skip: Node | None = None) -> Iterator[str]:
    if node is None or node is skip:
        return
    if isinstance(node, ScalarNode):
        if isinstance(node.value, str):
            yield node.value
    elif isinstance(node, MappingNode):
        for _key, _k, value in node.items():
            yield from _strings(value, skip)
    elif isinstance(node, SequenceNode):
        for item in node.items:
            yield from _strings(item, skip)


def _secret_names(root: MappingNode, own_env: Node | None) -> list[str]:
    """Secret-looking ``${VAR}`` names the config reads, outside ``own_env`` (the server's ``env:``)."""
    from lait_core.documents.envvars import EnvVarError, placeholders

    names: list[str] = []
    for text in _strings(root, own_env):
        if "${" not in text:
            continue
        try:
            found = placeholders(text)
        except EnvVarError:
            continue
        for placeholder in found:
            if _SECRET_NAME.search(placeholder.name) and placeholder.name not in names:
                names.append(placeholder.name)
    return names


def check(root: MappingNode, out: list[Diagnostic]) -> None:
    servers = root.get("mcp_servers")
    if not isinstance(servers, MappingNode):
        return
    confined = isinstance(confine := root.get("confine"), ScalarNode) and confine.value == "project"
    for name, key, server in servers.items():
        if not isinstance(server, MappingNode) or "command" not in server or "url" in server:
            continue
        inherit = server.get("env_inherit")
        if isinstance(inherit, ScalarNode) and isinstance(inherit.value, bool):
            if not inherit.value:
                continue
        elif confined:
            continue
        secrets = _secret_names(root, server.get("env"))
        if not secrets:
            continue
        listed = ", ".join(secrets[:_SHOWN]) + (
            f" and {len(secrets) - _SHOWN} more" if len(secrets) > _SHOWN else ""
        )
        out.append(
            Diagnostic(
                CODE,
                f"MCP server '{name}' inherits lait's whole environment, which holds {listed} (read by this "
                "config); set 'env_inherit: false' and pass what the server needs in 'env:'",
                key.range,
                Severity.WARNING,
            )
        )
