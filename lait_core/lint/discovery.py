"""Which files `lait lint PATH...` checks, and what kind each one is."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from enum import Enum
from pathlib import Path

from lait_core.documents.config_file import CONFIG_NAME
from lait_core.documents.foreign_formats import FOREIGN_DIRS, FOREIGN_SUFFIXES, foreign_format
from lait_core.syntax.frontmatter import starts_with_frontmatter

SKIPPED_DIRS = frozenset(("target", "node_modules"))
_TOP_STEPS = re.compile(r"^(?:steps|nodes)\s*:", re.MULTILINE)
_TOP_KEY = re.compile(r"^([A-Za-z_]+)[ \t]*:", re.MULTILINE)
_WORKFLOW_KEY = re.compile(r"^(?:steps|nodes)[ \t]*:", re.MULTILINE)
"""A line that _TOP_KEY finds as ``steps`` or ``nodes``."""
CI_DIRS = frozenset((".github", ".gitea", ".forgejo"))
"""Where a ``workflows/`` folder holds a CI service's workflows (GitHub Actions, Gitea, Forgejo), not lait's."""
TEST_SUFFIXES = (".test.yml", ".test.yaml")
EVAL_SUFFIXES = (".eval.yml", ".eval.yaml")


class FileKind(Enum):
    CONFIG = "config"
    WORKFLOW = "workflow"
    AGENT = "agent"
    SKILL = "skill"
    TEST = "test"
    """A `lait test` file (docs/testing.md); see :func:`yaml_kind`."""
    EVAL = "eval"
    """A `lait eval` file (docs/testing.md); see :func:`yaml_kind`."""
    FOREIGN = "foreign"
    """Another tool's file (VS Code/Copilot, Claude Code): :mod:`lait_core.documents.foreign_formats`."""
    UNKNOWN = "unknown"


def file_kind(path: str | Path) -> FileKind:
    name = os.path.basename(str(path))
    if name == CONFIG_NAME:
        return FileKind.CONFIG
    if (name.endswith((".md", ".json"))) and foreign_format(path) is not None:
        return FileKind.FOREIGN
    if name == "SKILL.md":
        return FileKind.SKILL
    ext = name.rsplit(".", 1)[-1] if "." in name else ""
    if ext in ("yml", "yaml"):
        return FileKind.WORKFLOW
    if ext == "md":
        return FileKind.AGENT
    return FileKind.UNKNOWN


YAML_KINDS = frozenset((FileKind.WORKFLOW, FileKind.CONFIG, FileKind.TEST, FileKind.EVAL))
"""The kinds whose files are YAML documents (the others are Markdown with frontmatter)."""


def yaml_kind(path: str | Path, text: str) -> FileKind:
    """The kind of a ``.yml``/``.yaml`` file other than lait.config.yml, by its top-level keys and name.

    A top-level ``steps:`` (or the version 1 ``nodes:``) makes a workflow, whatever the name.
    Otherwise a test file has ``replay:`` or both ``workflow:`` and ``assert:`` at the top level, or is
    named ``*.test.yml``/``*.test.yaml``; an eval file has both ``target:`` and ``cases:``, or is named
    ``*.eval.yml``/``*.eval.yaml`` (so a new, still empty file already gets completion). Everything
    else is a workflow, as before test files existed. A workflow never has these keys at its top
    level (they are unknown there), so no valid workflow is taken for a test or eval file.
    """
    if text and _WORKFLOW_KEY.search(text):  # usually near the top: no need to list every key
        return FileKind.WORKFLOW
    keys = set(_TOP_KEY.findall(text)) if text else set()
    name = os.path.basename(str(path)).lower()
    if name.endswith(TEST_SUFFIXES) or "replay" in keys or {"workflow", "assert"} <= keys:
        return FileKind.TEST
    if name.endswith(EVAL_SUFFIXES) or {"target", "cases"} <= keys:
        return FileKind.EVAL
    return FileKind.WORKFLOW


def _md_has_frontmatter(path: str) -> bool:
    from lait_core.syntax.bounded_read import read_head

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
        if entry.name.startswith("."):
            if entry.name in FOREIGN_DIRS and entry.is_dir(follow_symlinks=False):
                yield from _walk_foreign(entry.path, FOREIGN_DIRS[entry.name], seen)
            elif entry.name == ".mcp.json" and entry.is_file(follow_symlinks=False):
                yield entry.path
            continue
        if entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIPPED_DIRS:
                yield from _walk(entry.path, seen)
            continue
        if not entry.is_file(follow_symlinks=False):
            continue
        name = entry.name
        ext = name.rsplit(".", 1)[-1] if "." in name else ""
        if ext in ("yml", "yaml") or (
            ext == "md" and (name.lower().endswith(FOREIGN_SUFFIXES) or _md_has_frontmatter(entry.path))
        ):
            yield entry.path


def _walk_foreign(folder: str, wanted: tuple[str, ...], seen: set[str], depth: int = 0) -> Iterator[str]:
    """The files of another tool in one of its dot-folders (``.github``, ``.claude``, ...): only the
    entries ``wanted`` at the top (``agents``, ``mcp.json``, ...), and below them only files in a
    foreign format (:func:`foreign_format`), so a repository's other dot-files are never read."""
    key = os.path.realpath(folder)
    if key in seen or depth > 8:
        return
    seen.add(key)
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if (depth == 0 and entry.name not in wanted) or entry.name.startswith(".") or entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIPPED_DIRS:
                yield from _walk_foreign(entry.path, wanted, seen, depth + 1)
        elif entry.is_file(follow_symlinks=False) and foreign_format(entry.path) is not None:
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


def registered_kind(
    path: Path, skills: dict[str, str] | None, agents: dict[str, str] | None = None
) -> FileKind:
    """:func:`file_kind`, except that a Markdown file registered under ``skills:`` is a skill
    wherever it lives and whatever its name, and another tool's Markdown file registered under
    ``agents:`` or ``skills:`` is a lait agent or skill (the config says so)."""
    kind = file_kind(path)
    if kind is FileKind.FOREIGN and path.suffix == ".md":
        if skills and registered(path, "skills", skills):
            return FileKind.SKILL
        if agents and registered(path, "agents", agents):
            return FileKind.AGENT
        return kind
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
    file already gets completion; not the ``workflows/`` of ``.github``, ``.gitea`` or ``.forgejo``,
    which hold CI workflows) or that a config registers under ``workflows:``; a ``.md``
    with frontmatter that is registered under ``agents:``, lives in an ``agents/`` folder, or is used
    by an ``agent:`` step (``agent_refs``); or a ``SKILL.md`` or a Markdown file registered under
    ``skills:`` (whatever its name); or a test or eval file (:func:`yaml_kind`). Other YAML and
    Markdown are not. The
    language server uses this for every open document, `lait lint --only-lait-files` (the
    pre-commit hook) for every file it is given."""
    kind = registered_kind(path, skills, agents)
    if kind is FileKind.CONFIG or kind is FileKind.SKILL or kind is FileKind.FOREIGN:
        return kind
    if path.name == CONFIG_NAME:
        return FileKind.CONFIG
    if kind is FileKind.WORKFLOW:
        refined = yaml_kind(path, text)
        if refined is not FileKind.WORKFLOW:
            return refined
        if (
            _TOP_STEPS.search(text)
            or (path.parent.name == "workflows" and path.parent.parent.name not in CI_DIRS)
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
