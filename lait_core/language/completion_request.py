"""What every completion request works from, in every kind of file (:mod:`lait_core.language.completion`
and :mod:`lait_core.language.testfiles`): the items it answers, the environment, the document
prepared once per version (and repaired while a line does not parse) and the request's base."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from lait_core.documents.document_models import Config
from lait_core.language import completion_names as names
from lait_core.language.child_inputs import Reader
from lait_core.language.completion_names import ItemKind
from lait_core.language.context import CursorContext, YamlPath
from lait_core.lint.discovery import FileKind
from lait_core.syntax.frontmatter import Split, split_frontmatter
from lait_core.syntax.positions import LineIndex, Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import Node


@dataclass(frozen=True, slots=True)
class CompletionItem:
    label: str
    kind: ItemKind
    range: Range
    """What the insert replaces (code points): the partial word at the cursor."""
    insert: str
    detail: str = ""
    documentation: str = ""
    """Markdown."""
    snippet: bool = False
    """``insert`` uses snippet syntax (``${1:x}``, ``$0``)."""
    multiline: bool = False
    """``insert`` spans lines and is already indented for its place (insert it as is)."""
    filter_text: str | None = None
    sort_text: str | None = None


@dataclass(frozen=True, slots=True)
class Environment:
    """What completion may know beyond the document."""

    path: Path | None = None
    """The document's file (relative agent and workflow paths are listed next to it)."""
    config: Config | None = None
    """The merged lait.config.yml (registries, MCP servers, tools, model aliases)."""
    reader: Reader | None = None
    """Reads other files (a child workflow's ``inputs:``); the disk when None."""


@dataclass(slots=True)
class PreparedDocument:
    text: str
    kind: FileKind
    index: LineIndex
    yaml_text: str
    """The YAML the tree is parsed from (an agent file's frontmatter blanked around; same offsets)."""
    tree: Node | None
    """The located tree when the YAML parses."""
    body_start: int | None = None
    first_line: int = 0
    last_line: int | None = None
    _repairs: dict[int, Node | None] = field(default_factory=dict)
    _steps: dict[int, list[names.StepInfo]] = field(default_factory=dict)

    def semantic_tree(self, line: int) -> Node | None:
        """The tree, or a repaired one for a cursor on ``line`` while the text does not parse."""
        if self.tree is not None:
            return self.tree
        if line in self._repairs:
            return self._repairs[line]
        repaired = _repair(self.yaml_text, self.index, line)
        if len(self._repairs) > 8:
            self._repairs.clear()
        self._repairs[line] = repaired
        return repaired

    def steps(self, tree: Node | None) -> list[names.StepInfo]:
        if tree is None:
            return []
        key = id(tree)
        found = self._steps.get(key)
        if found is None:
            found = self._steps[key] = names.collect_steps(tree)
        return found


_REPAIRED: OrderedDict[str, Node | None] = OrderedDict()


_REPAIRED_SIZE = 4


_repair_lock = threading.Lock()


def _repair(yaml_text: str, index: LineIndex, line: int) -> Node | None:
    """The tree of the text with ``line`` blanked (or of the text above it), None if neither parses.

    Kept across versions: while someone types on one line, the blanked text does not change.
    """
    start = index.line_start(line)
    end = yaml_text.find("\n", start)
    end = len(yaml_text) if end == -1 else end
    blanked = yaml_text[:start] + " " * (end - start) + yaml_text[end:]
    with _repair_lock:
        if blanked in _REPAIRED:
            _REPAIRED.move_to_end(blanked)
            return _REPAIRED[blanked]
    parsed = parse_yaml(blanked)
    root = parsed.root if parsed.ok else None
    if root is None:
        above = parse_yaml(yaml_text[:start])
        root = above.root if above.ok else None
    with _repair_lock:
        _REPAIRED[blanked] = root
        while len(_REPAIRED) > _REPAIRED_SIZE:
            _REPAIRED.popitem(last=False)
    return root


def prepare(text: str, kind: FileKind) -> PreparedDocument:
    """Parse ``text`` once for any number of completion requests on this version."""
    index = LineIndex(text)
    if kind is FileKind.AGENT:
        split = split_frontmatter(text)
        if isinstance(split, Split):
            yaml_text = split.yaml_text
            body_start: int | None = split.body_start
            last: int | None = split.closing_line - 1
        elif text.startswith("---"):
            first_end = text.find("\n")
            yaml_text = " " * 3 + text[3:] if first_end == -1 else " " * first_end + text[first_end:]
            body_start, last = None, None
        else:
            return PreparedDocument(text, kind, index, "", None, body_start=0)
        parsed = parse_yaml(yaml_text)
        tree = parsed.root if parsed.ok else None
        return PreparedDocument(text, kind, index, yaml_text, tree, body_start, 1, last)
    if kind is FileKind.WORKFLOW:
        from lait_core.documents.workflow_file import kept_parse

        kept = kept_parse(text)  # the lint's parse of this text, when there is one
        if kept is not None and kept.root is not None:
            return PreparedDocument(text, kind, index, text, kept.root)
    parsed = parse_yaml(text)
    return PreparedDocument(text, kind, index, text, parsed.root if parsed.ok else None)


class RequestBase:
    """What one completion request works from, in every kind of file (this module's requests and
    :mod:`lait_core.language.testfiles`'): the prepared document, the cursor context, the
    environment and the tree the request reads (:meth:`PreparedDocument.semantic_tree`)."""

    def __init__(
        self, doc: PreparedDocument, ctx: CursorContext, env: Environment, tree: Node | None
    ) -> None:
        self.doc = doc
        self.ctx = ctx
        self.env = env
        self.tree = tree

    # -- ranges ---------------------------------------------------------------------------------
    def range(self, start: int, end: int) -> Range:
        return self.doc.index.range(start, end)

    @property
    def whole_word(self) -> str:
        """The word at the cursor, including what follows the cursor (a key being edited)."""
        return self.doc.text[self.ctx.word_start : self.ctx.word_end]

    @property
    def word_range(self) -> Range:
        return self.range(self.ctx.word_start, self.ctx.word_end)

    # -- the tree -------------------------------------------------------------------------------
    def node_at(self, path: YamlPath) -> Node | None:
        return names.node_at(self.tree, path)
