"""How a run signs in to MCP servers: passed from the face (CLI, language server, ``lait serve``)
through :class:`~lait_core.engine.tools.mcp_tools.McpPool` to each connection."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lait_core.engine.mcp.oauth.signin import SignIn
    from lait_core.engine.mcp.oauth.token_store import TokenStore


@dataclass(frozen=True, slots=True)
class OAuthOptions:
    sign_in: SignIn | None = None
    """Who shows the authorization URL; None: headless (a needed sign-in fails at once)."""
    environ: Mapping[str, str] | None = None
    """For ``client_secret_env`` and the XDG data dir (default: ``os.environ``)."""
    store: TokenStore | None = None
    """Default: the keyring, else the files under ``$XDG_DATA_HOME/lait/mcp-oauth``."""
