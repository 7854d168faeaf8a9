"""LAIT603 literal-secret: an API key, a token or a password written into lait.config.yml instead of
read from the environment (``${VAR}``) or a command (``api_key_cmd``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Fix, Severity
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

CODE = "LAIT603"

RULE = rule(
    CODE,
    "literal-secret",
    Severity.WARNING,
    "A secret (API key, token, password) is written literally in lait.config.yml.",
    "lait.config.yml is usually committed, and a project file can be read by anyone who opens the "
    "project. Keys belong in the environment or the project's `.env` (kept out of version control): "
    'write `api_key: ${OPENAI_API_KEY}`, `Authorization: "Bearer ${TOKEN}"`, or use `api_key_cmd` '
    "(a password manager). Checked: every `api_key` that looks like a key (a known prefix such as "
    "`sk-`, or a long token of letters and digits), `Authorization`/`Proxy-Authorization` and "
    "key- or token-named header values, a password in a `base_url`/`url`, and `env:` values of MCP "
    "servers and tools whose name says KEY, TOKEN, SECRET or PASSWORD. Values using `${VAR}` are never "
    "reported, nor is the global config (`~/.config/lait/config.yml`, private to its user). The "
    "message never repeats the secret; the quick fix replaces it with a `${VAR}` placeholder.",
    Example("api_key: sk-proj-4f9a8b7c6d5e4f3a2b1c\n", filename="lait.config.yml"),
    Example('api_key: "${LAIT_API_KEY}"\n', filename="lait.config.yml"),
)

_PREFIXES = (
    "sk-", "sk_", "rk_", "pk_live_", "gsk_", "hf_", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-",
    "xoxa-", "xoxb-", "xoxp-", "xoxr-", "AKIA", "AIza", "ya29.", "pplx-", "r8_",
)  # fmt: skip
_TOKEN = re.compile(r"[A-Za-z0-9_\-.+/=~]{24,}")
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
_SECRET_HEADER = re.compile(r"api[-_]?key|token|secret|auth", re.IGNORECASE)
_AUTH_HEADERS = frozenset({"authorization", "proxy-authorization"})


def looks_like_key(value: str) -> bool:
    value = value.strip()
    if value.startswith(_PREFIXES) and len(value) >= 12:
        return True
    return (
        bool(_TOKEN.fullmatch(value)) and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    )


def _env_name(*parts: str) -> str:
    name = re.sub(r"[^A-Za-z0-9]+", "_", "_".join(p for p in parts if p)).strip("_").upper()
    return name if name and not name[0].isdigit() else f"_{name}"


def _literal(node: Node | None) -> str | None:
    """A string value that expands nothing (``${VAR}`` values are what the rule asks for)."""
    if isinstance(node, ScalarNode) and isinstance(node.value, str) and "${" not in node.value:
        return node.value
    return None


def _finding(node: Node, what: str, replacement: str, var: str, *, key: bool = False) -> Diagnostic:
    also = ", or use 'api_key_cmd'" if key else ""
    return Diagnostic(
        CODE,
        f"{what} is written literally in lait.config.yml; write '{replacement}' and set {var} in the"
        f" environment or the project's .env{also}",
        node.range,
        Severity.WARNING,
        fixes=(Fix(f"Read it from ${{{var}}}", node.range, f'"{replacement}"'),),
    )


def _key_holders(root: MappingNode) -> Iterator[tuple[MappingNode, str, str]]:
    """(mapping with api_key/base_url, what it is, variable name prefix)."""
    yield root, "top-level", "LAIT"
    jev = root.get("jev")
    if isinstance(jev, MappingNode):
        yield jev, "'jev:'", "JEV"
    models = root.get("models")
    if isinstance(models, MappingNode):
        for alias, _k, entries in models.items():
            if isinstance(entries, SequenceNode):
                for i, entry in enumerate(entries.items, 1):
                    provider = entry.get("provider") if isinstance(entry, MappingNode) else None
                    if isinstance(provider, MappingNode):
                        suffix = f" (fallback #{i})" if i > 1 else ""
                        yield (
                            provider,
                            f'model "{alias}"{suffix}',
                            _env_name(str(alias), str(i) if i > 1 else ""),
                        )


def _url_password(node: Node | None, what: str, var: str, out: list[Diagnostic]) -> None:
    value = _literal(node)
    if value is None or node is None or "@" not in value:
        return
    try:
        parts = urlsplit(value)
    except ValueError:
        return
    if parts.password:
        user = parts.username or ""
        fixed = value.replace(f"{user}:{parts.password}@", f"{user}:${{{var}}}@", 1)
        out.append(_finding(node, f"the password in {what}", fixed, var))


def check(root: MappingNode, path: str, out: list[Diagnostic]) -> None:
    from lait_core.documents.config_file import global_config_path

    if os.path.abspath(path) == os.path.abspath(global_config_path()):
        return
    for holder, what, prefix in _key_holders(root):
        node = holder.get("api_key")
        value = _literal(node)
        if node is not None and value is not None and looks_like_key(value):
            var = f"{prefix}_API_KEY"
            out.append(
                _finding(
                    node,
                    f"the {what} api_key" if what == "top-level" else f"the api_key of {what}",
                    f"${{{var}}}",
                    var,
                    key=True,
                )
            )
        where = "the top-level base_url" if what == "top-level" else f"the base_url of {what}"
        _url_password(holder.get("base_url"), where, f"{prefix}_PASSWORD", out)
    servers = root.get("mcp_servers")
    if isinstance(servers, MappingNode):
        for name, _k, server in servers.items():
            if not isinstance(server, MappingNode):
                continue
            _url_password(
                server.get("url"), f"the url of MCP server '{name}'", _env_name(str(name), "PASSWORD"), out
            )
            _headers(server.get("headers"), str(name), out)
            _env(server.get("env"), f"MCP server '{name}'", out)
    tools = root.get("tools")
    if isinstance(tools, MappingNode):
        for name, _k, tool in tools.items():
            if isinstance(tool, MappingNode):
                _env(tool.get("env"), f"tool '{name}'", out)


def _headers(headers: Node | None, server: str, out: list[Diagnostic]) -> None:
    if not isinstance(headers, MappingNode):
        return
    for header, _k, node in headers.items():
        value = _literal(node)
        if value is None or not isinstance(header, str):
            continue
        if header.lower() in _AUTH_HEADERS:
            scheme, _, credential = value.strip().partition(" ")
            if not credential:
                scheme, credential = "", scheme
            if len(credential.strip()) < 8:
                continue
            var = _env_name(server, "TOKEN")
            fixed = f"{scheme} ${{{var}}}" if scheme else f"${{{var}}}"
            out.append(_finding(node, f"the '{header}' header of MCP server '{server}'", fixed, var))
        elif _SECRET_HEADER.search(header) and len(value.strip()) >= 8:
            var = _env_name(server, header)
            out.append(_finding(node, f"the '{header}' header of MCP server '{server}'", f"${{{var}}}", var))


def _env(env: Node | None, owner: str, out: list[Diagnostic]) -> None:
    if not isinstance(env, MappingNode):
        return
    for key, _k, node in env.items():
        value = _literal(node)
        if (
            value is None
            or not isinstance(key, str)
            or not _SECRET_NAME.search(key)
            or len(value.strip()) < 8
        ):
            continue
        out.append(_finding(node, f"'{key}' in the env of {owner}", f"${{{key}}}", key))
