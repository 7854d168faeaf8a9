"""LAIT110: the `oauth:` block of each `mcp_servers` entry (see the rule's doc)."""

from __future__ import annotations

import re

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode, ScalarNode

C = "lait.config.yml"

CODE = "LAIT110"

RULE = rule(
    CODE,
    "mcp-oauth",
    Severity.WARNING,
    "An MCP server's `oauth:` block cannot take effect as written.",
    "`oauth: {client_id, client_secret_env, scopes}` configures the sign-in of a `url:` server (MCP "
    "authorization): a pre-registered client ID, the *name* of the environment variable that holds its "
    "secret (the secret itself never goes in the file), and the scopes to request. lait warns when the "
    "block is on a stdio server (`command:`, which has no sign-in), when `client_secret_env` is set "
    "without `client_id` (a secret belongs to a registered client), and when `client_secret_env` is not "
    "an environment variable name (a secret pasted in by mistake: it is not repeated in the message).",
    Example(
        "mcp_servers:\n  tracker:\n    command: tracker-mcp\n    oauth: {client_id: lait-cli}\n", filename=C
    ),
    Example(
        "mcp_servers:\n  tracker:\n    url: https://tracker.example.com/mcp\n"
        "    oauth: {client_id: lait-cli, client_secret_env: TRACKER_SECRET, scopes: [issues:read]}\n",
        filename=C,
    ),
)


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_mcp_oauth(root: MappingNode, out: list[Diagnostic]) -> None:
    servers = root.get("mcp_servers")
    if not isinstance(servers, MappingNode):
        return
    for name, _key, server in servers.items():
        if not isinstance(server, MappingNode):
            continue
        oauth = server.get("oauth")
        oauth_key = server.key_node("oauth")
        if not isinstance(oauth, MappingNode) or oauth_key is None:
            continue
        if "url" not in server and "command" in server:
            out.append(
                Diagnostic(
                    CODE,
                    f"MCP server '{name}' is a stdio server ('command:'); 'oauth:' only applies to 'url:' "
                    "servers and has no effect here",
                    oauth_key.range,
                    Severity.WARNING,
                )
            )
        secret = oauth.get("client_secret_env")
        secret_key = oauth.key_node("client_secret_env")
        if secret_key is None or not isinstance(secret, ScalarNode) or not isinstance(secret.value, str):
            continue
        if "client_id" not in oauth:
            out.append(
                Diagnostic(
                    CODE,
                    f"MCP server '{name}': 'client_secret_env' is set without 'client_id'; a client secret "
                    "belongs to a pre-registered client ID",
                    secret_key.range,
                    Severity.WARNING,
                )
            )
        if not _ENV_NAME.fullmatch(secret.value):
            out.append(
                Diagnostic(
                    CODE,
                    f"MCP server '{name}': 'client_secret_env' must be the name of an environment variable "
                    "(like TRACKER_SECRET), not the secret itself",
                    secret.range,
                    Severity.WARNING,
                )
            )
