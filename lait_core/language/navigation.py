"""Workspace symbols and selection ranges.

* :func:`workspace_symbols`: every name the lait files under some folders define (steps, inputs,
  schemas, inline agents, model aliases, MCP servers, tools, agents, skills, workflows) plus each
  workflow and agent file itself and the names the global config defines, matched against a query the way editors do (the query's
  characters in order, case-insensitive).
* :func:`selection_ranges`: for a position, the ranges an editor's "expand selection" walks
  through: the word, the scalar, the key/value pair, the mapping or list that holds it, and so on up
  to the whole document (agent bodies: the line, then the body).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from lait_core.language.index import Namespace, normpath
from lait_core.language.nodes import tight_range
from lait_core.lint.discovery import FileKind, discover, lait_kind
from lait_core.syntax.positions import LineIndex, Position, Range
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

MAX_SYMBOLS = 2000
MAX_FILES = 5000


@dataclass(frozen=True, slots=True)
class WorkspaceSymbol:
    name: str
    kind: Namespace | FileKind
    """A namespace for a defined name; the file kind for a workflow or agent file."""
    path: str
    range: Range
    index: LineIndex
    container: str
    """Where it is defined (the file's name relative to the folder searched)."""


def matches(query: str, name: str) -> bool:
    """The query's characters appear in ``name`` in order (case-insensitive); '' matches all."""
    if not query:
        return True
    it = iter(name.lower())
    return all(ch in it for ch in query.lower())


def workspace_symbols(
    project: object, roots: list[str], query: str, limit: int = MAX_SYMBOLS
) -> list[WorkspaceSymbol]:
    """``project`` is a :class:`~lait_core.language.symbols.Project` (its cached indexes are reused)."""
    from lait_core.language.symbols import Project

    assert isinstance(project, Project)
    out: list[WorkspaceSymbol] = []
    seen: set[str] = set()
    for root in roots:
        try:
            paths = discover([root])
        except OSError:
            continue
        for count, raw in enumerate(paths):
            if count >= MAX_FILES or len(out) >= limit:
                break
            path = normpath(raw)
            if path in seen or project.is_global(path):  # listed once, below
                continue
            seen.add(path)
            text = project.read(path)
            if text is None:
                continue
            kind = lait_kind(Path(path), text)
            if kind not in (FileKind.WORKFLOW, FileKind.AGENT, FileKind.CONFIG):
                continue
            index = project.index_path(path, kind)
            if index is None:
                continue
            container = os.path.relpath(path, root)
            lines = index.source.index
            if kind in (FileKind.WORKFLOW, FileKind.AGENT):
                stem = os.path.splitext(os.path.basename(path))[0]
                if matches(query, stem):
                    out.append(WorkspaceSymbol(stem, kind, path, Range.at(0, 0), lines, container))
            for occ in index.occurrences:
                if occ.definition and matches(query, occ.key.name):
                    out.append(
                        WorkspaceSymbol(occ.key.name, occ.key.namespace, path, occ.range, lines, container)
                    )
                    if len(out) >= limit:
                        break
    glob = project.global_index()  # names every project may use (model aliases, MCP servers, ...)
    if glob is not None:
        container = _home_relative(glob.path)
        for occ in glob.occurrences:
            if len(out) >= limit:
                break
            if occ.definition and matches(query, occ.key.name):
                out.append(
                    WorkspaceSymbol(
                        occ.key.name, occ.key.namespace, glob.path, occ.range, glob.source.index, container
                    )
                )
    return out


def _home_relative(path: str) -> str:
    """``path`` with the home directory shown as ``~`` (the global config's container name)."""
    home = os.path.expanduser("~")
    if home not in ("", "~", "/") and path.startswith(home.rstrip("/") + "/"):
        return "~" + path[len(home.rstrip("/")) :]
    return path


# --------------------------------------------------------------------------------------------

_WORD = re.compile(r"[\w$@.-]+")


def _word(index: LineIndex, pos: Position) -> Range | None:
    line = index.line_text(pos.line)
    for m in _WORD.finditer(line):
        if m.start() <= pos.character <= m.end():
            return Range.at(pos.line, m.start(), pos.line, m.end())
    return None


def _chain(root: Node | None, pos: Position) -> list[Range]:
    """Innermost first: node ranges that contain ``pos``, with a key/value pair between a value and
    its mapping."""
    out: list[Range] = []
    cur = root
    while cur is not None:
        rng = tight_range(cur)
        if not (rng.start <= pos <= rng.end):
            break
        out.append(rng)
        nxt: Node | None = None
        if isinstance(cur, MappingNode):
            for k, v in cur.pairs:
                pair = Range(k.range.start, max(k.range.start, tight_range(v).end))
                if pair.start <= pos <= pair.end:
                    out.append(pair)
                    key = tight_range(k)
                    nxt = k if key.start <= pos <= key.end else v
                    break
        elif isinstance(cur, SequenceNode):
            for item in cur.items:
                rng = tight_range(item)
                if rng.start <= pos <= rng.end:
                    nxt = item
                    break
        elif isinstance(cur, ScalarNode):
            break
        cur = nxt
    out.reverse()
    return out


def selection_ranges(kind: FileKind, text: str, path: str, positions: list[Position]) -> list[list[Range]]:
    """For each position, its ranges from the innermost to the whole document (each containing the
    previous one). Never raises for bad input."""
    index = LineIndex(text)
    whole = Range(Position(0, 0), index.position(len(text)))
    root: Node | None = None
    body: Range | None = None
    if kind is FileKind.WORKFLOW:
        from lait_core.documents.workflow_file import parse_workflow

        root = parse_workflow(text, path).root
    elif kind is FileKind.CONFIG:
        from lait_core.documents.config_file import parse_config

        root = parse_config(text, path).root
    elif kind is FileKind.AGENT:
        from lait_core.documents.agent_file import parse_agent

        agent = parse_agent(text, path)
        root = agent.front
        if agent.system:
            body = agent.system_range(0, len(agent.system))
    out: list[list[Range]] = []
    for pos in positions:
        chain: list[Range] = []
        word = _word(index, pos)
        if word is not None:
            chain.append(word)
        if body is not None and body.start <= pos <= body.end:
            line = Range.at(pos.line, 0, pos.line, len(index.line_text(pos.line)))
            chain += [line, body]
        else:
            chain += _chain(root, pos)
        chain.append(whole)
        kept: list[Range] = []
        for rng in chain:  # each range must contain the previous one
            if kept and (rng == kept[-1] or not (rng.start <= kept[-1].start and kept[-1].end <= rng.end)):
                continue
            kept.append(rng)
        out.append(kept)
    return out


__all__ = ["WorkspaceSymbol", "matches", "selection_ranges", "workspace_symbols"]
