"""Remembered first requests: how a chat in a project with a config file can be sent ahead too.

Without a config file, argv and the environment decide a chat's first request
(:mod:`lait_cli.quick`). With one, the request also depends on the config (the model alias, its
endpoint, the system prompt, sampling defaults), which the send-ahead path cannot read: reading YAML
into the config models is what it must not wait for. So after a chat whose first request the same
inputs will always make again, the chat command remembers that request as a *template*: the body
with the user's message left out, and where its endpoint and key come from. The next chat with the
same inputs fills the template in and sends it ahead; the engine still adopts the answer only when
its own request is the same, byte for byte (:mod:`lait_core.engine.ahead_response`).

The inputs, hashed into the template's file name (:func:`memo_key`): lait's version, the working
directory, the chat's options other than the key and the prompt, the environment variables those
options read, whether a key is given, and the identity (path, size, mtime, SHA-256) of each config
file in effect and of ``./.env``. A base URL with ``${VAR}`` placeholders is stored unexpanded and
expanded when used, so a changed variable changes the URL, never sends to the old one.

Stored in ``$XDG_CACHE_HOME/lait/ahead/`` (``~/.cache/lait/ahead/``), mode 0600. A template holds no
key and no prompt: the model id, the endpoint as written in the config, the system prompt and the
sampling values. Standard library only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core import __version__

if TYPE_CHECKING:
    from lait_core.engine.settings import LlmSettings

MAX_TEMPLATE_BYTES = 1 << 20
"""A larger template file is ignored (every file read is bounded)."""
MAX_HASHED_BYTES = 16 << 20
"""A config file larger than this is never read here (the config loader refuses it anyway)."""
KEPT = 64
"""Templates kept (the most recently written)."""
USER_CONTENT = None
"""The user message's content in a stored body: filled in with the prompt when used."""


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/lait/ahead`` (``~/.cache/lait/ahead`` by default); not created here."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME", "")
    if not base or not os.path.isabs(base):
        base = os.path.join(env.get("HOME") or str(Path.home()), ".cache")
    return Path(base) / "lait" / "ahead"


def file_identity(path: Path) -> list[object] | None:
    """``[absolute path, size, mtime_ns, sha256]`` of a regular file; None when there is none."""
    try:
        info = path.stat()
        if not path.is_file() or info.st_size > MAX_HASHED_BYTES:
            return None
        with path.open("rb") as handle:
            digest = hashlib.sha256(handle.read(MAX_HASHED_BYTES + 1)).hexdigest()
    except OSError:
        return None
    return [os.path.abspath(path), info.st_size, info.st_mtime_ns, digest]


def memo_key(inputs: dict[str, Any]) -> str:
    """The template's name for these inputs (lait's version and the working directory included)."""
    whole = {"version": __version__, "cwd": os.getcwd(), **inputs}
    text = json.dumps(whole, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _private_folder(folder: Path) -> bool:
    """Whether ``folder`` is this user's and nobody else may write to it."""
    try:
        info = folder.stat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


def load(key: str) -> dict[str, Any] | None:
    """The template stored under ``key``; None when there is none, it is unreadable, or it is not a
    regular file of this user's that only this user can read and write, in a folder nobody else can
    write to (a template decides where a request and its key go)."""
    folder = cache_dir()
    if not _private_folder(folder):
        return None
    try:
        fd = os.open(folder / f"{key}.json", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            return None
        data = os.read(fd, MAX_TEMPLATE_BYTES + 1)
        if len(data) > MAX_TEMPLATE_BYTES:
            return None
        template = json.loads(data)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    return template if _valid(template) else None


def _valid(template: Any) -> bool:
    if not isinstance(template, dict):
        return False
    body = template.get("body")
    messages = body.get("messages") if isinstance(body, dict) else None
    return (
        isinstance(template.get("base_url"), str)
        and isinstance(template.get("expand"), bool)
        and template.get("key") in ("absent", "override")
        and isinstance(messages, list)
        and bool(messages)
        and isinstance(messages[-1], dict)
        and messages[-1].get("role") == "user"
    )


def save(key: str, base_url: str, expand: bool, key_kind: str, body: dict[str, Any]) -> None:
    """Store a template: ``body`` (its last message the user's, whose content is left out), the base
    URL as the config wrote it, and where the key comes from (``absent`` or ``override``). Written to
    a temporary file and renamed, so a reader never sees half a template; problems are ignored (a
    template is only ever an optimisation)."""
    import tempfile  # here: the send-ahead path only reads templates

    messages = [dict(m) for m in body.get("messages", [])]
    if not messages or messages[-1].get("role") != "user":
        return
    messages[-1]["content"] = USER_CONTENT
    template = {
        "base_url": base_url,
        "expand": expand,
        "key": key_kind,
        "body": {**body, "messages": messages},
    }
    folder = cache_dir()
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not _private_folder(folder):
            return
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(template, handle, ensure_ascii=False)
            os.replace(temporary, folder / f"{key}.json")
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        _prune(folder)


def _prune(folder: Path) -> None:
    """Keep the :data:`KEPT` most recently written templates (one is written per distinct set of
    inputs), and no temporary file a killed writer left an hour ago or more."""
    entries: list[tuple[float, Path]] = []
    now = time.time()
    for path in folder.iterdir():
        with contextlib.suppress(OSError):
            modified = path.lstat().st_mtime
            if path.name.startswith(".tmp-"):
                if now - modified > 3600:
                    path.unlink()
            elif path.suffix == ".json":
                entries.append((modified, path))
    entries.sort(reverse=True)
    for _, path in entries[KEPT:]:
        with contextlib.suppress(OSError):
            path.unlink()


def filled(template: dict[str, Any], user_content: str) -> dict[str, Any]:
    """The template's body with the user's message."""
    body = dict(template["body"])
    messages = [dict(m) for m in body["messages"]]
    messages[-1]["content"] = user_content
    body["messages"] = messages
    return body


def remember(key: str, settings: LlmSettings, response_cache: bool) -> None:
    """Store the process's first request (:func:`lait_core.engine.ahead.first_sent`) under ``key``,
    unless something besides the inputs ``key`` names could change it (tools, MCP servers,
    subagents or skills; the response cache; fallback endpoints; a key from the config; an endpoint
    not sent ahead to) or it was already answered from a request sent ahead. Never raises."""
    from lait_core.engine import ahead

    try:
        sent = ahead.first_sent()
        if sent is None or sent[1]:
            return
        parts = sent[0]
        model = settings.model
        if settings.uses_tools or settings.skills or response_cache or len(model.endpoints) != 1:
            return
        endpoint = model.endpoints[0]
        if endpoint.embedded or endpoint.key.kind not in ("override", "absent"):
            return
        if ahead.loopback_target(parts.url) is None or parts.url != f"{endpoint.base_url()}/chat/completions":
            return
        body = json.loads(parts.content)
        if isinstance(body, dict):
            save(key, endpoint.raw_base_url, endpoint.expand_base_url, endpoint.key.kind, body)
    except Exception:  # only ever an optimisation for the next chat
        return
