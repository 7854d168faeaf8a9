"""What ``mcp_servers.<name>.oauth`` asks for, read through one accessor (:func:`oauth_settings`).

The block's model and schema live in :mod:`lait_core.documents.document_models`; this module only reads
the fields sign-in needs, with ``${VAR}`` expanded and the client secret taken from the
environment variable ``client_secret_env`` names (the secret never goes in a file).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from lait_core.engine.llm.chat_types import ConfigurationError
from lait_core.support.redact import add_secret


@dataclass(frozen=True, slots=True)
class OAuthSettings:
    client_id: str | None = None
    """A pre-registered client (no registration is attempted)."""
    client_secret: str | None = None
    """Its secret (from the environment), or None for a public client."""
    scopes: tuple[str, ...] | None = None
    """Scopes to request instead of the ones the server names; step-up still adds to them."""
    client_metadata_url: str | None = None
    """An HTTPS URL of lait's client ID metadata document, used as the client ID by
    authorization servers that support it (else dynamic registration)."""


def _field(block: Any, key: str) -> Any:
    if isinstance(block, Mapping):
        return block.get(key)
    return getattr(block, key, None)


def oauth_settings(name: str, config: Any, environ: Mapping[str, str]) -> OAuthSettings:
    """The ``oauth:`` block of server ``name`` (an ``McpServerConfig``); an absent block gives
    the defaults. Raises :class:`ConfigurationError` when ``client_secret_env`` names an unset
    variable or a ``${VAR}`` does not expand."""
    from lait_core.documents import envvars

    block = getattr(config, "oauth", None)
    if block is None:
        return OAuthSettings()

    def text(key: str) -> str | None:
        value = _field(block, key)
        if value is None:
            return None
        try:
            return envvars.expand(str(value), environ)
        except envvars.EnvVarError as exc:
            raise ConfigurationError(
                f"mcp_servers.{name}.oauth.{key} in lait.config.yml: {exc.message}"
            ) from None

    secret: str | None = None
    secret_env = _field(block, "client_secret_env")
    if secret_env:
        secret = environ.get(str(secret_env))
        if not secret:
            raise ConfigurationError(
                f"mcp_servers.{name}.oauth.client_secret_env in lait.config.yml names {secret_env}, "
                "which is not set"
            )
        add_secret(secret)
    scopes = _field(block, "scopes")
    metadata_url = text("client_metadata_url")
    if metadata_url is not None:
        parts = urlsplit(metadata_url)
        if parts.scheme != "https" or parts.path in ("", "/"):
            raise ConfigurationError(
                f"mcp_servers.{name}.oauth.client_metadata_url in lait.config.yml must be an https URL "
                f"with a path, not {metadata_url!r}"
            )
    return OAuthSettings(
        client_id=text("client_id"),
        client_secret=secret,
        scopes=tuple(str(s) for s in scopes) if scopes is not None else None,
        client_metadata_url=metadata_url,
    )
