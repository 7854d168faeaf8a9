"""``lait.lock``: the MCP tools a project has reviewed, pinned (docs/security.md, "Pinned MCP tools").

The file lies beside the project's lait.config.yml and is JSON (sorted keys, two-space indent, so a
diff in review shows what changed). It has one entry per pinned server: how it is started as the
config writes it (``command`` + ``args``, ``${VAR}`` unexpanded, or the ``url``), and each of its
tools -- name, description, input and output schema, annotations -- with a ``sha256`` content hash
of exactly those fields.

With a lock file present, a run (and ``lait mcp call``/``tools``) compares each server's listing
with its entry before any tool of it is offered or called: a server that is not pinned, a started
command that differs from the pinned one, a new, changed or removed tool is *drift*, an error that
names the lock file, the server and what changed (:class:`LockDrift`). Without a lock file nothing
is checked. ``lait mcp lock`` writes the file; ``--update`` re-pins after showing the difference.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.engine.llm.chat_types import ConfigurationError
from lait_core.engine.mcp.mcp_errors import McpError
from lait_core.engine.mcp.packages import runner_package

if TYPE_CHECKING:
    from lait_core.documents.document_models import McpServerConfig
    from lait_core.engine.mcp.listing import ListedTool

LOCK_NAME = "lait.lock"
LOCK_VERSION = 1
MAX_LOCK_BYTES = 16 * 1024 * 1024
_TEXT_SHOWN = 160


class LockError(ConfigurationError):
    """An unreadable or malformed lock file; the message starts with its path."""


class LockDrift(McpError):
    """A server's tools or command differ from ``lait.lock``."""


def tool_entry(tool: ListedTool) -> dict[str, Any]:
    """The pinned form of one tool: its reviewed fields and their hash."""
    fields: dict[str, Any] = {
        "description": tool.description,
        "input_schema": tool.input_schema,
        "output_schema": tool.output_schema,
        "annotations": tool.annotations,
    }
    canonical = json.dumps(
        {"name": tool.name, **fields}, sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return {"sha256": hashlib.sha256(canonical.encode()).hexdigest(), **fields}


def launch_entry(config: McpServerConfig) -> dict[str, Any]:
    """How the server is reached, as the config writes it (no expanded values: no secrets)."""
    if config.command is not None:
        return {"command": [config.command, *config.args]}
    return {"url": config.url}


def server_entry(config: McpServerConfig, tools: Iterable[ListedTool]) -> dict[str, Any]:
    return {
        **launch_entry(config),
        "tools": {t.name: tool_entry(t) for t in sorted(tools, key=lambda t: t.name)},
    }


@dataclass(slots=True)
class McpLock:
    """The parsed lock file (``servers``: name -> entry as written)."""

    path: Path
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)

    def render(self) -> str:
        data = {"version": LOCK_VERSION, "servers": {n: self.servers[n] for n in sorted(self.servers)}}
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    def write(self) -> None:
        """Write atomically (a temporary file renamed over the old one)."""
        text = self.render()
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, self.path)
        finally:
            if tmp.exists():
                tmp.unlink()

    def drift(self, name: str, config: McpServerConfig, tools: Iterable[ListedTool]) -> list[str]:
        """What differs between the server's live tools and its entry (empty: none)."""
        return describe_drift(self.servers.get(name), server_entry(config, tools))

    def verify(self, name: str, config: McpServerConfig, tools: Iterable[ListedTool]) -> None:
        """Raise :class:`LockDrift` when ``tools`` (the server's listing) drift from the entry."""
        changes = self.drift(name, config, tools)
        if changes:
            raise LockDrift(name, self.drift_message(name, changes))

    def drift_message(self, name: str, changes: list[str]) -> str:
        """The error detail for server ``name`` drifting by ``changes``."""
        return (
            f"its tools differ from {self.path} ({'; '.join(changes)}); nothing was called. Review the "
            f"change, then run 'lait mcp lock --update {name}' to pin it"
        )

    def unpinned(self, server: str, tool: str) -> str | None:
        """Without connecting: why a run would refuse ``tool`` of ``server`` (the server or the tool
        is not in the file), as the run says it; None when both are pinned."""
        entry = self.servers.get(server)
        if entry is None:
            change = "the server is not pinned"
        elif tool not in (entry.get("tools") or {}):
            change = f"new tool '{tool}'"
        else:
            return None
        return f"MCP server '{server}': {self.drift_message(server, [change])}"


def describe_drift(pinned: Mapping[str, Any] | None, live: Mapping[str, Any]) -> list[str]:
    """One short line per difference between a pinned entry and the live one."""
    if pinned is None:
        return ["the server is not pinned"]
    out: list[str] = []
    for key in ("command", "url"):
        if pinned.get(key) != live.get(key):
            out.append(f"its {key} changed from {_short(pinned.get(key))} to {_short(live.get(key))}")
    old_tools: Mapping[str, Any] = pinned.get("tools") or {}
    new_tools: Mapping[str, Any] = live.get("tools") or {}
    for tool in sorted(set(old_tools) | set(new_tools)):
        old, new = old_tools.get(tool), new_tools.get(tool)
        if old is None:
            out.append(f"new tool '{tool}'")
        elif new is None:
            out.append(f"tool '{tool}' was removed")
        elif not isinstance(old, Mapping) or old.get("sha256") != new.get("sha256"):
            parts = [
                _field_change(key, old.get(key) if isinstance(old, Mapping) else None, new.get(key))
                for key in ("description", "input_schema", "output_schema", "annotations")
                if not isinstance(old, Mapping) or old.get(key) != new.get(key)
            ]
            out.append(f"tool '{tool}' changed: {', '.join(parts) or 'its hash differs'}")
    return out


def _field_change(key: str, old: Any, new: Any) -> str:
    if key == "description":
        return f"description {_short(old)} -> {_short(new)}"
    return f"{key} {_short(old)} -> {_short(new)}"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= _TEXT_SHOWN else text[: _TEXT_SHOWN - 1] + "…"


def lock_path(config_dir: Path) -> Path:
    return config_dir / LOCK_NAME


def load_lock(config_dir: Path) -> McpLock | None:
    """The project's lock (None: there is none). Raises :class:`LockError` when it is unreadable
    or not a lock file."""
    from lait_core.syntax.bounded_read import FileRefused, read_bounded

    path = lock_path(config_dir)
    try:
        data = read_bounded(path, MAX_LOCK_BYTES)
    except FileNotFoundError:
        return None
    except (FileRefused, OSError) as exc:
        raise LockError(f"{path}: cannot read the lock file: {exc}") from None
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        where = f":{exc.lineno}:{exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise LockError(
            f"{path}{where}: not a lait.lock file (invalid JSON); rewrite it with 'lait mcp lock --update'"
        ) from None
    if (
        not isinstance(value, dict)
        or value.get("version") != LOCK_VERSION
        or not isinstance(value.get("servers"), dict)
    ):
        raise LockError(
            f"{path}: not a lait.lock file of version {LOCK_VERSION} (expected an object with 'version' and "
            "'servers'); rewrite it with 'lait mcp lock --update'"
        )
    servers = {str(k): v for k, v in value["servers"].items() if isinstance(v, dict)}
    return McpLock(path, servers)


def package_spec(config: McpServerConfig) -> tuple[str, bool] | None:
    """:func:`~lait_core.engine.mcp.packages.runner_package` of a configured server."""
    return None if config.command is None else runner_package(config.command, config.args)
