"""How to reach one configured server: ``mcp_servers.<name>`` with every ``${VAR}`` expanded,
done lazily when the server is first connected (docs/mcp.md)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from lait_core.documents import envvars
from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.llm.chat_types import ConfigurationError

_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE_FORBIDDEN = re.compile(r"[\x00\r\n]")


CONTAINED_ENV = ("PATH", "HOME", "LANG", "TERM")
"""What a contained server (``env_inherit: false``) gets of lait's environment besides its ``env:``."""


def inherits_env(config: McpServerConfig, contained_by_default: bool) -> bool:
    """Whether a stdio server gets lait's whole environment: its ``env_inherit``, else not under
    ``confine: project`` (``contained_by_default``), else yes (the reference's behaviour)."""
    return config.env_inherit if config.env_inherit is not None else not contained_by_default


@dataclass(frozen=True, slots=True)
class StdioSpec:
    argv: tuple[str, ...]
    env: dict[str, str]
    """The complete environment of the child: the inherited one (or :data:`CONTAINED_ENV` of it)
    plus ``env:``."""
    cwd: Path | None


@dataclass(frozen=True, slots=True)
class HttpSpec:
    url: str
    headers: dict[str, str]


ServerSpec = StdioSpec | HttpSpec


def unknown_server(name: str, configured: Iterable[str]) -> ConfigurationError:
    """The error for a server name that is not under ``mcp_servers:``."""
    listed = ", ".join(configured) or "none"
    return ConfigurationError(
        f"unknown MCP server '{name}'; define it under 'mcp_servers:' in lait.config.yml "
        f"(configured: {listed})"
    )


def _expand(name: str, key: str, value: str, environ: Mapping[str, str]) -> str:
    try:
        return envvars.expand(value, environ)
    except envvars.EnvVarError as exc:
        raise ConfigurationError(f"mcp_servers.{name}.{key} in lait.config.yml: {exc.message}") from None


def server_spec(
    name: str,
    config: McpServerConfig,
    *,
    base_dir: Path,
    environ: Mapping[str, str] | None = None,
    contained_by_default: bool = False,
) -> ServerSpec:
    """Expand ``config``; raises :class:`ConfigurationError` for both/neither of ``command`` and
    ``url``, unset variables, and invalid header names or values."""
    env_in: Mapping[str, str] = os.environ if environ is None else environ
    if (config.command is None) == (config.url is None):
        both = "both" if config.command is not None else "neither"
        raise ConfigurationError(
            f"mcp_servers.{name} in lait.config.yml sets {both} of 'command' and 'url'; set exactly one "
            "('command' for a stdio server, 'url' for a streamable-HTTP server)"
        )
    if config.url is not None:
        url = _expand(name, "url", config.url, env_in)
        headers: dict[str, str] = {}
        for key, raw in config.headers.items():
            if _HEADER_NAME.fullmatch(key) is None:
                raise ConfigurationError(
                    f"mcp_servers.{name}.headers in lait.config.yml: {key!r} is not a valid HTTP header name"
                )
            value = _expand(name, f"headers.{key}", raw, env_in)
            if _HEADER_VALUE_FORBIDDEN.search(value) is not None:
                raise ConfigurationError(
                    f"mcp_servers.{name}.headers.{key} in lait.config.yml: the value contains a line break or "
                    "NUL, which HTTP header values may not contain"
                )
            headers[key] = value
        return HttpSpec(url, headers)
    assert config.command is not None
    argv = [_expand(name, "command", config.command, env_in)]
    argv.extend(_expand(name, f"args[{i}]", a, env_in) for i, a in enumerate(config.args))
    if inherits_env(config, contained_by_default):
        child_env = dict(env_in)
    else:
        child_env = {key: env_in[key] for key in CONTAINED_ENV if key in env_in}
    for key, raw in config.env.items():
        child_env[key] = _expand(name, f"env.{key}", raw, env_in)
    cwd: Path | None = None
    if config.cwd is not None:
        cwd = Path(_expand(name, "cwd", config.cwd, env_in)).expanduser()
        if not cwd.is_absolute():
            cwd = base_dir / cwd
    return StdioSpec(tuple(argv), child_env, cwd)
