"""Which open documents are lait files, and the editor's view of the file system.

A file is a lait file when it is ``lait.config.yml``; a ``.yml``/``.yaml`` whose top level has
``steps:`` or that a config registers under ``workflows:``; a ``.md`` with frontmatter that is
registered under ``agents:``, lives in an ``agents/`` folder, or is used by an ``agent:`` step of an
open workflow; or a ``SKILL.md``. Other YAML and Markdown get nothing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from lait_core.documents.config import CONFIG_NAME
from lait_core.lint.discovery import FileKind, file_kind
from lait_core.source.files import Loaded, decode, read_source
from lait_core.source.frontmatter import starts_with_frontmatter

_TOP_STEPS = re.compile(r"^steps\s*:", re.MULTILINE)
_AGENT_REF = re.compile(r"^\s*(?:-\s+)?agent\s*:\s*['\"]?([^'\"#\n]+?)['\"]?\s*(?:#.*)?$", re.MULTILINE)


class Overlay:
    """Open editor buffers shadow files on disk for every read the core makes."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}

    def set(self, path: Path, text: str) -> None:
        self.texts[os.path.abspath(path)] = text

    def drop(self, path: Path) -> None:
        self.texts.pop(os.path.abspath(path), None)

    def read(self, path: Path) -> Loaded:
        text = self.texts.get(os.path.abspath(path))
        if text is not None:
            return decode(text.encode("utf-8", errors="surrogatepass"))
        return read_source(path)


def registered(path: Path, section: str, registries: dict[str, str]) -> bool:
    target = os.path.normpath(os.path.abspath(path))
    for value in registries.values():
        candidate = os.path.normpath(value)
        if candidate == target or os.path.normpath(os.path.join(candidate, "SKILL.md")) == target:
            return True
    return False


def lait_kind(
    path: Path,
    text: str,
    *,
    workflows: dict[str, str] | None = None,
    agents: dict[str, str] | None = None,
    agent_refs: set[str] | None = None,
) -> FileKind | None:
    """The lait kind of an open document, or None when it is not a lait file."""
    kind = file_kind(path)
    if kind is FileKind.CONFIG or kind is FileKind.SKILL:
        return kind
    if path.name == CONFIG_NAME:
        return FileKind.CONFIG
    if kind is FileKind.WORKFLOW:
        if _TOP_STEPS.search(text) or registered(path, "workflows", workflows or {}):
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


def agent_references(workflow_path: Path, text: str) -> set[str]:
    """Absolute paths of agent files that a workflow text refers to by path."""
    out: set[str] = set()
    for match in _AGENT_REF.finditer(text):
        ref = match.group(1).strip()
        if "/" in ref or ref.endswith(".md"):
            out.add(os.path.normpath(os.path.abspath(workflow_path.parent / ref)))
    return out
