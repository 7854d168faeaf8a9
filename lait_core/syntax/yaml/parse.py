"""Parse YAML text into the located tree of :mod:`lait_core.syntax.yaml.tree`.

The structure comes from tree-sitter-yaml (a YAML 1.2 grammar; the last tree of each path is kept so
an edited text is reparsed only where it changed); the composer (:mod:`lait_core.syntax.yaml.compose`) is
ours so that

* scalars resolve with the YAML 1.2 core schema (``yes``/``on`` stay strings;
  :mod:`lait_core.syntax.yaml.scalar_values`),
* duplicate keys, undefined aliases, multiple documents and syntax errors become located
  diagnostics instead of exceptions (a syntax error's message comes from libyaml when it rejects the
  text too: it says what was expected),
* an alias is expanded as a copy located at its use, under a node budget, so a "billion laughs"
  file is a diagnostic, not an out-of-memory kill.

A text too long or too deeply nested for tree-sitter-yaml is read from libyaml's events instead
(:mod:`lait_core.syntax.yaml.libyaml_events`); both readers build the document through one
:class:`~lait_core.syntax.yaml.document_builder.DocumentBuilder` (tags, anchors and aliases, the key and
document diagnostics).

Checked case by case against the official YAML test suite: tests/conformance/test_yaml_suite.py.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from lait_core.rules.files.tab_indentation import CODE as CODE_TAB
from lait_core.rules.files.yaml_syntax import CODE as CODE_SYNTAX
from lait_core.support.gcpause import paused_gc
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.positions import Position, Range
from lait_core.syntax.yaml.compose import ComposeError, Composer, Offsets, kinds
from lait_core.syntax.yaml.document_builder import (
    MAX_DEPTH,
    TAB_MESSAGE,
    DocumentBuilder,
    ParsedYaml,
    TooDeep,
    error_diagnostic,
    second_document,
)
from lait_core.syntax.yaml.scalar_values import resolve_plain
from lait_core.syntax.yaml.tree import Node, SourceText

TREE_SITTER_MAX_LINES = 30_000
"""Longer texts are read from libyaml's events (:mod:`lait_core.syntax.yaml.libyaml_events`): tree-sitter-yaml 0.7.2
stops fitting a text after about 32,768 lines with content."""

_DEEP_LINE = re.compile(r"^[ \t?:-]{150}", re.MULTILINE)
"""A line that starts with 150 characters of indentation and block indicators: block nesting that
deep (more than MAX_DEPTH anyway) overflows tree-sitter-yaml 0.7.2's indentation stack (a crash at
about 250 levels), so such a text is read from libyaml's events too."""


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
        problems.append(error_diagnostic(exc, src))
        return result
    if _NOT_PRINTABLE.search(text):
        problems.append(_syntax_problem(text, src, None))
        return result
    if text.count("\n") >= TREE_SITTER_MAX_LINES or _DEEP_LINE.search(text):
        from lait_core.syntax.yaml.libyaml_events import parse_events

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


def _composer(src: SourceText, offsets: Offsets, path: str, problems: list[Diagnostic]) -> Composer:
    document = DocumentBuilder(src, path, problems)
    open_nodes: list[Node] = []
    # The callbacks hold the composer's list of open collections, not the composer: a closure over
    # the composer would make it, the builder and the text a reference cycle, garbage that only the
    # cyclic collector frees (a collection after every parse, see lait_core.support.gcpause).

    def apply_tag(tag: str, raw: str, start: int, end: int) -> Any:
        return document.tagged(tag, raw, src.range(start, end))

    def alias(name: str, start: int, end: int) -> Node:
        return document.alias(name, start, end, src.range(start, end), open_nodes)

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
        open_nodes,
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
        diagnostic = error_diagnostic(exc, src)
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
        return Diagnostic(CODE_TAB, TAB_MESSAGE, Range(pos, end))
    return Diagnostic(CODE_SYNTAX, message, Range(pos, end))


_TAB_PROBES = 16


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
                    return TooDeep(event.start_mark)
            elif name in ("MappingEndEvent", "SequenceEndEvent"):
                depth -= 1
            elif name == "StreamEndEvent":
                return None
    except Exception as exc:  # libyaml/ruamel errors of every kind
        return exc.with_traceback(None)  # its frames would hold it in a reference cycle
