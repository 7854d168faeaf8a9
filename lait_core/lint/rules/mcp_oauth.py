"""LAIT110: an `oauth:` block of an MCP server that cannot work as written."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

C = "lait.config.yml"

rule(
    "LAIT110",
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
