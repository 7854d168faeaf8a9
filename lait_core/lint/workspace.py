"""A set of documents and the references between them (config <-> agents <-> workflows).

The workspace reads files through :meth:`Workspace.read`, which an editor overrides with its
open buffers, and caches each parsed document by its canonical path for the life of one lint
run (or until the editor says the text changed).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from lait_core.documents.agent_file import AgentDocument, parse_agent
from lait_core.documents.config_file import LoadedConfig
from lait_core.documents.document_models import Config
from lait_core.documents.skill_file import SkillDocument, parse_skill
from lait_core.documents.workflow_file import WorkflowDocument, parse_workflow
from lait_core.syntax import read_log as reads
from lait_core.syntax.bounded_read import Loaded, read_source

D = TypeVar("D")


def canonical(path: Path) -> str:
    try:
        return str(path.resolve(strict=True))
    except OSError:
        return os.path.abspath(path)


def display_path(path: Path) -> str:
    """How diagnostics name a file: relative to the current directory when it is below it (as
    `lait lint .` names files there, and lait-ls in the folder the editor starts it in), else absolute."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    outside = rel == os.pardir or rel.startswith(os.pardir + os.sep)  # not `..notes.yml` in this folder
    return str(path) if outside else rel


class Workspace:
    def __init__(
        self,
        config: LoadedConfig | None = None,
        *,
        reader: Callable[[Path], Loaded] | None = None,
    ) -> None:
        self.loaded_config = config
        self._reader = reader or read_source
        self._workflows: dict[str, WorkflowDocument | Loaded] = {}
        self._agents: dict[str, AgentDocument | Loaded] = {}
        self._skills: dict[str, SkillDocument | Loaded] = {}
        self._read_by: dict[str, frozenset[str]] = {}
        """The files each cached document's reading looked at (see :mod:`lait_core.syntax.read_log`)."""

    @property
    def config(self) -> Config | None:
        """The merged config, or None when no config is present (names are then not checked)."""
        if self.loaded_config is None or not self.loaded_config.present:
            return None
        return self.loaded_config.config

    def read(self, path: Path) -> Loaded:
        reads.note(path)
        return self._reader(path)

    def invalidate(self, path: Path | None = None) -> None:
        if path is None:
            self._workflows.clear()
            self._agents.clear()
            self._skills.clear()
            return
        key = canonical(path)
        for cache in (self._workflows, self._agents, self._skills):
            cache.pop(key, None)

    def _cached(self, cache: dict[str, D | Loaded], path: Path, parse: Callable[[str, str], D]) -> D | Loaded:
        """The document at ``path``, parsed once per workspace under :func:`display_path`'s name for it.

        The name is the path's, never the caller's: the first caller's name would stay with the
        cached parse (its locations and messages name the file), so a workflow run by another one
        was quoted by its absolute path whenever a test file's lint, which names files as given,
        had parsed it first."""
        key = canonical(path)
        cached = cache.get(key)
        if cached is None:
            seen: set[str] = set()
            with reads.recording(seen):
                loaded = self.read(path)
                cached = loaded if loaded.text is None else parse(loaded.text, display_path(path))
            cache[key] = cached
            self._read_by[key] = frozenset(seen)
        reads.note_all(self._read_by.get(key, (os.path.abspath(path),)))
        return cached

    def workflow(self, path: Path) -> WorkflowDocument | Loaded:
        return self._cached(self._workflows, path, parse_workflow)

    def agent(self, path: Path) -> AgentDocument | Loaded:
        return self._cached(self._agents, path, parse_agent)

    def skill(self, path: Path) -> SkillDocument | Loaded:
        return self._cached(self._skills, path, parse_skill)
