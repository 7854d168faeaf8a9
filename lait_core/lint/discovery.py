"""Which files `lait lint PATH...` checks, and what kind each one is."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from enum import Enum
from pathlib import Path

from lait_core.documents.config import CONFIG_NAME
from lait_core.source.frontmatter import starts_with_frontmatter

SKIPPED_DIRS = frozenset(("target", "node_modules"))
_TOP_STEPS = re.compile(r"^(?:steps|nodes)\s*:", re.MULTILINE)


class FileKind(Enum):
    CONFIG = "config"
    WORKFLOW = "workflow"
    AGENT = "agent"
    SKILL = "skill"
    UNKNOWN = "unknown"


def file_kind(path: str | Path) -> FileKind:
    name = os.path.basename(str(path))
    if name == CONFIG_NAME:
        return FileKind.CONFIG
    if name == "SKILL.md":
        return FileKind.SKILL
    ext = name.rsplit(".", 1)[-1] if "." in name else ""
    if ext in ("yml", "yaml"):
        return FileKind.WORKFLOW
    if ext == "md":
        return FileKind.AGENT
    return FileKind.UNKNOWN


def _md_has_frontmatter(path: str) -> bool:
    from lait_core.source.files import read_head

    try:
        head = read_head(path, 8)  # a FIFO or device is refused, never opened for a blocking read
    except OSError:
        return False
    return starts_with_frontmatter(head.decode("utf-8", errors="replace"))


def _walk(root: str, seen: set[str]) -> Iterator[str]:
    key = os.path.realpath(root)
    if key in seen:
        return
    seen.add(key)
    with os.scandir(root) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        if entry.name.startswith(".") or entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIPPED_DIRS:
                yield from _walk(entry.path, seen)
            continue
        if not entry.is_file(follow_symlinks=False):
            continue
        name = entry.name
        ext = name.rsplit(".", 1)[-1] if "." in name else ""
        if ext in ("yml", "yaml") or (ext == "md" and _md_has_frontmatter(entry.path)):
            yield entry.path


def discover(paths: list[str]) -> Iterator[str]:
    """Explicit files as given (whatever their name); directories walked in sorted order.

    Dot-entries, symlinks, `target/` and `node_modules/` are skipped; each directory is walked once.
    A Markdown file is picked up only when its first line is `---`.
    """
    seen: set[str] = set()
    for arg in paths:
        if os.path.isdir(arg):
            yield from _walk(arg, seen)
        else:
            yield arg


def registered(path: Path, section: str, registries: dict[str, str]) -> bool:
    target = os.path.normpath(os.path.abspath(path))
    for value in registries.values():
        candidate = os.path.normpath(value)
        if candidate == target or os.path.normpath(os.path.join(candidate, "SKILL.md")) == target:
            return True
    return False


def registered_kind(path: Path, skills: dict[str, str] | None) -> FileKind:
    """:func:`file_kind`, except that a Markdown file registered under ``skills:`` is a skill
    wherever it lives and whatever its name."""
    kind = file_kind(path)
    if kind is FileKind.AGENT and skills and registered(path, "skills", skills):
        return FileKind.SKILL
    return kind


def lait_kind(
    path: Path,
    text: str,
    *,
    workflows: dict[str, str] | None = None,
    agents: dict[str, str] | None = None,
    agent_refs: set[str] | None = None,
    skills: dict[str, str] | None = None,
) -> FileKind | None:
    """The lait kind of a file, or None when it is not a lait file.

    A file is a lait file when it is ``lait.config.yml``; a ``.yml``/``.yaml`` whose top level has
    ``steps:`` (or the version 1 ``nodes:``), lives in a ``workflows/`` folder (so a new, still empty
    file already gets completion) or that a config registers under ``workflows:``; a ``.md``
    with frontmatter that is registered under ``agents:``, lives in an ``agents/`` folder, or is used
    by an ``agent:`` step (``agent_refs``); or a ``SKILL.md`` or a Markdown file registered under
    ``skills:`` (whatever its name). Other YAML and Markdown are not. The
    language server uses this for every open document, `lait lint --only-lait-files` (the
    pre-commit hook) for every file it is given."""
    kind = registered_kind(path, skills)
    if kind is FileKind.CONFIG or kind is FileKind.SKILL:
        return kind
    if path.name == CONFIG_NAME:
        return FileKind.CONFIG
    if kind is FileKind.WORKFLOW:
        if (
            _TOP_STEPS.search(text)
            or path.parent.name == "workflows"
            or registered(path, "workflows", workflows or {})
        ):
            return kind
        return None
    if kind is FileKind.AGENT:
        if not starts_with_frontmatter(text):
            return None
        if path.parent.name == "agents" or registered(path, "agents", agents or {}):
            return kind
        if agent_refs and os.path.normpath(os.path.abspath(path)) in agent_refs:
            return kind
        return None
    return None
