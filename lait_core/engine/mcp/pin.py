"""What ``lait mcp lock`` pins: each server's live tool list, connected through the engine's pool
without the lock check (:mod:`lait_core.engine.mcp.lock` describes the file)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.mcp.lock import server_entry
from lait_core.engine.mcp.spec import unknown_server

if TYPE_CHECKING:
    from lait_core.engine.mcp.oauth.signin import SignIn


async def live_entries(
    servers: Mapping[str, McpServerConfig],
    names: Iterable[str],
    *,
    base_dir: Path,
    sign_in: SignIn | None,
    environ: Mapping[str, str] | None = None,
    on_spawn: Callable[[int], None] | None = None,
    contained: bool = False,
) -> dict[str, dict[str, Any]]:
    """name -> the lock entry its live listing gives, for each of ``names`` (connected one after
    the other; every connection closed on the way out). Raises the pool's errors
    (:class:`~lait_core.engine.mcp.mcp_errors.McpError`, ``ConfigurationError`` for an unknown name)."""
    from lait_core.engine.mcp.oauth.signin_options import OAuthOptions
    from lait_core.engine.tools.mcp_tools import McpPool

    wanted = list(names)
    for name in wanted:
        if name not in servers:
            raise unknown_server(name, servers)
    pool = McpPool(
        {name: servers[name] for name in wanted},
        base_dir=base_dir,
        environ=environ,
        on_spawn=on_spawn,
        oauth=OAuthOptions(sign_in=sign_in, environ=environ),
        pinned=False,
        contained=contained,
    )
    try:
        out: dict[str, dict[str, Any]] = {}
        for name in wanted:
            listing = await pool.listing(name)
            out[name] = server_entry(servers[name], listing.tools)
        return out
    finally:
        await pool.aclose()
