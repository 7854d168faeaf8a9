"""Positions: `Position`/`Range`, `LineIndex` (offsets, lines, UTF-16 columns with emoji and Japanese)
and `split_frontmatter`, whose YAML text yields file positions directly."""

from __future__ import annotations

import pytest

from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.frontmatter import Split, split_frontmatter, starts_with_frontmatter
from lait_core.syntax.positions import ZERO, LineIndex, Position, Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode, SourceText

TEXT = "ascii line\n日本語のテキスト\nemoji 😀 and 👍🏽 here\r\n\nlast 𝄞 line"


def _utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


# --------------------------------------------------------------------------------------------
# Position and Range


def test_position_and_range_basics() -> None:
    p = Position(2, 5)
    assert str(p) == "3:6"
    assert Position(1, 9) < Position(2, 0) < Position(2, 1)
    r = Range.at(1, 2, 3, 4)
    assert r == Range(Position(1, 2), Position(3, 4))
    assert str(r) == "2:3-4:5"
    assert Range.at(4, 7) == Range(Position(4, 7), Position(4, 7))
    assert Range.at(0, 1, end_character=5) == Range(Position(0, 1), Position(0, 5))
    assert r.contains(Position(1, 2)) and r.contains(Position(3, 4)) and r.contains(Position(2, 100))
    assert not r.contains(Position(1, 1)) and not r.contains(Position(3, 5))
    assert Range.at(0, 0) == ZERO


# --------------------------------------------------------------------------------------------
# LineIndex


def test_line_starts_and_texts() -> None:
    index = LineIndex(TEXT)
    lines = TEXT.split("\n")
    assert index.line_count == len(lines) == 5
    for n, line in enumerate(lines):
        assert index.line_text(n) == line.rstrip("\r")
        assert TEXT[index.line_start(n) :].startswith(line)
    assert index.line_text(2) == "emoji 😀 and 👍🏽 here"  # the CR of a CRLF is not part of the line
    assert index.line_text(3) == ""
    assert index.line_start(-3) == 0
    assert index.line_start(99) == index.line_start(4)


def test_offset_and_position_round_trip_for_every_offset() -> None:
    index = LineIndex(TEXT)
    for offset in range(len(TEXT) + 1):
        pos = index.position(offset)
        assert index.offset(pos) == offset
        line_start = TEXT.rfind("\n", 0, offset) + 1
        assert pos == Position(TEXT.count("\n", 0, offset), offset - line_start)


def test_positions_count_code_points() -> None:
    index = LineIndex(TEXT)
    japanese = TEXT.index("テ")
    assert index.position(japanese) == Position(1, 4)
    emoji = TEXT.index("😀")
    assert index.position(emoji) == Position(2, 6)
    assert index.position(emoji + 1) == Position(2, 7)  # one code point, although two UTF-16 units
    clef = TEXT.index("𝄞")
    assert index.position(clef) == Position(4, 5)


def test_offsets_and_positions_are_clamped() -> None:
    index = LineIndex(TEXT)
    assert index.position(-10) == Position(0, 0)
    assert index.position(10**9) == index.position(len(TEXT))
    assert index.offset(Position(0, 10**6)) == len(TEXT)
    assert index.offset(Position(10**6, 0)) == index.line_start(4)
    assert index.range(0, 5) == Range.at(0, 0, 0, 5)


def test_empty_text() -> None:
    index = LineIndex("")
    assert index.line_count == 1
    assert index.line_text(0) == ""
    assert index.position(0) == Position(0, 0)
    assert index.to_utf16(Position(0, 0)) == Position(0, 0)
    assert index.from_utf16(Position(0, 5)) == Position(0, 0)


def test_to_utf16_agrees_with_the_utf16_encoding_for_every_position() -> None:
    index = LineIndex(TEXT)
    for n in range(index.line_count):
        line = index.line_text(n)
        for ch in range(len(line) + 1):
            lsp = index.to_utf16(Position(n, ch))
            assert lsp == Position(n, _utf16_len(line[:ch]))
            assert index.from_utf16(lsp) == Position(n, ch)


@pytest.mark.parametrize(
    ("line", "code_point", "utf16"),
    [
        ("日本語", 3, 3),  # BMP characters are one UTF-16 unit each
        ("a😀b", 1, 1),
        ("a😀b", 2, 3),
        ("a😀b", 3, 4),
        ("😀😀😀", 2, 4),
        ("👍🏽x", 2, 4),  # an emoji with a skin-tone modifier is two code points, four units
        ("日本😀語", 4, 5),
        ("𝄞", 1, 2),
    ],
)
def test_utf16_conversion_examples(line: str, code_point: int, utf16: int) -> None:
    index = LineIndex("first\n" + line + "\nlast")
    assert index.to_utf16(Position(1, code_point)) == Position(1, utf16)
    assert index.from_utf16(Position(1, utf16)) == Position(1, code_point)


def test_from_utf16_inside_a_surrogate_pair_and_past_the_end() -> None:
    index = LineIndex("a😀b\n")
    assert index.from_utf16(Position(0, 2)) == Position(0, 2)  # middle of 😀: the character after it
    assert index.from_utf16(Position(0, 99)) == Position(0, 3)


def test_range_to_utf16() -> None:
    text = "名前: 😀 {{ x }}\n"
    index = LineIndex(text)
    start = text.index("{{")
    rng = index.range(start, start + 7)
    assert rng == Range.at(0, 6, 0, 13)
    assert index.range_to_utf16(rng) == Range.at(0, 7, 0, 14)


# --------------------------------------------------------------------------------------------
# frontmatter

AGENT = """\
---
name: 日本語の要約
description: Summarize 😀 texts.
temperature: 0.2
tools: [grep, 😀tool]
---
Body line with {{ input }}.
"""


def _split(text: str) -> Split:
    split = split_frontmatter(text)
    assert isinstance(split, Split), split
    return split


def _walk(node: Node) -> list[Node]:
    out = [node]
    if isinstance(node, MappingNode):
        for k, v in node.pairs:
            out += _walk(k) + _walk(v)
    elif isinstance(node, SequenceNode):
        for item in node.items:
            out += _walk(item)
    return out


def test_frontmatter_yaml_offsets_are_file_offsets() -> None:
    split = _split(AGENT)
    closing = AGENT.index("\n---\n") + 1
    assert split.yaml_text.count("\n") >= 5
    assert set(split.yaml_text[:4]) <= {" ", "\n"}  # the opening line is blanked
    assert split.yaml_text[3] == "\n"
    assert split.yaml_text[4:closing] == AGENT[4:closing]
    assert set(split.yaml_text[closing:]) <= {" ", "\n"}
    assert split.closing_line == 5
    assert split.body == "Body line with {{ input }}.\n"
    assert AGENT[split.body_start :] == split.body


def test_frontmatter_nodes_are_located_in_the_file() -> None:
    split = _split(AGENT)
    source = SourceText(AGENT, "agents/a.md")
    parsed = parse_yaml(split.yaml_text, "agents/a.md")
    assert parsed.problems == []
    root = parsed.root
    assert isinstance(root, MappingNode)
    assert root.keys() == ["name", "description", "temperature", "tools"]
    file_index = LineIndex(AGENT)
    for node in _walk(root):
        # the parser's positions and offsets are file positions and offsets
        assert file_index.range(node.start, node.end) == node.range
        if isinstance(node, ScalarNode) and node.style == "":
            assert AGENT[node.start : node.end] == str(node.value)
    name = root.get("name")
    assert isinstance(name, ScalarNode)
    assert name.range == Range.at(1, 6, 1, 12)
    assert source.range(name.start, name.end) == name.range
    tools = root.get("tools")
    assert isinstance(tools, SequenceNode)
    assert [i.range for i in tools.items] == [Range.at(4, 8, 4, 12), Range.at(4, 14, 4, 19)]


def test_frontmatter_span_of_a_value_is_a_file_range() -> None:
    split = _split(AGENT)
    parsed = parse_yaml(split.yaml_text)
    assert isinstance(parsed.root, MappingNode)
    description = parsed.root.get("description")
    assert isinstance(description, ScalarNode)
    i = description.value.index("texts")
    rng = description.span(i, i + 5)
    index = LineIndex(AGENT)
    assert AGENT[index.offset(rng.start) : index.offset(rng.end)] == "texts"
    assert rng == Range.at(2, 25, 2, 30)


def test_frontmatter_error_positions_are_file_positions() -> None:
    text = "---\nname: a\nbad: [1,\n---\nbody\n"
    parsed = parse_yaml(_split(text).yaml_text)
    (problem,) = parsed.problems
    assert problem.code == "LAIT001"
    assert problem.range.start.line <= 3  # reported before the closing '---', not in the body


def test_frontmatter_with_crlf() -> None:
    text = "---\r\nname: x\r\nkey: 値\r\n---\r\nbody\r\n"
    split = _split(text)
    assert split.body == "body\r\n"
    assert split.closing_line == 3
    parsed = parse_yaml(split.yaml_text)
    assert isinstance(parsed.root, MappingNode)
    value = parsed.root.get("key")
    assert isinstance(value, ScalarNode)
    assert value.value == "値"
    assert value.range == Range.at(2, 5, 2, 6)
    assert text[value.start : value.end] == "値"


def test_frontmatter_at_end_of_file_and_empty_frontmatter() -> None:
    split = _split("---\nname: x\n---")
    assert split.body == ""
    assert split.closing_line == 2
    empty = _split("---\n---\nbody")
    assert empty.body == "body"
    assert empty.closing_line == 1
    assert parse_yaml(empty.yaml_text).root is None


def test_missing_opening_delimiter() -> None:
    result = split_frontmatter("# Title\n---\nname: x\n---\n")
    assert isinstance(result, Diagnostic)
    assert result.code == "LAIT201"
    assert result.range == Range.at(0, 0, 0, 7)
    assert not starts_with_frontmatter("# Title\n")
    assert not starts_with_frontmatter(" ---\n")
    assert not starts_with_frontmatter("----\n")
    assert starts_with_frontmatter("---\n")
    assert starts_with_frontmatter("---\r\n")
    assert starts_with_frontmatter("---")


def test_missing_closing_delimiter() -> None:
    result = split_frontmatter("---\nname: x\ndescription: y\n")
    assert isinstance(result, Diagnostic)
    assert result.code == "LAIT201"
    assert "closing" in result.message
    assert result.range == Range.at(0, 0, 0, 3)
    assert isinstance(split_frontmatter("---"), Diagnostic)
    assert isinstance(split_frontmatter("---\n--- \n"), Diagnostic)  # a trailing space is not a delimiter
