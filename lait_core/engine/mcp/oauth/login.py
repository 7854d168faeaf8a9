"""``lait mcp login NAME`` and ``lait mcp logout NAME``.

``login`` forgets the server's stored tokens (the client registration stays), connects with the
given presenter and lists the tools, so the sign-in runs wherever the server first asks for it
(at ``initialize`` or at the first request after it), with the scopes a failed step-up asked
for. ``logout`` deletes the server's record (tokens and registration) from the keyring and the
token files. Neither prints a token.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.llm.chat_types import ConfigurationError
from lait_core.engine.mcp.oauth.signin import SignIn
from lait_core.engine.mcp.oauth.token_store import TokenStore


@dataclass(frozen=True, slots=True)
class LoginResult:
    signed_in: bool
    """False: the server never asked for sign-in."""
    tools: int
    store: str
    """Where the tokens went (``keyring (...)`` or ``file``)."""


def http_url(name: str, config: McpServerConfig, environ: Mapping[str, str]) -> str:
    """The expanded ``url:`` of server ``name``; a stdio server or an ``Authorization`` header
    (the person manages the credentials) is a :class:`ConfigurationError`."""
    from lait_core.engine.mcp.spec import HttpSpec, server_spec

    spec = server_spec(name, config, base_dir=Path.cwd(), environ=environ)
    if not isinstance(spec, HttpSpec):
        raise ConfigurationError(
            f"mcp_servers.{name} is a stdio server ('command:'); only 'url:' servers sign in"
        )
    if any(key.lower() == "authorization" for key in spec.headers):
        raise ConfigurationError(
            f"mcp_servers.{name} sets an Authorization header itself; lait signs in only to servers "
            "without one"
        )
    return spec.url


async def login(
    name: str,
    config: McpServerConfig,
    *,
    base_dir: Path,
    environ: Mapping[str, str],
    presenter: SignIn,
    store: TokenStore | None = None,
    on_spawn: Callable[[int], None] | None = None,
) -> LoginResult:
    from lait_core.engine.mcp.direct import open_server

    url = http_url(name, config, environ)
    store = store or TokenStore(environ)
    store.update(url, tokens=None, expires_at=None)
    async with open_server(
        {name: config},
        name,
        base_dir=base_dir,
        sign_in=presenter,
        environ=environ,
        store=store,
        on_spawn=on_spawn,
    ) as pool:
        tools = await pool.source(name).list_tools()
        connection = await pool.connection(name)
        return LoginResult(connection.signed_in, len(tools), store.backend.name)


def logout(name: str, config: McpServerConfig, environ: Mapping[str, str]) -> bool:
    """Forget the server's tokens and registration; False when there was nothing stored."""
    return TokenStore(environ).delete(http_url(name, config, environ))
