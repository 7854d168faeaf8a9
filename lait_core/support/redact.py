"""Keeping secrets out of what lait prints: messages, logs, events and records.

* A URL's userinfo and query values are replaced with ``***`` wherever a URL appears in a text
  (``http://user:sk-1@host/v1?key=abc`` reads ``http://***@host/v1?key=***``).
* Every *configured secret* lait has used -- a resolved API key (literal, ``${VAR}``,
  ``api_key_cmd``, ``--api-key``/``OPENAI_API_KEY``), an MCP server's header values, the userinfo and
  query values of a model or MCP URL -- is remembered for the life of the process, and any
  occurrence of it in a text is replaced with ``***``. So an error body a server sends back is
  shown, but not a key it echoes.

The faces apply :func:`redact` where messages leave the process: the CLI wraps its stderr, the
language server redacts run results, run events, progress messages and its log. Content (a
model's answer, tool arguments and results) only has remembered secrets masked
(:func:`mask_secrets`): a link's query in an answer is not a credential. Standard library only;
cheap when a text holds neither ``://`` nor a known secret.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

MASK = "***"
MIN_SECRET_LENGTH = 8
"""Shorter values are not remembered. A remembered value is masked in every later text for the life
of the process, and lait-ls lives for a whole editing session: masking ``json``, ``2024`` or a
short header value everywhere would hide more than it protects, while API keys and tokens are far
longer. (Inside a URL, userinfo and query values are masked whatever their length.)"""
CREDENTIAL_PARAMETER = re.compile(r"key|token|secret|sig|pass|auth|cred|session|code", re.IGNORECASE)
"""URL query parameters whose values are remembered as secrets whatever else they look like."""
LONG_QUERY_VALUE = 20
"""Other query values (``api-version=2024-06-01``, ``page=2``) are remembered only from this length
on (a random token under an unusual name)."""
NOT_SECRETS = frozenset({"lm-studio", "Bearer", "true", "false", "null"})
"""Placeholders that are not secrets (``lm-studio`` is the key sent when none is configured)."""

_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s<>\"'`]+")
_TRAILING = ".,;:!?)]}"
_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None


def add_secret(value: object) -> None:
    """Remember ``value`` as a secret (ignored: non-strings, short values, placeholders)."""
    global _pattern
    if not isinstance(value, str):
        return
    value = value.strip()
    if len(value) < MIN_SECRET_LENGTH or value in NOT_SECRETS:
        return
    with _lock:
        if value in _secrets:
            return
        _secrets.add(value)
        _pattern = None


def add_secrets(values: Iterable[object]) -> None:
    for value in values:
        add_secret(value)


def add_url_secrets(url: object) -> None:
    """Remember the password (else a user name: a token given as one) of ``url``, and its query
    values under credential-like names (:data:`CREDENTIAL_PARAMETER`) or long enough to be tokens."""
    if not isinstance(url, str) or "://" not in url:
        return
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    add_secret(parts.password)
    if parts.password is None:
        add_secret(parts.username)  # a token given as the user name
    for item in parts.query.split("&"):
        name, eq, value = item.partition("=")
        if not eq:
            name, value = "", name
        if CREDENTIAL_PARAMETER.search(name) or len(value) >= LONG_QUERY_VALUE:
            add_secret(value)


SECRET_ENV_WORDS = frozenset(
    {"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "CREDENTIAL", "CREDENTIALS", "PAT"}
)
"""Words of an environment variable's name (split at ``_``) that make its value a secret:
``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``, ``DB_PASSWORD``."""


def add_environment_secrets(environ: Mapping[str, str]) -> None:
    """Remember the values of the environment variables whose names say they hold a secret
    (:data:`SECRET_ENV_WORDS`): what a tool or ``run:`` step prints of them (``printenv
    GITHUB_TOKEN``) is then masked in records, as configured secrets are."""
    for name, value in environ.items():
        if not SECRET_ENV_WORDS.isdisjoint(name.upper().split("_")):
            add_secret(value)


def forget_secrets() -> None:
    """For tests: forget every remembered secret."""
    global _pattern
    with _lock:
        _secrets.clear()
        _shown.clear()
        _pattern = None


def redact_url(url: str) -> str:
    """``url`` with its userinfo and every query value replaced with ``***``."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    end = len(rest)
    for stop in "/?#":
        at = rest.find(stop)
        if at != -1:
            end = min(end, at)
    authority, tail = rest[:end], rest[end:]
    if "@" in authority:
        authority = MASK + "@" + authority.rpartition("@")[2]
    path, qmark, query = tail.partition("?")
    if qmark:
        query, hash_, fragment = query.partition("#")
        items = []
        for item in query.split("&"):
            key, eq, value = item.partition("=")
            items.append(f"{key}={MASK}" if eq and value else (item if eq or not item else MASK))
        tail = path + "?" + "&".join(items) + hash_ + fragment
    return f"{scheme}://{authority}{tail}"


_shown: set[str] = set()


def show_url(url: str) -> None:
    """Let ``url`` through :func:`redact` as it is (remembered secrets are still masked): a URL the
    person is asked to open (a URL elicitation, a sign-in page) is useless with its query masked."""
    with _lock:
        _shown.add(url.rstrip(_TRAILING))


def _url_match(m: re.Match[str]) -> str:
    text = m.group()
    trimmed = text.rstrip(_TRAILING)
    if trimmed in _shown:
        return text
    return redact_url(trimmed) + text[len(trimmed) :]


def _secret_pattern() -> re.Pattern[str] | None:
    global _pattern
    with _lock:
        if _pattern is None and _secrets:
            ordered = sorted(_secrets, key=len, reverse=True)
            _pattern = re.compile("|".join(re.escape(s) for s in ordered))
        return _pattern


def mask_secrets(text: str) -> str:
    """``text`` with every remembered secret masked, URLs otherwise left alone: for content (a
    model's answer, tool arguments and results), where a link's query is not a credential."""
    pattern = _secret_pattern() if text else None
    return pattern.sub(MASK, text) if pattern is not None else text


def redact(text: str) -> str:
    """``text`` with URL credentials and query values, and every remembered secret, masked."""
    if not text:
        return text
    if "://" in text:
        text = _URL.sub(_url_match, text)
    pattern = _secret_pattern()
    if pattern is not None:
        text = pattern.sub(MASK, text)
    return text


MESSAGE_KEYS = frozenset({"error", "message", "reason", "detail", "note"})
"""Keys whose strings are messages (fully redacted); other strings are content (secrets masked)."""


def redact_value(value: Any, *, message: bool = False) -> Any:
    """A JSON-like value (an event, a result) with :func:`redact` applied to the strings under
    :data:`MESSAGE_KEYS` (or all strings with ``message``) and :func:`mask_secrets` to the rest."""
    if isinstance(value, str):
        return redact(value) if message else mask_secrets(value)
    if isinstance(value, dict):
        return {k: redact_value(v, message=message or k in MESSAGE_KEYS) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v, message=message) for v in value]
    return value
