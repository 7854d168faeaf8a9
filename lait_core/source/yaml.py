"""Parse YAML text into the located tree of :mod:`lait_core.source.tree`.

The structure comes from tree-sitter-yaml (a YAML 1.2 grammar; the last tree of each path is kept so
an edited text is reparsed only where it changed); the composer (:mod:`lait_core.source.compose`) is
ours so that

* scalars resolve with the YAML 1.2 core schema (``yes``/``on`` stay strings;
  :mod:`lait_core.source.scalar_values`),
* duplicate keys, undefined aliases, multiple documents and syntax errors become located
  diagnostics instead of exceptions (a syntax error's message comes from libyaml when it rejects the
  text too: it says what was expected),
* an alias is expanded as a copy located at its use, under a node budget, so a "billion laughs"
  file is a diagnostic, not an out-of-memory kill.

A text too long or too deeply nested for tree-sitter-yaml is read from libyaml's events instead
(:mod:`lait_core.source.events`); both readers build the document through one :class:`_Document`
(tags, anchors and aliases, the key and document diagnostics).

Checked case by case against the official YAML test suite: tests/conformance/test_yaml_suite.py.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lait_core.diagnostics import Diagnostic, Related, Severity
from lait_core.gcpause import paused_gc
from lait_core.source.compose import ComposeError, Composer, Offsets, kinds
from lait_core.source.positions import Position, Range
from lait_core.source.scalar_values import TagError, resolve_plain, resolve_tagged
from lait_core.source.tree import MappingNode, Node, ScalarNode, SequenceNode, SourceText

ALIAS_NODE_BUDGET = 100_000
"""Nodes that alias expansion may create in one document before it is cut off (LAIT003)."""
MAX_DEPTH = 128
"""Nesting depth of mappings and sequences; deeper documents are cut off with LAIT001 (no lait file
comes close, and it bounds the recursion of everything that walks the tree)."""

TREE_SITTER_MAX_LINES = 30_000
"""Longer texts are read from libyaml's events (:mod:`lait_core.source.events`): tree-sitter-yaml 0.7.2
stops fitting a text after about 32,768 lines with content."""

_DEEP_LINE = re.compile(r"^[ \t?:-]{150}", re.MULTILINE)
"""A line that starts with 150 characters of indentation and block indicators: block nesting that
deep (more than MAX_DEPTH anyway) overflows tree-sitter-yaml 0.7.2's indentation stack (a crash at
about 250 levels), so such a text is read from libyaml's events too."""

CODE_SYNTAX = "LAIT001"
CODE_DUPLICATE_KEY = "LAIT002"
CODE_ALIAS = "LAIT003"
CODE_TAB = "LAIT008"


@dataclass(slots=True)
class ParsedYaml:
    source: SourceText
    root: Node | None
    problems: list[Diagnostic] = field(default_factory=list)
    comments: list[tuple[int, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(p.severity is Severity.ERROR for p in self.problems)


_LOCAL = threading.local()
_LANGUAGE: Any = None


def _tree_sitter_parser() -> Any:
    """This thread's tree-sitter parser for YAML (imported on first use: about 1 ms)."""
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        global _LANGUAGE
        import tree_sitter

        if _LANGUAGE is None:
            import tree_sitter_yaml

            _LANGUAGE = tree_sitter.Language(tree_sitter_yaml.language())
        parser = _LOCAL.parser = tree_sitter.Parser(_LANGUAGE)
    return parser


_RECENT: dict[str, tuple[bytes, Any]] = {}
"""The last tree of each recently parsed path (UTF-8 texts only), for an incremental reparse."""
_RECENT_LOCK = threading.Lock()
_RECENT_MAX = 8
_CHUNK = 4096


def _parse_tree(offsets: Offsets, key: str) -> tuple[Any, bool]:
    """tree-sitter's tree of the text, and whether it was parsed incrementally: when ``key`` (a path)
    was parsed lately, only the edited part is parsed again (an editor sends the whole text on each
    keystroke)."""
    parser = _tree_sitter_parser()
    data = offsets.data
    if not key or offsets.encoding != "utf8":
        return parser.parse(data, encoding=offsets.encoding), False
    with _RECENT_LOCK:  # taken out while in use: Tree.edit changes it
        entry = _RECENT.pop(key, None)
    incremental = entry is not None
    if entry is None:
        tree = parser.parse(data)
    else:
        previous, old_tree = entry
        if previous != data:
            _edit(old_tree, previous, data)
        tree = parser.parse(data, old_tree)
    with _RECENT_LOCK:
        _RECENT[key] = (data, tree)
        while len(_RECENT) > _RECENT_MAX:
            del _RECENT[next(iter(_RECENT))]
    return tree, incremental


def _edit(tree: Any, old: bytes, new: bytes) -> None:
    """Tell ``tree`` (of ``old``) which bytes changed to make ``new``: one edit from the first to the
    last differing byte (compared a chunk at a time, then byte by byte)."""
    limit = min(len(old), len(new))
    start = 0
    while start + _CHUNK <= limit and old[start : start + _CHUNK] == new[start : start + _CHUNK]:
        start += _CHUNK
    while start < limit and old[start] == new[start]:
        start += 1
    room = limit - start  # the common suffix may not overlap the common prefix
    old_end, new_end = len(old), len(new)
    while (
        old_end - start >= _CHUNK
        and new_end - start >= _CHUNK
        and old[old_end - _CHUNK : old_end] == new[new_end - _CHUNK : new_end]
    ):
        old_end -= _CHUNK
        new_end -= _CHUNK
    while len(old) - old_end < room and old[old_end - 1] == new[new_end - 1]:
        old_end -= 1
        new_end -= 1
    tree.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=_point(old, start),
        old_end_point=_point(old, old_end),
        new_end_point=_point(new, new_end),
    )


def _point(data: bytes, offset: int) -> tuple[int, int]:
    return data.count(b"\n", 0, offset), offset - (data.rfind(b"\n", 0, offset) + 1)


_NOT_PRINTABLE = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters YAML 1.2 does not allow in a stream (section 5.1); tree-sitter-yaml does not check this."""


def parse_yaml(text: str, path: str = "", *, source: SourceText | None = None) -> ParsedYaml:
    """Parse ``text``; never raises for bad input."""
    src = source or SourceText(text, path)
    result = ParsedYaml(src, None)
    problems = result.problems
    try:
        offsets = Offsets(text)
    except UnicodeEncodeError as exc:
        problems.append(_error_diagnostic(exc, src))
        return result
    if _NOT_PRINTABLE.search(text):
        problems.append(_syntax_problem(text, src, None))
        return result
    if text.count("\n") >= TREE_SITTER_MAX_LINES or _DEEP_LINE.search(text):
        from lait_core.source.events import parse_events

        return parse_events(text, path, src)
    tree, incremental = _parse_tree(offsets, path)
    stream = tree.root_node
    if stream.has_error:
        if incremental:  # error recovery may differ after an incremental parse: locate errors as the CLI does
            stream = _tree_sitter_parser().parse(offsets.data, encoding=offsets.encoding).root_node
        problems.append(_syntax_problem(text, src, stream, offsets))
        return result
    documents = [child for child in stream.children if child.type == "document"]
    if not documents:
        return result
    composer = _composer(src, offsets, path, problems)
    # The composer allocates tens of thousands of objects and no reference cycles: collections
    # meanwhile would only scan the heap (several per large file, each one a pause).
    with paused_gc():
        try:
            if len(documents) > 1:
                problems.append(second_document(_second_document_range(documents[1], composer)))
            document = documents[0]
            composer.directives(document)
            for child in document.children:
                if child.type in ("block_node", "flow_node"):
                    result.root = composer.node(child, -1)
                    break
        except ComposeError as exc:
            result.root = None
            del problems[:]
            pos = src.position(exc.offset)
            end = src.position(exc.offset + 1) if exc.offset < len(text) and text[exc.offset] != "\n" else pos
            message = exc.message
            if exc.code == CODE_SYNTAX and not message.startswith("YAML syntax error"):
                message = f"YAML syntax error: {message}"
            problems.append(Diagnostic(exc.code, message, Range(pos, end)))
    return result


def _second_document_range(document: Any, composer: Composer) -> Range:
    start = composer.cp(document.start_byte)
    end = start
    for child in document.children:
        if child.type == "---":
            start, end = composer.cp(child.start_byte), composer.cp(child.end_byte)
            break
    return composer.src.range(start, end)


def second_document(use: Range) -> Diagnostic:
    """The error for a second document in a file (``use``: its ``---``)."""
    return Diagnostic(
        CODE_SYNTAX,
        "this file holds more than one YAML document; a lait file is one document (remove the '---' separator)",
        use,
    )


class _Document:
    """What both readers do alike while they build one document (the tree-sitter composer here,
    libyaml's events in :mod:`lait_core.source.events`): explicit tags, anchors, alias expansion
    under :data:`ALIAS_NODE_BUDGET`, and the diagnostics for tags, aliases and mapping keys, added to
    ``problems``. Each reader locates nodes itself and passes the ranges in."""

    def __init__(self, src: SourceText, path: str, problems: list[Diagnostic]) -> None:
        self.src = src
        self.path = path
        self.problems = problems
        self.anchors: dict[str, Node] = {}
        self._budget = [ALIAS_NODE_BUDGET]
        self._reported_aliases: set[str] = set()

    def tagged(self, tag: str, raw: str, use: Range) -> Any:
        """The value of a scalar with an explicit tag; its text when the text does not fit the tag
        (reported)."""
        try:
            return resolve_tagged(tag, raw)
        except TagError as exc:
            self.problems.append(Diagnostic(CODE_SYNTAX, str(exc), use))
            return raw

    def anchor(self, name: str, node: Node) -> None:
        self.anchors[name] = node

    def alias(self, name: str, start: int, end: int, use: Range, open_nodes: Iterable[Node]) -> Node:
        """The node an alias stands for: a copy of its anchor's node located at the use, or a null
        scalar there (reported) when there is no such anchor, the anchor's node is still open (one
        of ``open_nodes``: it would contain itself) or the copy would exceed the node budget."""
        target = self.anchors.get(name)
        if target is None:
            self.problems.append(
                Diagnostic(CODE_SYNTAX, f"alias '*{name}' refers to no anchor '&{name}'", use)
            )
            return ScalarNode(start, end, use, self.src, value=None)
        if any(node is target for node in open_nodes):
            self.problems.append(
                Diagnostic(CODE_ALIAS, f"alias '*{name}' refers to a node that contains it", use)
            )
            return ScalarNode(start, end, use, self.src, value=None)
        copy = _relocated_copy(target, start, end, use, self._budget)
        if copy is None:
            if name not in self._reported_aliases:
                self._reported_aliases.add(name)
                self.problems.append(
                    Diagnostic(
                        CODE_ALIAS,
                        f"alias '*{name}' expands to more than {ALIAS_NODE_BUDGET:,} nodes in"
                        " this file; expand it by hand or simplify the anchors",
                        use,
                    )
                )
            return ScalarNode(start, end, use, self.src, value=None)
        return copy

    def bad_key(self, key_node: Node) -> None:
        self.problems.append(
            Diagnostic(
                CODE_SYNTAX,
                "only scalar mapping keys are supported here; use a plain string key",
                key_node.range,
            )
        )

    def duplicate_key(self, key: Any, key_node: Node, first: Node) -> None:
        self.problems.append(
            Diagnostic(
                CODE_DUPLICATE_KEY,
                f"duplicate key '{key}'; YAML mappings need unique keys (the first one is kept)",
                key_node.range,
                related=(Related(self.path, first.range, f"'{key}' is first defined here"),),
            )
        )


def _composer(src: SourceText, offsets: Offsets, path: str, problems: list[Diagnostic]) -> Composer:
    document = _Document(src, path, problems)
    composer: Composer

    def apply_tag(tag: str, raw: str, start: int, end: int) -> Any:
        return document.tagged(tag, raw, src.range(start, end))

    def alias(name: str, start: int, end: int) -> Node:
        return document.alias(name, start, end, src.range(start, end), composer.open)

    kind_ids = kinds(_tree_sitter_parser().language)
    composer = Composer(
        src,
        offsets,
        kind_ids,
        resolve_plain,
        apply_tag,
        alias,
        document.anchor,
        document.bad_key,
        document.duplicate_key,
        MAX_DEPTH,
    )
    return composer


def _syntax_problem(text: str, src: SourceText, stream: Any, offsets: Offsets | None = None) -> Diagnostic:
    """The diagnostic for a text that is not YAML: libyaml's message and place when libyaml rejects it
    too (its messages say what was expected), else the place where tree-sitter-yaml stopped.

    libyaml (YAML 1.1) also rejects tabs that YAML 1.2 allows as separation space, so a tab it
    reports is LAIT008 only when it really is indentation: in the leading white space of its line, or
    where a space in its place makes the text valid (``-\t- x``). Otherwise the next problem is looked
    for."""
    probe = text
    for _ in range(_TAB_PROBES):
        exc = _libyaml_error(probe)
        if exc is None:
            break
        diagnostic = _error_diagnostic(exc, src)
        if diagnostic.code != CODE_TAB:
            return diagnostic
        offset = src.index.offset(diagnostic.range.start)
        if (
            probe[offset : offset + 1] != "\t"
            or stream is None
            or _in_indentation(src, diagnostic.range.start)
        ):
            return diagnostic
        probe = probe[:offset] + " " + probe[offset + 1 :]
        fixed = Offsets(probe)
        if not _tree_sitter_parser().parse(fixed.data, encoding=fixed.encoding).root_node.has_error:
            return diagnostic
    if stream is None:
        match = _NOT_PRINTABLE.search(text)
        offset = match.start() if match else 0
        code = ord(text[offset]) if match else 0
        return Diagnostic(
            CODE_SYNTAX,
            f"YAML syntax error: character #x{code:04x} is not allowed in YAML text",
            src.range(offset, offset + 1),
        )
    offset, message = _tree_sitter_error(stream, offsets or Offsets(text))
    while offset < len(text) and text[offset] in " \r\n":
        offset += 1
    pos = src.position(offset)
    end = src.position(offset + 1) if offset < len(text) and text[offset] != "\n" else pos
    if offset < len(text) and text[offset] == "\t" and _in_indentation(src, pos):
        return Diagnostic(CODE_TAB, _TAB_MESSAGE, Range(pos, end))
    return Diagnostic(CODE_SYNTAX, message, Range(pos, end))


_TAB_PROBES = 16
_TAB_MESSAGE = "tab character where YAML expects spaces; indent with spaces"


def _in_indentation(src: SourceText, pos: Position) -> bool:
    """True when ``pos`` is in the leading white space of its line (a tab there is indentation)."""
    return not src.index.line_text(pos.line)[: pos.character].strip(" \t")


def _tree_sitter_error(stream: Any, offsets: Offsets) -> tuple[int, str]:
    """Where tree-sitter-yaml's parse went wrong: a missing token, or the end of the first stretch of
    text it could not fit (the start of an inner one, when it nests)."""
    generic = "YAML syntax error: this text does not fit the YAML structure around it"
    stack = [stream]
    while stack:
        node = stack.pop()
        if node.is_missing:
            return offsets.cp(node.start_byte), f"YAML syntax error: missing '{node.type}'"
        if node.type == "ERROR":
            for child in node.children:
                if child.type == "ERROR":
                    return offsets.cp(child.start_byte), generic
                if child.is_missing:
                    return offsets.cp(child.start_byte), f"YAML syntax error: missing '{child.type}'"
            return offsets.cp(node.end_byte), generic
        if node.has_error:
            stack.extend(reversed(node.children))
    return 0, generic


def _libyaml_error(text: str) -> Exception | None:
    """The error libyaml (through ruamel.yaml.clib) raises on ``text``, or None when it reads it."""
    try:
        from _ruamel_yaml import CParser
    except ImportError:  # pragma: no cover - the C extension is a declared dependency
        return None
    try:
        parser = CParser(text)
        depth = 0
        while True:
            event = parser.get_event()
            if event is None:
                return None
            name = event.__class__.__name__
            if name in ("MappingStartEvent", "SequenceStartEvent"):
                depth += 1
                if depth > MAX_DEPTH:
                    return _TooDeep(event.start_mark)
            elif name in ("MappingEndEvent", "SequenceEndEvent"):
                depth -= 1
            elif name == "StreamEndEvent":
                return None
    except Exception as exc:  # libyaml/ruamel errors of every kind
        return exc


def _relocated_copy(target: Node, start: int, end: int, use: Range, budget: list[int]) -> Node | None:
    """A deep copy of ``target`` whose every node is located at the alias use."""

    def make(node: Node) -> Node:
        budget[0] -= 1
        if budget[0] < 0:
            raise _BudgetExceeded
        if isinstance(node, ScalarNode):
            return ScalarNode(start, end, use, None, value=node.value, style=node.style)
        if isinstance(node, SequenceNode):
            return SequenceNode(start, end, use, None, items=[make(i) for i in node.items], flow=node.flow)
        assert isinstance(node, MappingNode)
        return MappingNode(
            start, end, use, None, pairs=[(make(k), make(v)) for k, v in node.pairs], flow=node.flow
        )

    saved = budget[0]
    try:
        return make(target)
    except _BudgetExceeded:
        budget[0] = min(saved, 0)
        return None
    except RecursionError:
        budget[0] = min(saved, 0)
        return None


class _BudgetExceeded(Exception):
    pass


class _TooDeep(Exception):
    def __init__(self, mark: Any) -> None:
        super().__init__("too deep")
        self.problem_mark = mark
        self.problem = f"mappings and lists are nested more than {MAX_DEPTH} levels deep"
        self.context = None


def _error_diagnostic(exc: Exception, src: SourceText) -> Diagnostic:
    mark = getattr(exc, "problem_mark", None)
    text = src.text
    if mark is not None:
        # libyaml may put the mark one line past the end of a text without a final newline
        offset = src.index.offset(Position(mark.line, mark.column))
        pos = src.position(offset)
    elif isinstance(exc, UnicodeError):  # a lone surrogate (an editor's UTF-16 buffer) is not text
        offset = int(getattr(exc, "start", 0) or 0)
        pos = src.position(offset)
        return Diagnostic(
            CODE_SYNTAX,
            "this character is not valid Unicode text (a lone surrogate); delete it",
            Range(pos, src.position(offset + 1)),
        )
    else:  # a ReaderError: its position counts UTF-8 bytes of the text libyaml was given
        byte_offset = int(getattr(exc, "position", 0) or 0)
        offset = len(text.encode("utf-8", "surrogatepass")[:byte_offset].decode("utf-8", "ignore"))
        pos = src.position(offset)
    end = src.position(offset + 1) if offset < len(text) and text[offset] != "\n" else pos
    rng = Range(pos, end)
    if offset < len(text) and text[offset] == "\t":
        return Diagnostic(
            CODE_TAB,
            _TAB_MESSAGE,
            rng,
        )
    problem = getattr(exc, "problem", None)
    if problem is None:
        reason = getattr(exc, "reason", None)
        if reason is not None:
            character = getattr(exc, "character", "")
            code = ord(character) if isinstance(character, str) and character else character
            problem = f"{reason} (#x{code:04x})" if isinstance(code, int) else str(reason)
        else:
            problem = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    context = getattr(exc, "context", None)
    message = f"YAML syntax error: {problem}"
    if context:
        message += f" ({context})"
    return Diagnostic(CODE_SYNTAX, message, rng)
