"""Completion and hover in other tools' files, from the field lists of :mod:`lait_core.documents.foreign_formats`.

Both work on the located tree of the frontmatter (Markdown formats) or of the whole JSON text; a key
is explained with its type, its documented values and the page it comes from, and completion offers
the keys a mapping does not have yet and the documented values of the key on the cursor's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lait_core.documents.foreign_formats import Field, FormatSpec, spec_of
from lait_core.lint.foreign_check import blank_comments
from lait_core.syntax.frontmatter import split_frontmatter, starts_with_frontmatter
from lait_core.syntax.positions import LineIndex, Position, Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, SequenceNode, SourceText

_KEY_PREFIX = re.compile(r"(?:^|[{,])(\s*)(?:-\s+)?\"?([A-Za-z_][\w\-]*)?$")
_VALUE_AT = re.compile(r"(?:^|[\s{,])(?:-\s+)?\"?([A-Za-z_][\w\-]*)\"?\s*:\s*\"?([\w\-]*)$")
_FRONT_KEY = re.compile(r"^([A-Za-z_][\w\-]*)\s*:", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ForeignItem:
    label: str
    kind: str
    """``key`` or ``value``."""
    detail: str
    documentation: str
    range: Range
    insert: str


@dataclass(frozen=True, slots=True)
class ForeignHover:
    markdown: str
    range: Range


def _tree(spec: FormatSpec, text: str) -> tuple[MappingNode | None, Range | None]:
    """The located root mapping and, for Markdown, the frontmatter's lines (None: the whole text)."""
    if spec.markdown:
        if not starts_with_frontmatter(text):
            return None, None
        split = split_frontmatter(text)
        if not hasattr(split, "yaml_text"):
            end = Position(LineIndex(text).line_count, 0)
            return None, Range(Position(1, 0), end)
        yaml_text = split.yaml_text  # type: ignore[union-attr]
        region = Range(Position(1, 0), Position(split.closing_line, 0))  # type: ignore[union-attr]
        parsed = parse_yaml(yaml_text, source=SourceText(yaml_text))
    else:
        region = None
        body = blank_comments(text) if spec.json_comments else text
        parsed = parse_yaml(body, source=SourceText(body))
    root = parsed.root if parsed.ok else None
    return (root if isinstance(root, MappingNode) else None), region


def _children(f: Field | None, fields: tuple[Field, ...]) -> tuple[Field, ...]:
    return f.children if f is not None else fields


def _locate(
    root: MappingNode, pos: Position, fields: tuple[Field, ...]
) -> tuple[Field | None, Node | None, tuple[Field, ...], MappingNode]:
    """(the field whose key is at ``pos``, that key node, the fields of the innermost mapping around
    ``pos``, that mapping)."""
    node: Node = root
    current = fields
    holder = root
    while True:
        if isinstance(node, MappingNode):
            holder = node
            nxt = None
            for key, value in node.pairs:
                name = str(key.to_python())
                f = next((x for x in current if x.name == name), None)
                if key.range.start <= pos <= key.range.end:
                    return f, key, current, node
                if value.range.start <= pos <= value.range.end and isinstance(
                    value, MappingNode | SequenceNode
                ):
                    nxt = (f, value)
                    break
            if nxt is None:
                return None, None, current, holder
            f, value = nxt
            if f is not None and f.type == "map" and isinstance(value, MappingNode):
                inner = next((v for k, v in value.pairs if v.range.start <= pos <= v.range.end), None)
                if isinstance(inner, MappingNode):
                    node, current = inner, f.children
                    continue
                return None, None, (), value
            if f is None or not f.children:
                return None, None, (), holder
            current = f.children
            node = value
        elif isinstance(node, SequenceNode):
            item = next((i for i in node.items if i.range.start <= pos <= i.range.end), None)
            if not isinstance(item, MappingNode):
                return None, None, (), holder
            node = item
        else:
            return None, None, current, holder


def _doc(spec: FormatSpec, f: Field) -> str:
    lines = [f"**{f.name}** ({f.type}{', required' if f.required else ''}) — {spec.title}", "", f.doc]
    if f.values:
        lines += [
            "",
            ("Common values: " if f.open_values else "Values: ") + ", ".join(f"`{v}`" for v in f.values),
        ]
    if f.deprecated:
        lines += ["", f"Retired: {f.deprecated}."]
    lines += ["", "Source: " + " · ".join(spec.source)]
    return "\n".join(lines)


def hover(text: str, path: Path, pos: Position) -> ForeignHover | None:
    spec = spec_of(path)
    if spec is None:
        return None
    root, _region = _tree(spec, text)
    if root is None:
        return None
    f, key, _fields, _holder = _locate(root, pos, spec.fields)
    if f is None or key is None:
        return None
    return ForeignHover(_doc(spec, f), key.range)


def complete(text: str, path: Path, pos: Position) -> list[ForeignItem]:
    spec = spec_of(path)
    if spec is None:
        return []
    index = LineIndex(text)
    line = "" if pos.line >= index.line_count else index.line_text(pos.line)
    before = line[: pos.character]
    root, region = _tree(spec, text)
    if spec.markdown and (region is None or not region.start.line <= pos.line < region.end.line):
        return []  # only inside the frontmatter
    value = _VALUE_AT.search(before)
    if value:
        fields = spec.fields
        if root is not None:
            _f, _k, fields, _h = _locate(root, pos, spec.fields)
            fields = fields or spec.fields
        f = next((x for x in fields if x.name == value.group(1)), None)
        if f is None or not (f.values or f.type == "bool"):
            return []
        start = Position(pos.line, pos.character - len(value.group(2)))
        choices = f.values or ("true", "false")
        quote = "" if spec.markdown or f.type == "bool" else '"'
        return [
            ForeignItem(
                v,
                "value",
                f.name,
                _doc(spec, f),
                Range(start, pos),
                f"{quote}{v}{quote}" if quote and not before.endswith('"') else v,
            )
            for v in choices
        ]
    key = _KEY_PREFIX.search(before)
    if not key:
        return []
    fields, present = spec.fields, set[str]()
    if root is not None:
        _f, _k, found, holder = _locate(root, pos, spec.fields)
        if found or holder is not root:
            fields = found
        present = {str(k.to_python()) for k, _v in holder.pairs}
    elif spec.markdown and region is not None:
        head = "\n".join(
            index.line_text(i) for i in range(region.start.line, min(region.end.line, index.line_count))
        )
        present = set(_FRONT_KEY.findall(head))
    typed = key.group(2) or ""
    start = Position(pos.line, pos.character - len(typed))
    json_key = not spec.markdown
    items = []
    for f in fields:
        if f.name in present and f.name != typed:
            continue
        insert = (
            f'{f.name}": '
            if json_key and before.rstrip().endswith('"')
            else (f'"{f.name}": ' if json_key else f"{f.name}: ")
        )
        items.append(ForeignItem(f.name, "key", f.doc, _doc(spec, f), Range(start, pos), insert))
    return items
