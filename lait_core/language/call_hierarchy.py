"""Call hierarchy between lait files: which workflows call an agent file or a child workflow (by
path or by a name registered in the config), and what a workflow calls.

An item is a file (a workflow or an agent file). ``prepare`` gives the file a reference at the
position names (an ``agent:``/``workflow:`` value, a registry entry), else the file itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from lait_core.language.index import FileIndex, FileLink, Namespace, Occurrence, normpath
from lait_core.language.symbols import Document, Project
from lait_core.lint.discovery import FileKind, file_kind
from lait_core.syntax.positions import LineIndex, Position, Range

CALLABLE = (Namespace.AGENT, Namespace.WORKFLOW)


@dataclass(frozen=True, slots=True)
class CallItem:
    path: str
    name: str
    kind: FileKind
    index: LineIndex = field(compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Call:
    item: CallItem
    """The caller (incoming) or the callee (outgoing)."""
    ranges: tuple[Range, ...]
    """Where the call is written: in the caller's file."""
    index: LineIndex = field(compare=False, repr=False)
    """The line index of the file ``ranges`` are in."""


def _registry(project: Project, index: FileIndex) -> dict[tuple[Namespace, str], str]:
    """(namespace, name) -> absolute path, from the config governing ``index``."""
    if not index.config:
        return {}
    cfg = index if index.path == index.config else project.index_path(index.config, FileKind.CONFIG)
    out: dict[tuple[Namespace, str], str] = {}
    if cfg is None:
        return out
    base = os.path.dirname(cfg.path)
    for occ in cfg.occurrences:
        value = occ.value
        if occ.definition and occ.key.namespace in CALLABLE and value is not None:
            raw = getattr(value, "value", None)
            if isinstance(raw, str) and raw:
                out[(occ.key.namespace, occ.key.name)] = normpath(os.path.join(base, raw))
    return out


def calls_in(project: Project, index: FileIndex) -> list[tuple[str, Range]]:
    """(callee path, range of the reference) for every agent/workflow a workflow calls."""
    if index.kind is not FileKind.WORKFLOW:
        return []
    registry = _registry(project, index)
    out: list[tuple[str, Range]] = []
    for link in index.links:
        if link.namespace in CALLABLE:
            out.append((link.target, link.range))
    for occ in index.occurrences:
        if not occ.definition and occ.key.namespace in CALLABLE:
            target = registry.get((occ.key.namespace, occ.key.name))
            if target is not None:
                out.append((target, occ.range))
    out.sort(key=lambda t: t[1].start)
    return out


def item_for(project: Project, path: str) -> CallItem | None:
    path = normpath(path)
    text = project.read(path)
    if text is None:
        return None
    kind = file_kind(path)
    if kind not in (FileKind.WORKFLOW, FileKind.AGENT):
        return None
    name = os.path.splitext(os.path.basename(path))[0]
    return CallItem(path, name, kind, LineIndex(text))


def prepare(project: Project, doc: Document, pos: Position) -> CallItem | None:
    index = project.index(doc)
    hit = index.at(pos)
    if isinstance(hit, FileLink) and hit.namespace in CALLABLE:
        return item_for(project, hit.target)
    if isinstance(hit, Occurrence) and hit.key.namespace in CALLABLE:
        target = _registry(project, index).get((hit.key.namespace, hit.key.name))
        if target is not None:
            return item_for(project, target)
    if doc.kind in (FileKind.WORKFLOW, FileKind.AGENT):
        return CallItem(normpath(str(doc.path)), doc.path.stem, doc.kind, LineIndex(doc.text))
    return None


def _document(project: Project, item: CallItem) -> Document | None:
    text = project.read(item.path)
    if text is None:
        return None
    from pathlib import Path

    return Document(Path(item.path), text, item.kind)


def incoming(project: Project, item: CallItem, open_docs: Iterable[Document] = ()) -> list[Call]:
    """The workflows that call ``item`` (with where)."""
    doc = _document(project, item)
    if doc is None:
        return []
    out: list[Call] = []
    for index in project.files(doc, open_docs):
        ranges = tuple(r for target, r in calls_in(project, index) if target == item.path)
        if ranges:
            caller = CallItem(
                index.path, os.path.splitext(os.path.basename(index.path))[0], index.kind, index.source.index
            )
            out.append(Call(caller, ranges, index.source.index))
    out.sort(key=lambda c: c.item.path)
    return out


def outgoing(project: Project, item: CallItem) -> list[Call]:
    """What ``item`` (a workflow) calls, grouped by callee, with where."""
    doc = _document(project, item)
    if doc is None or doc.kind is not FileKind.WORKFLOW:
        return []
    index = project.index(doc)
    grouped: dict[str, list[Range]] = {}
    for target, rng in calls_in(project, index):
        grouped.setdefault(target, []).append(rng)
    out: list[Call] = []
    for target, ranges in grouped.items():
        callee = item_for(project, target)
        if callee is not None:
            out.append(Call(callee, tuple(ranges), index.source.index))
    return out


__all__ = ["Call", "CallItem", "calls_in", "incoming", "item_for", "outgoing", "prepare"]
