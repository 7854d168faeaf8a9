"""Reading the agent and skill files a run uses, with every problem reported as
``lait: <file>:<line>:<col>: <message>`` (a :class:`DocumentInvalid`, which is a ``ConfigurationError``), never a traceback.
Parsed documents are cached in the run's session by canonical path."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, MutableMapping
from pathlib import Path
from typing import Any, TypeVar

from lait_core.documents.agent_file import AgentDocument, parse_agent
from lait_core.documents.skill_file import SkillDocument, parse_skill
from lait_core.engine.llm.chat_types import DocumentInvalid
from lait_core.syntax.bounded_read import read_source
from lait_core.syntax.diagnostics import Diagnostic, Severity


def canonical(path: Path) -> Path:
    """The absolute, symlink-resolved path (cycle checks compare these)."""
    return Path(os.path.realpath(path))


def located_error(
    path: Path | str, diagnostics: Iterable[Diagnostic], *, unreadable: bool = False
) -> DocumentInvalid | None:
    """One error naming every error-severity diagnostic as ``file:line:col: message`` (and carrying
    them, for callers that print them as lint does)."""
    errors = [d for d in diagnostics if d.severity is Severity.ERROR]
    lines = [f"{path}:{d.range.start.line + 1}:{d.range.start.character + 1}: {d.message}" for d in errors]
    if not lines:
        return None
    return DocumentInvalid("\n".join(lines), path=str(path), diagnostics=errors, unreadable=unreadable)


def _read(path: Path) -> str:
    loaded = read_source(path)
    if loaded.text is None:
        assert loaded.problem is not None
        error = located_error(path, [loaded.problem], unreadable=True)
        assert error is not None
        raise error
    return loaded.text


def read_agent(path: Path, cache: MutableMapping[tuple[str, str], Any] | None = None) -> AgentDocument:
    """The parsed, valid agent file at ``path`` (ConfigurationError otherwise)."""
    return _read_document("agent", path, parse_agent, cache)


def read_skill(path: Path, cache: MutableMapping[tuple[str, str], Any] | None = None) -> SkillDocument:
    """The parsed, valid skill file at ``path`` (a directory means its ``SKILL.md``)."""
    if path.is_dir():
        path = path / "SKILL.md"
    return _read_document("skill", path, parse_skill, cache)


_Document = TypeVar("_Document", AgentDocument, SkillDocument)


def _read_document(
    kind: str,
    path: Path,
    parse: Callable[[str, str], _Document],
    cache: MutableMapping[tuple[str, str], Any] | None,
) -> _Document:
    """``parse`` of the file at ``path``, raising its errors as one :func:`located_error`; kept in
    ``cache`` under ``(kind, canonical path)``."""
    key = (kind, str(canonical(path)))
    if cache is not None and key in cache:
        cached: _Document = cache[key]
        return cached
    doc = parse(_read(path), str(path))
    error = located_error(path, doc.diagnostics)
    if error is not None:
        raise error
    if cache is not None:
        cache[key] = doc
    return doc
