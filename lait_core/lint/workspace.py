"""A set of documents and the references between them (config <-> agents <-> workflows).

The workspace reads files through :meth:`Workspace.read`, which an editor overrides with its
open buffers, and caches by canonical path, for the life of one lint run (or until the editor says
the text changed), what the files that use a document need from it: for an agent and a child
workflow a summary (:class:`AgentSummary`, :class:`WorkflowSummary`) rather than the whole parse,
which would hold every located tree a large project's files use (docs/performance.md#memory).
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from lait_core.documents.agent_file import AgentDocument, parse_agent
from lait_core.documents.config_file import LoadedConfig
from lait_core.documents.document_models import Config
from lait_core.documents.placement import MAX_DEPTH, Placement, inherited_problems
from lait_core.documents.skill_file import SkillDocument, parse_skill
from lait_core.documents.workflow_file import WorkflowDocument, parse_workflow
from lait_core.syntax import read_log as reads
from lait_core.syntax.bounded_read import Loaded, read_source
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.positions import Range

D = TypeVar("D")


class _Resolved(threading.local):
    folders: dict[str, str | None] | None = None
    """Within :func:`resolved_folders` (in this thread): each folder's resolved path (None: it does
    not exist)."""


_resolved = _Resolved()


def canonical(path: Path) -> str:
    """The path with every symbolic link resolved, or its absolute path if there is no such file."""
    folders = _resolved.folders
    if folders is not None:
        folder, name = os.path.split(path)
        if name not in ("", ".", ".."):
            real = folders.get(folder, "")
            if real == "":
                try:
                    real = os.path.realpath(folder or os.curdir, strict=True)
                except OSError:
                    real = None
                folders[folder] = real
            if real is None:
                return os.path.abspath(path)
            joined = os.path.join(real, name)
            try:
                is_link = stat.S_ISLNK(os.lstat(joined).st_mode)
            except OSError:
                return os.path.abspath(path)
            if not is_link:
                return joined
    try:
        return str(path.resolve(strict=True))
    except OSError:
        return os.path.abspath(path)


@contextmanager
def resolved_folders() -> Iterator[None]:
    """Within, :func:`canonical` resolves each folder once and then looks only at the file (one
    system call instead of one per part of the path: 20 us a call, 2,300 calls for 1,000 workflows).
    For a batch lint (`lait lint`), during which no folder is moved or relinked; an editor's
    workspace lives too long for that, but one workspace lint is a snapshot (lait-ls's other threads
    resolve as before: the cache is the calling thread's)."""
    outer = _resolved.folders
    _resolved.folders = {} if outer is None else outer
    try:
        yield
    finally:
        _resolved.folders = outer


def display_path(path: Path) -> str:
    """How diagnostics name a file: relative to the current directory when it is below it (as
    `lait lint .` names files there, and lait-ls in the folder the editor starts it in), else absolute."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    outside = rel == os.pardir or rel.startswith(os.pardir + os.sep)  # not `..notes.yml` in this folder
    return str(path) if outside else rel


_CONCURRENT = (Placement(True, False), Placement(True, True))
"""The placements under which a child's steps can be misplaced (see :func:`inherited_problems`)."""


@dataclass(slots=True)
class AgentSummary:
    """What an `agent:` step's check needs from the agent file it names: the file's own findings
    (``problems``) and those of its settings (``content``, each message starting with
    :data:`AGENT_CONTEXT`, which the caller replaces with its step), all attributed to the file."""

    path: str
    ok: bool
    problems: tuple[Diagnostic, ...]
    content: tuple[Diagnostic, ...]
    skipped: bool
    """A capability name was not checked (no config)."""


AGENT_CONTEXT = "\x00agent\x00"
"""Stands for "the agent of <step>" in :attr:`AgentSummary.content` messages."""


@dataclass(frozen=True, slots=True)
class Reach:
    """The nesting checks a child workflow's findings passed (none of them found a problem): the
    files they compared with the calling chain, and how much deeper than the child they went. The
    findings hold for any caller whose chain contains none of ``files`` and leaves room for ``deeper``."""

    files: frozenset[str]
    deeper: int

    def holds(self, stack: tuple[str, ...]) -> bool:
        """The findings computed once are those of a call from the chain ``stack`` (the caller's)."""
        return len(stack) + 1 + self.deeper <= MAX_DEPTH and self.files.isdisjoint(stack)


@dataclass(slots=True)
class ChildFindings:
    findings: list[Diagnostic]
    reach: Reach
    reads: frozenset[str]
    """The files the findings looked at (the child's children, agents, schema files)."""


@dataclass(slots=True)
class WorkflowSummary:
    """What a `workflow:` step's checks need from the child it runs: whether it loads, what of it
    cannot run under a concurrent placement, the workflows it runs in turn, and (once computed) its
    findings. ``doc`` (the whole parse) is kept only until findings are known that hold for every
    caller (:class:`Reach`)."""

    path: str
    ok: bool
    misplaced: dict[Placement, tuple[tuple[Range, str], ...]]
    calls: tuple[tuple[str, Placement], ...]
    """Each `workflow:` step's reference and placement, in document order."""
    doc: WorkflowDocument | None
    findings: dict[str, ChildFindings]
    """By the folder the callers name the child in (its messages name paths relative to it)."""

    @classmethod
    def of(cls, doc: WorkflowDocument) -> WorkflowSummary:
        misplaced = {}
        for placement in _CONCURRENT:
            found = tuple((m.range, m.message) for m in inherited_problems(doc, placement))
            if found:
                misplaced[placement] = found
        calls = []
        for step in doc.all_steps():
            node = step.get("workflow") if step.kind == "workflow" else None
            ref = node.to_python() if node is not None else None
            if isinstance(ref, str) and ref:
                calls.append((ref, step.placement))
        return cls(doc.path, doc.ok, misplaced, tuple(calls), doc, {})

    def misplaced_under(self, placement: Placement) -> tuple[tuple[Range, str], ...]:
        return self.misplaced.get(placement, ()) if placement.concurrent else ()

    def keep(self, folder: str, findings: ChildFindings) -> None:
        """Findings that hold for every caller ``findings.reach`` admits: the parse is no longer needed."""
        self.findings[folder] = findings
        self.doc = None


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
        self._skills: dict[str, SkillDocument | Loaded] = {}
        self._agent_summaries: dict[str, AgentSummary | Loaded] = {}
        self._workflow_summaries: dict[str, WorkflowSummary | Loaded] = {}
        self._read_by: dict[str, frozenset[str]] = {}
        """The files each cached document's reading looked at (see :mod:`lait_core.syntax.read_log`)."""
        self._dependants: dict[str, list[tuple[dict[str, Any], str]]] = {}
        """For each file (canonical or absolute path), the cache entries made from it or that looked at it."""

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
        """Forget ``path`` (None: everything), and every summary that looked at it: a child whose
        findings read it (a child's child, an agent, a schema file), an agent whose schema file it is."""
        if path is None:
            for cache in (self._workflows, self._skills, self._agent_summaries, self._workflow_summaries):
                cache.clear()
            self._dependants.clear()
            return
        for where in {canonical(path), os.path.abspath(path)}:
            for cache, key in self._dependants.pop(where, ()):
                cache.pop(key, None)

    def _depends(self, cache: dict[str, Any], key: str, paths: Iterable[str]) -> None:
        """The entry ``key`` of ``cache`` is stale once any of ``paths`` changes."""
        for path in paths:
            self._dependants.setdefault(path, []).append((cache, key))

    def keep_findings(
        self, summary: WorkflowSummary, path: Path, folder: str, findings: ChildFindings
    ) -> None:
        """The child at ``path`` (summarized as ``summary``) has findings for every caller from ``folder``
        (see :meth:`WorkflowSummary.keep`); they are forgotten when a file they looked at changes."""
        summary.keep(folder, findings)
        self._depends(self._workflow_summaries, canonical(path), findings.reads)

    def _cached(
        self, cache: dict[str, D | Loaded], path: Path, parse: Callable[[str, str], D], variant: str = ""
    ) -> D | Loaded:
        """The document at ``path``, parsed once per workspace under :func:`display_path`'s name for it.

        The name is the path's, never the caller's: the first caller's name would stay with the
        cached parse (its locations and messages name the file), so a workflow run by another one
        was quoted by its absolute path whenever a test file's lint, which names files as given,
        had parsed it first."""
        key = canonical(path) + variant
        cached = cache.get(key)
        if cached is None:
            seen: set[str] = set()
            with reads.recording(seen):
                loaded = self.read(path)
                cached = loaded if loaded.text is None else parse(loaded.text, display_path(path))
            cache[key] = cached
            self._read_by[key] = frozenset(seen)
            self._depends(cache, key, (canonical(path), *seen))
        reads.note_all(self._read_by.get(key, (os.path.abspath(path),)))
        return cached

    def workflow(self, path: Path) -> WorkflowDocument | Loaded:
        return self._cached(self._workflows, path, parse_workflow)

    def workflow_summary(self, path: Path) -> WorkflowSummary | Loaded:
        """What the files that run the workflow at ``path`` need from it (its parse is not cached)."""
        return self._cached(
            self._workflow_summaries, path, lambda text, name: WorkflowSummary.of(parse_workflow(text, name))
        )

    def workflow_document(self, path: Path) -> WorkflowDocument | Loaded:
        """The workflow at ``path`` parsed again, once its summary has let go of the parse."""
        summary = self.workflow_summary(path)
        if isinstance(summary, WorkflowSummary) and summary.doc is not None:
            return summary.doc
        loaded = self.read(path)
        return loaded if loaded.text is None else parse_workflow(loaded.text, display_path(path))

    def agent_summary(self, path: Path) -> AgentSummary | Loaded:
        """What the files that use the agent file at ``path`` need from it."""
        return self._cached(
            self._agent_summaries,
            path,
            lambda text, name: self._summarize(parse_agent(text, name), path),
            f"\n{path.parent}",  # its schema files' messages name them from there
        )

    def _summarize(self, agent: AgentDocument, path: Path) -> AgentSummary:
        from lait_core.lint.checks.agents import check_agent_body, check_agent_content
        from lait_core.rules.capabilities.names_not_checked import SkipTracker

        problems = [d.at(agent.path) for d in agent.diagnostics]
        content: list[Diagnostic] = []
        skip = SkipTracker()
        if agent.ok:
            body: list[Diagnostic] = []
            check_agent_body(agent, body)
            problems += [d.at(agent.path) for d in body]
            check_agent_content(agent.front, AGENT_CONTEXT, path.parent, self.config, content, skip)
        return AgentSummary(
            agent.path, agent.ok, tuple(problems), tuple(d.at(agent.path) for d in content), skip.skipped
        )

    def skill(self, path: Path) -> SkillDocument | Loaded:
        return self._cached(self._skills, path, parse_skill)
