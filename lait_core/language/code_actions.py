"""Quick fixes for lint diagnostics: which edits resolve (or silence) a diagnostic.

Everything here works on text and code-point ranges; the language server only converts the
result to LSP types. Three families of fixes:

* the rules' own "did you mean" replacements (:attr:`Diagnostic.fixes`);
* LAIT501 (unknown MCP server): a stub ``<name>: {command: <name>}`` entry under ``mcp_servers:`` in
  the governing lait.config.yml (the block is extended, or the section created);
* suppressions that :mod:`lait_core.lint.suppression` honours: ``# lait: ignore[CODE]`` at the end of
  the line in YAML (merged into an existing ``ignore[...]``), ``<!-- lait: ignore[CODE] -->`` on a
  Markdown body line, and ``lait: ignore-file[CODE]`` for the whole file.

Every generated suppression is checked against the suppression scanner itself, and against the
YAML structure: a line whose end lies inside a multi-line scalar (a ``prompt: |`` body, a quoted
string continued on the next line) or inside a ``{{ }}`` tag gets no line suppression, because a
comment there would change the value instead of silencing the diagnostic; the file-level
suppression is offered instead.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lait_core.language.nodes import last_leaf
from lait_core.lint import suppression
from lait_core.lint.discovery import YAML_KINDS, FileKind
from lait_core.rules.capabilities.unknown_mcp_server import CODE as CODE_UNKNOWN_MCP
from lait_core.syntax.bounded_read import Loaded, read_source
from lait_core.syntax.diagnostics import Diagnostic, Fix
from lait_core.syntax.frontmatter import Split, split_frontmatter, starts_with_frontmatter
from lait_core.syntax.positions import LineIndex, Position, Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

if TYPE_CHECKING:
    from lait_core.lint.engine import Linter

QUICKFIX = "quickfix"
MCP_SECTION = "mcp_servers"

_LINE_COMMENT = re.compile(r"lait:\s*ignore(?!-file)(?:\[([A-Za-z0-9_,\s]*)\])?")
_FILE_COMMENT = re.compile(r"lait:\s*ignore-file(?:\[([A-Za-z0-9_,\s]*)\])?")
_TAG = re.compile(r"\{\{|\}\}")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/@]*")
_UNKNOWN_MCP_MESSAGE = re.compile(r"unknown MCP server '(.*)'; define it under")


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``range`` (code points) by ``text``."""

    range: Range
    text: str


@dataclass(frozen=True, slots=True)
class FileEdit:
    """Edits of one file; ``text`` is the file's text the ranges refer to."""

    path: str
    text: str
    edits: tuple[TextEdit, ...]


@dataclass(frozen=True, slots=True)
class QuickFix:
    title: str
    diagnostic: Diagnostic
    changes: tuple[FileEdit, ...]
    preferred: bool = False
    kind: str = QUICKFIX


# -- applying edits ---------------------------------------------------------------------------------
def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (ranges refer to the original text)."""
    index = LineIndex(text)
    spans = sorted(
        ((index.offset(e.range.start), index.offset(e.range.end), e.text) for e in edits),
        key=lambda s: (s[0], s[1]),
        reverse=True,
    )
    out = text
    for start, end, new in spans:
        out = out[:start] + new + out[max(start, end) :]
    return out


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _inside(index: LineIndex, rng: Range) -> bool:
    """``rng`` lies inside the text (positions past a line's end or the last line are stale)."""
    for pos in (rng.start, rng.end):
        if pos.line < 0 or pos.line >= index.line_count or pos.character < 0:
            return False
        if pos.character > len(index.line_text(pos.line)):
            return False
    return rng.start <= rng.end


# -- "did you mean" -------------------------------------------------------------------------------
def rule_fixes(diag: Diagnostic, text: str, index: LineIndex | None = None) -> list[Fix]:
    """The rule's own fixes of ``diag`` whose ranges still fit ``text``: what both the editor's quick
    fixes and `lait lint --fix` apply (:mod:`lait_core.lint.fixing`)."""
    index = index or LineIndex(text)
    return [f for f in diag.fixes if _inside(index, f.range)]


def replacements(diag: Diagnostic, path: str, text: str) -> list[QuickFix]:
    """The rule's own fixes (``Replace with 'x'``), for ranges that still fit the text."""
    fixes = rule_fixes(diag, text)
    return [
        QuickFix(
            f.title, diag, (FileEdit(path, text, (TextEdit(f.range, f.text),)),), preferred=len(fixes) == 1
        )
        for f in fixes
    ]


# -- LAIT501: add the server to lait.config.yml ---------------------------------------------------
def yaml_scalar(value: str) -> str | None:
    """``value`` written as a YAML scalar that reads back as the same string in block and flow context."""
    candidates = []
    if _PLAIN_NAME.fullmatch(value):
        candidates.append(value)
    candidates.append(json.dumps(value, ensure_ascii=False))
    for candidate in candidates:
        parsed = parse_yaml(f"k: {{v: {candidate}}}\n{candidate}: 1\n")
        root = parsed.root
        if not parsed.ok or not isinstance(root, MappingNode):
            continue
        if root.to_python() == {"k": {"v": value}, value: 1}:
            return candidate
    return None


def referenced_name(diag: Diagnostic, text: str) -> str | None:
    """The name a diagnostic points at (a list item, maybe quoted), read from the text."""
    index = LineIndex(text)
    if _inside(index, diag.range) and diag.range.start.line == diag.range.end.line:
        raw = text[index.offset(diag.range.start) : index.offset(diag.range.end)]
        parsed = parse_yaml(raw)
        if parsed.ok and isinstance(parsed.root, ScalarNode) and isinstance(parsed.root.value, str):
            value: str = parsed.root.value
            if value:
                return value
    match = _UNKNOWN_MCP_MESSAGE.search(diag.message)
    return match.group(1) if match else None


def _line_end(text: str, offset: int) -> int:
    """Offset of the end of the line holding ``offset`` (before ``\\r\\n``/``\\n``)."""
    eol = text.find("\n", offset)
    if eol == -1:
        return len(text)
    return eol - 1 if eol > 0 and text[eol - 1] == "\r" else eol


def _insert(index: LineIndex, offset: int, text: str) -> TextEdit:
    pos = index.position(offset)
    return TextEdit(Range(pos, pos), text)


def _append_section(text: str, entry: str) -> TextEdit:
    nl = _newline(text)
    index = LineIndex(text)
    lead = nl if text and not text.endswith("\n") else ""
    return _insert(index, len(text), f"{lead}{MCP_SECTION}:{nl}  {entry}{nl}")


def add_mcp_server_edit(config_text: str, name: str) -> TextEdit | None:
    """An edit of a lait.config.yml text that defines MCP server ``name`` as ``{command: name}``.

    None when the file cannot be extended safely (it does not parse, its top level is not a
    mapping, ``mcp_servers`` is not a mapping, or the result would not read back as intended).
    """
    key = yaml_scalar(name)
    if key is None:
        return None
    entry = f"{key}: {{command: {key}}}"
    parsed = parse_yaml(config_text)
    if not parsed.ok:
        return None
    root = parsed.root
    index = LineIndex(config_text)
    nl = _newline(config_text)
    edit: TextEdit | None = None
    if root is None or (isinstance(root, ScalarNode) and root.value is None):
        edit = _append_section(config_text, entry)
    elif isinstance(root, MappingNode) and MCP_SECTION not in root:
        edit = None if root.flow else _append_section(config_text, entry)
    elif isinstance(root, MappingNode):
        key_node = root.key_node(MCP_SECTION)
        section = root.get(MCP_SECTION)
        assert key_node is not None and section is not None
        if isinstance(section, MappingNode) and section.flow:
            close = section.end - 1
            if config_text[close : close + 1] == "}":
                before = config_text[section.start + 1 : close].rstrip()
                sep = "" if not before else " " if before.endswith(",") else ", "
                edit = _insert(index, close, f"{sep}{entry}")
        elif isinstance(section, MappingNode) and section.pairs:
            indent = section.pairs[0][0].range.start.character
            end = last_leaf(section).end
            pad = " " * indent
            if end > 0 and config_text[end - 1] == "\n":
                edit = _insert(index, end, f"{pad}{entry}{nl}")
            else:
                edit = _insert(index, _line_end(config_text, end), f"{nl}{pad}{entry}")
        elif isinstance(section, ScalarNode) and section.value is None:
            pad = " " * (key_node.range.start.character + 2)
            if section.end > section.start:  # an explicit null: `mcp_servers: ~`
                edit = TextEdit(section.range, f"{{{entry}}}")
            else:
                edit = _insert(index, _line_end(config_text, key_node.end), f"{nl}{pad}{entry}")
    if edit is None:
        return None
    return edit if _defines(config_text, edit, name) else None


def _defines(config_text: str, edit: TextEdit, name: str) -> bool:
    """The edited config reads back as the old one plus ``mcp_servers.<name> = {command: <name>}``."""
    old = parse_yaml(config_text)
    new = parse_yaml(apply_edits(config_text, [edit]))
    if not new.ok:
        return False
    old_value = old.root.to_python() if old.root is not None else None
    new_value = new.root.to_python() if new.root is not None else None
    if not isinstance(new_value, dict):
        return False
    expected = dict(old_value) if isinstance(old_value, dict) else {}
    servers = expected.get(MCP_SECTION)
    expected[MCP_SECTION] = {**(servers if isinstance(servers, dict) else {}), name: {"command": name}}
    return repr(new_value) == repr(expected)


def governing_config(path: Path, linter: Linter | None = None) -> Path | None:
    """The lait.config.yml whose ``mcp_servers:`` a file's names are checked against: the project
    file when there is one, else the global file."""
    if linter is not None:
        loaded = linter.config_for(path)
        doc = loaded.project or loaded.global_doc
        return Path(os.path.abspath(doc.path)) if doc is not None else None
    from lait_core.documents.config_file import find_project_config

    return find_project_config(path.parent)


def add_mcp_server(
    diag: Diagnostic, text: str, path: Path, *, linter: Linter | None = None
) -> QuickFix | None:
    if diag.code != CODE_UNKNOWN_MCP:
        return None
    name = referenced_name(diag, text)
    config = governing_config(path, linter)
    if name is None or config is None:
        return None
    reader: Callable[[Path], Loaded] = (linter.reader if linter is not None else None) or read_source
    loaded = reader(config)
    if loaded.text is None:
        return None
    edit = add_mcp_server_edit(loaded.text, name)
    if edit is None:
        return None
    where = config.name
    return QuickFix(
        f"Add '{name}' to '{MCP_SECTION}:' in {where}",
        diag,
        (FileEdit(str(config), loaded.text, (edit,)),),
    )


# -- suppressions -----------------------------------------------------------------------------------
@dataclass(slots=True)
class _Layout:
    """Where comments may go in one text (computed once per request)."""

    text: str
    markdown: bool
    index: LineIndex = field(init=False)
    yaml_lines: range = field(init=False)
    """Lines that are YAML (the whole file, or a Markdown file's frontmatter)."""
    unsafe: set[int] = field(default_factory=set)
    """Lines whose end is inside a value: a comment appended there would change it."""

    def __post_init__(self) -> None:
        self.index = LineIndex(self.text)
        count = self.index.line_count
        if not self.markdown:
            self.yaml_lines = range(count)
            self._scan_yaml(self.text)
            return
        split = split_frontmatter(self.text)
        if isinstance(split, Split):
            self.yaml_lines = range(1, split.closing_line)
            self.unsafe |= {0, split.closing_line}  # the `---` lines must stay exactly `---`
            self._scan_yaml(split.yaml_text)
            self._scan_tags(split.body_start)
        elif starts_with_frontmatter(self.text):
            self.yaml_lines = range(1, count)  # unterminated frontmatter: the scanner reads YAML
            self.unsafe.add(0)
        else:
            self.yaml_lines = range(0)
            self._scan_tags(0)

    def _scan_yaml(self, yaml_text: str) -> None:
        parsed = parse_yaml(yaml_text)
        if parsed.root is None:
            return
        stack: list[Node] = [parsed.root]
        while stack:
            node = stack.pop()
            if isinstance(node, MappingNode):
                for k, v in node.pairs:
                    stack += (k, v)
                continue
            if isinstance(node, SequenceNode):
                stack += node.items
                continue
            rng = node.range
            if rng.start.line == rng.end.line:
                continue
            if isinstance(node, ScalarNode) and node.style in ("|", ">"):
                # content lines (the header line may take a comment); the end mark is past the
                # trailing line breaks, so the last content line is the last non-blank one
                last = node.end
                while last > node.start and yaml_text[last - 1] in " \t\r\n":
                    last -= 1
                self.unsafe.update(range(rng.start.line + 1, self.index.position(last).line + 1))
            else:
                self.unsafe.update(range(rng.start.line, rng.end.line))

    def _scan_tags(self, start: int) -> None:
        """Markdown body lines that end inside a ``{{ ... }}`` tag."""
        opened: int | None = None
        for match in _TAG.finditer(self.text, start):
            if match.group() == "{{":
                if opened is None:
                    opened = match.start()
            elif opened is not None:
                first = self.index.position(opened).line
                last = self.index.position(match.start()).line
                self.unsafe.update(range(first, last))
                opened = None
        if opened is not None:
            self.unsafe.update(range(self.index.position(opened).line, self.index.line_count))

    def honoured(self, new_text: str, diag: Diagnostic) -> bool:
        return suppression.scan(new_text, markdown=self.markdown).suppressed(diag)


def _merge_code(match: re.Match[str], code: str) -> tuple[int, str] | None:
    """Where to insert ``code`` into an ``ignore[...]`` list (None: the list already covers it)."""
    listed = match.group(1)
    if listed is None or not listed.strip():
        return None  # a bare `lait: ignore` (or `ignore[]`) already silences every code
    codes = {c.strip().upper() for c in listed.split(",") if c.strip()}
    if code.upper() in codes:
        return None
    return match.end(1), f", {code}"


def suppress_line_edit(layout: _Layout, diag: Diagnostic) -> TextEdit | None:
    """The edit that silences ``diag.code`` on the line where ``diag`` starts, or None."""
    line_no = diag.range.start.line
    index = layout.index
    if line_no < 0 or line_no >= index.line_count or line_no in layout.unsafe:
        return None
    line = index.line_text(line_no)
    yaml = line_no in layout.yaml_lines
    if not yaml and not layout.markdown:
        return None
    edit: TextEdit | None = None
    for match in _LINE_COMMENT.finditer(line):
        merged = _merge_code(match, diag.code)
        if merged is None:
            continue
        col, insert = merged
        candidate = TextEdit(Range.at(line_no, col), insert)
        if _check(layout, candidate, diag):
            return candidate
    end = Position(line_no, len(line))
    if yaml:
        edit = TextEdit(Range(end, end), f"{' ' if line else ''}# lait: ignore[{diag.code}]")
    else:
        edit = TextEdit(Range(end, end), f"{' ' if line else ''}<!-- lait: ignore[{diag.code}] -->")
    return edit if _check(layout, edit, diag) else None


def _check(layout: _Layout, edit: TextEdit, diag: Diagnostic) -> bool:
    line_no = edit.range.start.line
    # The scanner's state at a line depends only on the lines before it: scan up to this line.
    end = layout.index.line_start(line_no + 1) if line_no + 1 < layout.index.line_count else len(layout.text)
    head = layout.text[:end]
    return layout.honoured(apply_edits(head, [edit]), diag)


def suppress_file_edit(layout: _Layout, diag: Diagnostic) -> TextEdit | None:
    """The edit that silences ``diag.code`` in the whole file, or None."""
    text, index = layout.text, layout.index
    for line_no in range(index.line_count):
        line = index.line_text(line_no)
        if "lait:" not in line:
            continue
        for match in _FILE_COMMENT.finditer(line):
            merged = _merge_code(match, diag.code)
            if merged is None:
                continue
            edit = TextEdit(Range.at(line_no, merged[0]), merged[1])
            if layout.honoured(apply_edits(text, [edit]), diag):
                return edit
    nl = _newline(text)
    start = 1 if text.startswith("\ufeff") else 0
    if layout.markdown and layout.yaml_lines:
        at = Position(1, 0) if index.line_count > 1 else None
        comment = f"# lait: ignore-file[{diag.code}]{nl}"
        if at is None:
            return None
    elif layout.markdown:
        at = Position(0, start)
        comment = f"<!-- lait: ignore-file[{diag.code}] -->{nl}"
    else:
        at = Position(0, start)
        comment = f"# lait: ignore-file[{diag.code}]{nl}"
    edit = TextEdit(Range(at, at), comment)
    return edit if layout.honoured(apply_edits(text, [edit]), diag) else None


# -- all of them --------------------------------------------------------------------------------
def is_markdown(kind: FileKind) -> bool:
    """Which suppression syntax a file kind uses (as the lint engine applies them)."""
    return kind not in YAML_KINDS


def _with_fixes(
    diags: Sequence[Diagnostic], text: str, path: Path, kind: FileKind, linter: Linter | None
) -> list[Diagnostic]:
    """Diagnostics whose fixes a client dropped get them back from a fresh lint of the same text."""
    if linter is None or all(d.fixes or "did you mean" not in d.message for d in diags):
        return list(diags)
    try:
        fresh = linter.lint_text(text, path, kind)
    except Exception:  # the text is whatever the user typed
        return list(diags)
    found: dict[tuple[str, Range], tuple[Fix, ...]] = {(d.code, d.range): d.fixes for d in fresh if d.fixes}
    out = []
    for d in diags:
        fixes = d.fixes or found.get((d.code, d.range), ())
        out.append(Diagnostic(d.code, d.message, d.range, d.severity, d.path, d.related, fixes))
    return out


def quick_fixes(
    text: str,
    path: Path,
    kind: FileKind,
    diagnostics: Sequence[Diagnostic],
    *,
    linter: Linter | None = None,
) -> list[QuickFix]:
    """Every quick fix for ``diagnostics`` of the document ``text`` at ``path``.

    ``linter`` (the editor's session linter) locates the governing config and reads it through
    the editor's open buffers; without it the config is found on disk from ``path``.
    """
    if not diagnostics:
        return []
    doc = str(path)
    layout: _Layout | None = None
    out: list[QuickFix] = []
    for diag in _with_fixes(diagnostics, text, path, kind, linter):
        out += replacements(diag, doc, text)
        added = add_mcp_server(diag, text, path, linter=linter)
        if added is not None:
            out.append(added)
        if layout is None:
            layout = _Layout(text, is_markdown(kind))
        line_edit = suppress_line_edit(layout, diag)
        if line_edit is not None:
            out.append(
                QuickFix(f"Suppress {diag.code} on this line", diag, (FileEdit(doc, text, (line_edit,)),))
            )
        file_edit = suppress_file_edit(layout, diag)
        if file_edit is not None:
            out.append(
                QuickFix(f"Suppress {diag.code} in this file", diag, (FileEdit(doc, text, (file_edit,)),))
            )
    return out
