"""LAIT110: the `oauth:` block of each `mcp_servers` entry (see the rule's doc)."""

from __future__ import annotations

import re

from lait_core.diagnostics import Diagnostic, Severity
from lait_core.source.tree import MappingNode, ScalarNode

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
                    "LAIT110",
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
                    "LAIT110",
                    f"MCP server '{name}': 'client_secret_env' is set without 'client_id'; a client secret "
                    "belongs to a pre-registered client ID",
                    secret_key.range,
                    Severity.WARNING,
                )
            )
        if not _ENV_NAME.fullmatch(secret.value):
            out.append(
                Diagnostic(
                    "LAIT110",
                    f"MCP server '{name}': 'client_secret_env' must be the name of an environment variable "
                    "(like TRACKER_SECRET), not the secret itself",
                    secret.range,
                    Severity.WARNING,
                )
            )
