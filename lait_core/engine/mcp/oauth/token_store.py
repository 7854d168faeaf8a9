"""Where OAuth tokens and client registrations of MCP servers are kept.

One record per server, keyed by its canonical URL (scheme, host and path; never the query or
user info, which may hold credentials): ``{"tokens": {...}, "expires_at": <epoch seconds>,
"client": {...}}``. A token is therefore only ever presented to the server it was issued for.

* The OS keyring (PyPI ``keyring``, service ``lait-mcp-oauth``) when a usable backend is
  installed; the ``fail`` and ``null`` backends (and any backend of priority <= 0) count as none.
* Otherwise one JSON file per server under ``$XDG_DATA_HOME/lait/mcp-oauth/`` (default
  ``~/.local/share``), the folder mode 0700, each file created with mode 0600 and replaced
  atomically. A record file is read through the bounded reader (64 KiB at most).

Every token and client secret read or written is remembered by :mod:`lait_core.support.redact`, so it
is masked wherever a text leaves the process.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from lait_core.support.redact import add_secret
from lait_core.support.userdata import data_home

SERVICE = "lait-mcp-oauth"
RECORD_LIMIT = 64 * 1024
"""Bytes: a record file larger than this is ignored (treated as absent)."""
SECRET_KEYS = ("access_token", "refresh_token", "client_secret")


def server_key(url: str) -> str:
    """The canonical URL of a server as a store key: ``scheme://host[:port]/path``, lower-case
    scheme and host, no user info, query or fragment, no trailing slash."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    return f"{parts.scheme.lower()}://{netloc}{parts.path.rstrip('/')}"


def remember(record: Mapping[str, Any]) -> None:
    """Tell :mod:`lait_core.support.redact` about every token and secret in ``record``."""
    for part in ("tokens", "client"):
        section = record.get(part)
        if isinstance(section, Mapping):
            for key in SECRET_KEYS:
                add_secret(section.get(key))


class Backend(Protocol):
    name: str

    def load(self, key: str) -> dict[str, Any] | None: ...

    def save(self, key: str, record: dict[str, Any]) -> None: ...

    def delete(self, key: str) -> bool: ...


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    return data_home(environ) / "mcp-oauth"


def _parse(text: str | bytes | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class FileBackend:
    """One mode-0600 JSON file per server under :func:`data_dir`."""

    name = "file"

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, key: str) -> Path:
        return self.folder / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")

    def load(self, key: str) -> dict[str, Any] | None:
        from lait_core.syntax.bounded_read import FileRefused, FileTooLarge, read_bounded

        try:
            record = _parse(read_bounded(self.path(key), RECORD_LIMIT))
        except (OSError, FileRefused, FileTooLarge):
            return None
        return record if record is not None and record.get("server") == key else None

    def save(self, key: str, record: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(OSError):
            os.chmod(self.folder, 0o700)
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".json")  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({**record, "server": key}, fh)
            os.replace(tmp, self.path(key))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def delete(self, key: str) -> bool:
        try:
            self.path(key).unlink()
        except FileNotFoundError:
            return False
        return True


class KeyringBackend:
    """The OS keyring through PyPI ``keyring`` (service :data:`SERVICE`, user name = the key)."""

    def __init__(self, keyring: Any) -> None:
        self._keyring = keyring
        self.name = f"keyring ({type(keyring).__module__}.{type(keyring).__name__})"

    def load(self, key: str) -> dict[str, Any] | None:
        return _parse(self._keyring.get_password(SERVICE, key))

    def save(self, key: str, record: dict[str, Any]) -> None:
        self._keyring.set_password(SERVICE, key, json.dumps({**record, "server": key}))

    def delete(self, key: str) -> bool:
        from keyring.errors import PasswordDeleteError

        try:
            self._keyring.delete_password(SERVICE, key)
        except PasswordDeleteError:
            return False
        return True


def usable_keyring() -> Any | None:
    """The configured keyring backend, or None when there is no usable one (``fail``, ``null``,
    priority <= 0, or ``keyring`` cannot be imported or initialised). Looked up once per process
    (importing ``keyring`` and probing its backends takes about 0.1 s)."""
    global _KEYRING
    if _KEYRING is None:
        _KEYRING = (_probe_keyring(),)
    return _KEYRING[0]


_KEYRING: tuple[Any | None] | None = None


def forget_keyring() -> None:
    """For tests: probe the keyring again on the next :func:`usable_keyring`."""
    global _KEYRING
    _KEYRING = None


def _probe_keyring() -> Any | None:
    try:
        import keyring
        from keyring.backends import fail, null

        backend = keyring.get_keyring()
    except Exception:
        return None
    if isinstance(backend, fail.Keyring | null.Keyring):
        return None
    try:
        priority = float(backend.priority)
    except Exception:
        priority = 1.0
    return backend if priority > 0 else None


class TokenStore:
    """The records of every server; the keyring when usable, else the file folder. A keyring
    that fails at run time (locked, D-Bus gone) falls back to the files for that operation."""

    def __init__(self, environ: Mapping[str, str] | None = None, backend: Backend | None = None) -> None:
        self.files = FileBackend(data_dir(environ))
        if backend is None:
            keyring = usable_keyring()
            backend = KeyringBackend(keyring) if keyring is not None else self.files
        self.backend: Backend = backend

    def load(self, url: str) -> dict[str, Any]:
        key = server_key(url)
        record: dict[str, Any] | None = None
        try:
            record = self.backend.load(key)
        except Exception:
            record = None
        if record is None and self.backend is not self.files:
            record = self.files.load(key)
        record = record or {}
        remember(record)
        return record

    def save(self, url: str, record: dict[str, Any]) -> None:
        remember(record)
        key = server_key(url)
        try:
            self.backend.save(key, record)
        except Exception:
            if self.backend is self.files:
                raise
            self.files.save(key, record)
            return
        if self.backend is not self.files:
            self.files.delete(key)  # an older file copy must not outlive the keyring's

    def delete(self, url: str) -> bool:
        key = server_key(url)
        removed = False
        try:
            removed = self.backend.delete(key)
        except Exception:
            removed = False
        if self.backend is not self.files:
            removed = self.files.delete(key) or removed
        return removed

    def update(self, url: str, **changes: Any) -> dict[str, Any]:
        record = self.load(url)
        for key, value in changes.items():
            if value is None:
                record.pop(key, None)
            else:
                record[key] = value
        self.save(url, record)
        return record
