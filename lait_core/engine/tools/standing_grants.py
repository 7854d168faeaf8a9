"""Standing approvals: the "a(lways)" answer of an approval prompt, kept per project in
``.lait/grants.yml`` (docs/security.md, "Grants").

The file lies in the project folder (the folder of its lait.config.yml), so a grant never applies
to another project. Each grant names the qualified tool and, for an MCP tool, the server and how it
is started as the config writes it (``command`` + ``args``, or the ``url``): when that changes, the
grant no longer applies -- a different program under the same server name is asked about again.
The file is YAML a person can read and edit; ``lait grants list`` / ``revoke`` manage it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lait_core.engine.llm.chat_types import ConfigurationError

GRANTS_FILE = Path(".lait") / "grants.yml"
MAX_GRANTS_BYTES = 1024 * 1024
_HEADER = (
    "# Tool calls lait runs without asking in this project: the 'a' (always) answer of an approval\n"
    "# prompt. Delete an entry, or run 'lait grants revoke TOOL', to be asked again.\n"
)


class GrantsError(ConfigurationError):
    """An unreadable or malformed grants file; the message starts with its path."""


@dataclass(frozen=True, slots=True)
class Grant:
    tool: str
    """The qualified tool name (``notes__add_note``)."""
    server: str | None
    target: str | None
    """How the MCP server is started, as the config writes it (JSON of its command or url)."""
    granted: str
    """When, as an ISO 8601 UTC timestamp."""

    def matches(self, tool: str, server: str | None, target: str | None) -> bool:
        return self.tool == tool and self.server == server and self.target == target


class Grants:
    """The grants file of one project (read on first use, written on every change)."""

    def __init__(self, project_dir: Path) -> None:
        self.path = project_dir / GRANTS_FILE
        self._grants: list[Grant] | None = None

    def all(self) -> list[Grant]:
        if self._grants is None:
            self._grants = _read(self.path)
        return list(self._grants)

    def find(self, tool: str, server: str | None, target: str | None) -> Grant | None:
        return next((g for g in self.all() if g.matches(tool, server, target)), None)

    def add(self, tool: str, server: str | None, target: str | None) -> Grant:
        existing = self.find(tool, server, target)
        if existing is not None:
            return existing
        now = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        grant = Grant(tool, server, target, now)
        grants = [g for g in self.all() if not (g.tool == tool and g.server == server)] + [grant]
        self._write(grants)
        return grant

    def revoke(self, tool: str) -> list[Grant]:
        """Remove every grant of ``tool`` (a qualified name, or ``*`` for all); returns them."""
        grants = self.all()
        removed = [g for g in grants if tool in ("*", g.tool)]
        if removed:
            self._write([g for g in grants if g not in removed])
        return removed

    def _write(self, grants: list[Grant]) -> None:
        lines = [_HEADER.rstrip("\n"), "grants:" if grants else "grants: []"]
        for g in grants:
            lines.append(f"  - tool: {json.dumps(g.tool)}")
            if g.server is not None:
                lines.append(f"    server: {json.dumps(g.server)}")
            if g.target is not None:
                lines.append(f"    target: {json.dumps(g.target, ensure_ascii=False)}")
            lines.append(f"    granted: {json.dumps(g.granted)}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
            os.replace(tmp, self.path)
        finally:
            if tmp.exists():
                tmp.unlink()
        self._grants = grants


def _read(path: Path) -> list[Grant]:
    from lait_core.syntax.bounded_read import FileRefused, read_bounded

    try:
        data = read_bounded(path, MAX_GRANTS_BYTES)
    except FileNotFoundError:
        return []
    except (FileRefused, OSError) as exc:
        raise GrantsError(f"{path}: cannot read the grants file: {exc}") from None
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        value: Any = YAML(typ="safe", pure=True).load(data.decode("utf-8"))
    except (UnicodeDecodeError, YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        raise GrantsError(f"{path}{where}: not a grants file (invalid YAML); fix or delete it") from None
    items = value.get("grants") if isinstance(value, dict) else None
    if value is None:
        return []
    if not isinstance(items, list):
        raise GrantsError(f"{path}: not a grants file (expected a 'grants:' list); fix or delete it")
    grants = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("tool"), str):
            raise GrantsError(f"{path}: grants[{i}] is not an entry with a 'tool' name; fix or delete it")
        server, target = item.get("server"), item.get("target")
        grants.append(
            Grant(
                item["tool"],
                server if isinstance(server, str) else None,
                target if isinstance(target, str) else None,
                str(item.get("granted", "")),
            )
        )
    return grants


def grant_target(launch: dict[str, Any] | None) -> str | None:
    """The ``target`` of a grant for an MCP server started as ``launch`` (see
    :func:`lait_core.engine.mcp.lock.launch_entry`); None for other tools."""
    return None if launch is None else json.dumps(launch, ensure_ascii=False, sort_keys=True)
