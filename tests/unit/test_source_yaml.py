"""The located YAML parser (lait_core.syntax.yaml.parse): exact ranges, `ScalarNode.span` in every scalar
style, the YAML 1.2 core schema, and problems (duplicates, aliases, documents, syntax) as located
diagnostics. Every expected range is checked by slicing the source text."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from lait_core.lint.engine import Linter
from lait_core.syntax.diagnostics import Severity
from lait_core.syntax.positions import LineIndex, Position, Range
from lait_core.syntax.yaml.document_builder import ALIAS_NODE_BUDGET, ParsedYaml
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.scalar_values import resolve_plain
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode


def _slice(text: str, rng: Range) -> str:
    index = LineIndex(text)
    return text[index.offset(rng.start) : index.offset(rng.end)]


def _parse_ok(text: str) -> ParsedYaml:
    parsed = parse_yaml(text, "t.yml")
    assert parsed.problems == [], parsed.problems
    assert parsed.ok
    return parsed


def _root_mapping(text: str) -> MappingNode:
    root = _parse_ok(text).root
    assert isinstance(root, MappingNode)
    return root


def _scalar(node: Node | None) -> ScalarNode:
    assert isinstance(node, ScalarNode), node
    return node


def _walk(node: Node) -> list[Node]:
    out = [node]
    if isinstance(node, MappingNode):
        for k, v in node.pairs:
            out += _walk(k) + _walk(v)
    elif isinstance(node, SequenceNode):
        for item in node.items:
            out += _walk(item)
    return out


# --------------------------------------------------------------------------------------------
# ranges of keys, values and items

DOC = """\
name: release
steps:
  - id: first
    prompt: "hi {{ inputs.x }}"
  - [x, 'y z']
nested: {k: v, n: 12}
日本: 😀値
"""


def test_ranges_of_keys_values_and_items_slice_to_their_source() -> None:
    root = _root_mapping(DOC)
    expected_keys = ["name", "steps", "nested", "日本"]
    assert root.keys() == expected_keys
    for key, key_node, value in root.items():
        assert _slice(DOC, key_node.range) == key
        assert DOC[key_node.start : key_node.end] == key
        assert key_node.range == LineIndex(DOC).range(key_node.start, key_node.end)
        assert value.range == LineIndex(DOC).range(value.start, value.end)
    assert _slice(DOC, _scalar(root.get("name")).range) == "release"
    assert _scalar(root.get("name")).range == Range.at(0, 6, 0, 13)
    assert _slice(DOC, _scalar(root.get("日本")).range) == "😀値"
    assert _scalar(root.get("日本")).range == Range.at(6, 4, 6, 6)  # code points, not UTF-16 units

    steps = root.get("steps")
    assert isinstance(steps, SequenceNode)
    assert len(steps) == 2
    first, second = steps.items
    assert isinstance(first, MappingNode)
    assert first.range.start == Position(2, 4)
    id_key = first.key_node("id")
    assert id_key is not None
    assert id_key.range == Range.at(2, 4, 2, 6)
    prompt = _scalar(first.get("prompt"))
    assert _slice(DOC, prompt.range) == '"hi {{ inputs.x }}"'
    assert prompt.value == "hi {{ inputs.x }}"
    assert prompt.style == '"'
    assert isinstance(second, SequenceNode)
    assert second.flow
    assert _slice(DOC, second.range) == "[x, 'y z']"
    assert [_slice(DOC, i.range) for i in second.items] == ["x", "'y z'"]

    nested = root.get("nested")
    assert isinstance(nested, MappingNode)
    assert nested.flow
    assert _slice(DOC, nested.range) == "{k: v, n: 12}"
    assert [(_slice(DOC, k.range), _slice(DOC, v.range)) for k, v in nested.pairs] == [
        ("k", "v"),
        ("n", "12"),
    ]
    assert nested.to_python() == {"k": "v", "n": 12}


def test_every_node_points_into_its_document() -> None:
    parsed = _parse_ok(DOC)
    assert parsed.root is not None
    for node in _walk(parsed.root):
        assert node.document is parsed.source
        assert 0 <= node.start <= node.end <= len(DOC)
        assert node.range.start <= node.range.end


def test_block_scalar_and_multiline_ranges() -> None:
    text = "a: |\n  one\n  two\nb: plain\n  folded\nc: x\n"
    root = _root_mapping(text)
    a = _scalar(root.get("a"))
    assert a.range.start == Position(0, 3)
    assert _slice(text, a.range).startswith("|\n  one\n  two\n")
    b = _scalar(root.get("b"))
    assert _slice(text, b.range) == "plain\n  folded"
    assert b.value == "plain folded"


def test_empty_values_are_located_nulls() -> None:
    text = "a:\nb: ~\nc: ''\n"
    root = _root_mapping(text)
    assert root.to_python() == {"a": None, "b": None, "c": ""}
    assert _scalar(root.get("b")).range == Range.at(1, 3, 1, 4)
    assert _scalar(root.get("c")).style == "'"


# --------------------------------------------------------------------------------------------
# ScalarNode.span in every scalar style

SPAN_CASES: list[tuple[str, str, str, str, str]] = [
    # id, yaml, expected value, needle in the value, expected source text of the needle
    ("plain", "v: hello {{ x }}\n", "hello {{ x }}", "{{ x }}", "{{ x }}"),
    ("plain-multiline", "v: hello\n  world {{ x }}\n", "hello world {{ x }}", "{{ x }}", "{{ x }}"),
    ("plain-across-fold", "v: hello\n  world {{ x }}\n", "hello world {{ x }}", "o w", "o\n  w"),
    ("plain-blank-line", "v: a\n\n  b {{ r }}\n", "a\nb {{ r }}", "b {{ r }}", "b {{ r }}"),
    ("plain-unicode", "v: 日本😀 {{ x }}\n", "日本😀 {{ x }}", "{{ x }}", "{{ x }}"),
    ("single", "v: 'it''s {{ y }}'\n", "it's {{ y }}", "{{ y }}", "{{ y }}"),
    ("single-escape-inside", "v: 'it''s {{ y }}'\n", "it's {{ y }}", "it's", "it''s"),
    ("single-multiline", "v: 'one\n  two {{ z }}'\n", "one two {{ z }}", "two {{ z }}", "two {{ z }}"),
    (
        "double-escapes",
        'v: "a\\tb \\u65e5 {{ z }}"\n',
        "a\tb 日 {{ z }}",
        "{{ z }}",
        "{{ z }}",
    ),
    (
        "double-across-escapes",
        'v: "a\\tb \\u65e5 {{ z }}"\n',
        "a\tb 日 {{ z }}",
        "b 日 {",
        "b \\u65e5 {",
    ),
    (
        "double-escaped-line-break",
        'v: "first {{ a }} \\\n  cont {{ w }}"\n',
        "first {{ a }} cont {{ w }}",
        "cont {{ w }}",
        "cont {{ w }}",
    ),
    (
        "double-folded-line",
        'v: "one\n  two {{ q }}"\n',
        "one two {{ q }}",
        "two {{ q }}",
        "two {{ q }}",
    ),
    ("double-unicode-escape-32", 'v: "\\U0001F600 {{ e }}"\n', "😀 {{ e }}", "{{ e }}", "{{ e }}"),
    ("literal", "v: |\n  line1\n  {{ a }}\n", "line1\n{{ a }}\n", "{{ a }}", "{{ a }}"),
    ("literal-across-lines", "v: |\n  line1\n  {{ a }}\n", "line1\n{{ a }}\n", "1\n{{", "1\n  {{"),
    ("literal-nested", "a:\n  b: |\n    deep {{ x }}\n", "deep {{ x }}\n", "{{ x }}", "{{ x }}"),
    ("folded", "v: >\n  one\n  two {{ b }}\n", "one two {{ b }}\n", "{{ b }}", "{{ b }}"),
    ("folded-across-fold", "v: >\n  one\n  two {{ b }}\n", "one two {{ b }}\n", "one two", "one\n  two"),
    ("literal-strip", "v: |-\n  s {{ c }}\n", "s {{ c }}", "{{ c }}", "{{ c }}"),
    ("literal-keep", "v: |+\n  k {{ d }}\n\n", "k {{ d }}\n\n", "{{ d }}", "{{ d }}"),
    ("literal-indent-2", "v: |2\n    two {{ e }}\n", "  two {{ e }}\n", "{{ e }}", "{{ e }}"),
    ("literal-indent-2-spaces", "v: |2\n    two {{ e }}\n", "  two {{ e }}\n", "  two", "  two"),
    ("literal-indent-and-strip", "v: |2-\n    x {{ f }}\n", "  x {{ f }}", "{{ f }}", "{{ f }}"),
    ("folded-strip", "v: >-\n  f {{ g }}\n  more\n", "f {{ g }} more", "{{ g }}", "{{ g }}"),
    ("folded-strip-across", "v: >-\n  f {{ g }}\n  more\n", "f {{ g }} more", "} more", "}\n  more"),
    ("literal-unicode", "v: |\n  日本😀 {{ u }}\n", "日本😀 {{ u }}\n", "{{ u }}", "{{ u }}"),
    ("literal-crlf", "v: |\r\n  one\r\n  {{ c }}\r\n", "one\n{{ c }}\n", "{{ c }}", "{{ c }}"),
]


def _value_node(text: str) -> ScalarNode:
    root = _root_mapping(text)
    node = root.get("v")
    if node is None:
        inner = root.get("a")
        assert isinstance(inner, MappingNode)
        node = inner.get("b")
    return _scalar(node)


@pytest.mark.parametrize(
    ("text", "value", "needle", "source"), [c[1:] for c in SPAN_CASES], ids=[c[0] for c in SPAN_CASES]
)
def test_span_slices_to_the_source_of_a_value_substring(
    text: str, value: str, needle: str, source: str
) -> None:
    node = _value_node(text)
    assert node.value == value
    i = value.index(needle)
    rng = node.span(i, i + len(needle))
    assert _slice(text, rng) == source
    assert node.range.start <= rng.start <= rng.end <= node.range.end


@pytest.mark.parametrize("text", [c[1] for c in SPAN_CASES], ids=[c[0] for c in SPAN_CASES])
def test_span_of_each_literal_character_is_that_character(text: str) -> None:
    node = _value_node(text)
    value = node.value
    assert isinstance(value, str)
    raw = node.source_slice()
    for i, ch in enumerate(value):
        if ch.isspace() or ch not in raw:
            continue  # produced by folding, an escape or chomping
        if ch == "'" and node.style == "'":
            continue  # '' escape, covered by the single-escape-inside case
        assert _slice(text, node.span(i, i + 1)) == ch, (i, ch)


def test_span_of_the_whole_value_and_empty_spans() -> None:
    text = "v: >-\n  one\n  two\n"
    node = _value_node(text)
    assert _slice(text, node.span(0, len(node.value))) == "one\n  two"
    empty = node.span(4, 4)
    assert empty.start == empty.end == Position(2, 2)
    clamped = node.span(-5, 10_000)
    assert _slice(text, clamped) == "one\n  two"


def test_span_of_a_non_string_scalar_is_its_range() -> None:
    text = "v: 12\n"
    node = _value_node(text)
    assert node.value == 12
    assert node.span(0, 1) == node.range


def test_span_of_an_escaped_character_covers_the_whole_escape() -> None:
    text = 'v: "a\\tb \\u65e5"\n'
    node = _value_node(text)
    assert node.value == "a\tb 日"
    assert _slice(text, node.span(4, 5)) == "\\u65e5"
    assert _slice(text, node.span(0, 2)) == "a\\t"
    single = "v: 'it''s'\n"
    snode = _value_node(single)
    assert _slice(single, snode.span(2, 3)) == "''"


# --------------------------------------------------------------------------------------------
# YAML 1.2 core schema

CORE: list[tuple[str, Any]] = [
    ("yes", "yes"),
    ("Yes", "Yes"),
    ("on", "on"),
    ("ON", "ON"),
    ("no", "no"),
    ("off", "off"),
    ("y", "y"),
    ("n", "n"),
    ("true", True),
    ("True", True),
    ("TRUE", True),
    ("false", False),
    ("False", False),
    ("FALSE", False),
    ("tRUE", "tRUE"),
    ("null", None),
    ("Null", None),
    ("NULL", None),
    ("~", None),
    ("", None),
    ("nULL", "nULL"),
    ("0", 0),
    ("-12", -12),
    ("+3", 3),
    ("007", 7),
    ("0x1F", 31),
    ("0xff", 255),
    ("0o17", 15),
    ("0o8", "0o8"),
    ("-0x1", "-0x1"),
    ("0b101", "0b101"),
    ("1_000", "1_000"),
    ("1.5", 1.5),
    ("-1.5e3", -1500.0),
    ("1e3", 1000.0),
    ("2E-2", 0.02),
    (".5", 0.5),
    ("1.", 1.0),
    (".inf", math.inf),
    (".Inf", math.inf),
    ("+.INF", math.inf),
    ("-.inf", -math.inf),
    ("inf", "inf"),
    ("1:20", "1:20"),
    ("12e", "12e"),
    ("v1.0", "v1.0"),
]


@pytest.mark.parametrize(("plain", "expected"), CORE, ids=[repr(p) for p, _ in CORE])
def test_core_schema_plain_scalars(plain: str, expected: Any) -> None:
    value = resolve_plain(plain)
    assert value == expected
    assert type(value) is type(expected)
    parsed = _root_mapping(f"k: {plain}\n").get("k")
    assert _scalar(parsed).value == expected
    assert type(_scalar(parsed).value) is type(expected)


@pytest.mark.parametrize("plain", [".nan", ".NaN", ".NAN"])
def test_core_schema_nan(plain: str) -> None:
    value = _scalar(_root_mapping(f"k: {plain}\n").get("k")).value
    assert isinstance(value, float) and math.isnan(value)
    assert resolve_plain("nan") == "nan"


@pytest.mark.parametrize("quoted", ["'true'", '"12"', "'null'", '"~"', "'yes'", "''"])
def test_quoted_scalars_stay_strings(quoted: str) -> None:
    node = _scalar(_root_mapping(f"k: {quoted}\n").get("k"))
    assert isinstance(node.value, str)
    assert node.value == quoted[1:-1]


def test_block_scalars_stay_strings() -> None:
    node = _scalar(_root_mapping("k: |-\n  12\n").get("k"))
    assert node.value == "12"


def test_explicit_tags() -> None:
    root = _root_mapping(
        "a: !!str 12\nb: !!int '7'\nc: !!float 1\nd: !!bool true\ne: !!null ~\nf: !local x\n"
    )
    assert root.to_python() == {"a": "12", "b": 7, "c": 1.0, "d": True, "e": None, "f": "x"}
    assert type(root.to_python()["c"]) is float


def test_an_invalid_tagged_value_is_located() -> None:
    text = "a: 1\nb: !!int nope\n"
    parsed = parse_yaml(text)
    (problem,) = parsed.problems
    assert problem.code == "LAIT001"
    assert "!!int" in problem.message
    assert _slice(text, problem.range) == "!!int nope"


def test_boolean_and_null_keys() -> None:
    root = _root_mapping("true: a\nnull: b\n1: c\n")
    assert root.keys() == ["true", "null", 1]
    assert root.get("true") is not None


# --------------------------------------------------------------------------------------------
# duplicates, aliases, documents, syntax


def test_duplicate_key_is_lait002_with_the_first_key_related() -> None:
    text = "name: a\nsteps: []\nname: b\n"
    parsed = parse_yaml(text, "w.yml")
    (problem,) = parsed.problems
    assert problem.code == "LAIT002"
    assert problem.severity is Severity.ERROR
    assert problem.range == Range.at(2, 0, 2, 4)
    assert "duplicate key 'name'" in problem.message
    (related,) = problem.related
    assert related.range == Range.at(0, 0, 0, 4)
    assert related.path == "w.yml"
    assert _slice(text, related.range) == "name"
    assert isinstance(parsed.root, MappingNode)
    assert _scalar(parsed.root.get("name")).value == "a"  # the first one is kept


def test_every_later_duplicate_relates_to_the_first() -> None:
    text = "a: 1\nb: {x: 1, x: 2}\na: 2\na: 3\n"
    problems = parse_yaml(text).problems
    assert [(p.code, p.range.start) for p in problems] == [
        ("LAIT002", Position(1, 10)),
        ("LAIT002", Position(2, 0)),
        ("LAIT002", Position(3, 0)),
    ]
    assert problems[0].related[0].range == Range.at(1, 4, 1, 5)
    assert problems[1].related[0].range == problems[2].related[0].range == Range.at(0, 0, 0, 1)


def test_keys_with_equal_values_but_different_spelling_are_duplicates() -> None:
    problems = parse_yaml("null: 1\n~: 2\n0x10: 3\n16: 4\n").problems
    assert [p.code for p in problems] == ["LAIT002", "LAIT002"]


def test_an_alias_copy_is_located_at_its_use() -> None:
    text = "a: &x [1, {b: 2}]\nc: *x\n"
    root = _root_mapping(text)
    copy = root.get("c")
    assert isinstance(copy, SequenceNode)
    assert copy.to_python() == [1, {"b": 2}]
    use = Range.at(1, 3, 1, 5)
    assert _slice(text, use) == "*x"
    for node in _walk(copy):
        assert node.range == use
    original = root.get("a")
    assert isinstance(original, SequenceNode)
    assert original.items[0].range == Range.at(0, 7, 0, 8)


def test_diagnostics_inside_an_aliased_node_point_at_the_alias(tmp_path: Path) -> None:
    text = "steps:\n  - &s {jq: '.', bogus: 1}\n  - *s\n"
    path = tmp_path / "w.yml"
    diags = Linter().lint_text(text, path)
    unknown = [d for d in diags if d.code == "LAIT309"]
    assert [_slice(text, d.range) for d in unknown] == ["bogus", "*s"]


def test_undefined_alias_is_located_at_the_use() -> None:
    text = "a: 1\nb: *nope\n"
    parsed = parse_yaml(text)
    (problem,) = parsed.problems
    assert problem.code == "LAIT001"
    assert "*nope" in problem.message
    assert _slice(text, problem.range) == "*nope"
    assert isinstance(parsed.root, MappingNode)
    assert parsed.root.to_python() == {"a": 1, "b": None}


def test_recursive_alias_is_lait003_at_the_use() -> None:
    text = "steps: &s\n  - jq: '.'\n  - group: *s\n"
    (problem,) = parse_yaml(text).problems
    assert problem.code == "LAIT003"
    assert _slice(text, problem.range) == "*s"


def test_alias_bomb_is_cut_off_at_the_budget_and_reported_once_per_anchor() -> None:
    lines = ["l0: &l0 [a, a, a, a, a, a, a, a, a, a]"]
    for i in range(1, 8):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]")
    text = "\n".join(lines) + "\n"
    parsed = parse_yaml(text)
    assert parsed.problems
    assert {p.code for p in parsed.problems} == {"LAIT003"}
    first = parsed.problems[0]
    assert f"{ALIAS_NODE_BUDGET:,}" in first.message
    assert _slice(text, first.range).startswith("*l")
    anchors = [_slice(text, p.range) for p in parsed.problems]
    assert len(anchors) == len(set(anchors))
    assert parsed.root is not None
    assert sum(1 for _ in _walk(parsed.root)) < 3 * ALIAS_NODE_BUDGET


def test_more_than_one_document_is_located_at_the_second() -> None:
    text = "a: 1\n---\nb: 2\n---\nc: 3\n"
    parsed = parse_yaml(text)
    (problem,) = parsed.problems
    assert problem.code == "LAIT001"
    assert problem.range == Range.at(1, 0, 1, 3)
    assert "more than one YAML document" in problem.message
    assert isinstance(parsed.root, MappingNode)
    assert parsed.root.to_python() == {"a": 1}


@pytest.mark.parametrize("text", ["---\na: 1\n", "a: 1\n...\n", "---\na: 1\n...\n", "# c\n---\na: 1\n"])
def test_one_explicit_document_is_fine(text: str) -> None:
    parsed = _parse_ok(text)
    assert isinstance(parsed.root, MappingNode)
    assert parsed.root.to_python() == {"a": 1}


@pytest.mark.parametrize(("text", "root"), [("", None), ("# only a comment\n", None)])
def test_empty_documents(text: str, root: Any) -> None:
    parsed = _parse_ok(text)
    assert parsed.root is root


@pytest.mark.parametrize("text", ["null\n", "~\n", "---\n...\n"])
def test_null_documents(text: str) -> None:
    parsed = _parse_ok(text)
    assert parsed.root is None or (isinstance(parsed.root, ScalarNode) and parsed.root.value is None)


def test_collection_keys_are_located_errors() -> None:
    text = "? [a]\n: 1\nb: 2\n{c: 1}: 3\n"
    parsed = parse_yaml(text)
    assert [p.code for p in parsed.problems] == ["LAIT001", "LAIT001"]
    assert _slice(text, parsed.problems[0].range) == "[a]"
    assert _slice(text, parsed.problems[1].range) == "{c: 1}"
    assert isinstance(parsed.root, MappingNode)
    assert parsed.root.to_python() == {"b": 2}


@pytest.mark.parametrize(
    ("text", "position", "code"),
    [
        ("a: [1, 2\n", Position(1, 0), "LAIT001"),
        ("a: 'x\n", Position(1, 0), "LAIT001"),
        ("a:\n\t- 1\n", Position(1, 0), "LAIT008"),
        ("a: b: c\n", Position(0, 4), "LAIT001"),
        ("a: 1\n b: 2\n", Position(1, 2), "LAIT001"),
        ("- a\nb: 1\n", Position(1, 0), "LAIT001"),
        ("a: @x\n", Position(0, 3), "LAIT001"),
        ("a: \x01\n", Position(0, 3), "LAIT001"),
    ],
)
def test_syntax_errors_are_one_located_diagnostic(text: str, position: Position, code: str) -> None:
    parsed = parse_yaml(text)
    assert not parsed.ok
    (problem,) = parsed.problems
    assert problem.code == code
    assert problem.range.start == position
    assert problem.message


def test_syntax_error_after_multibyte_text_counts_code_points() -> None:
    text = "名前: 😀😀: x\n"
    (problem,) = parse_yaml(text).problems
    assert problem.code == "LAIT001"
    assert problem.range == Range.at(0, 6, 0, 7)
    assert _slice(text, problem.range) == ":"


def test_crlf_positions() -> None:
    text = "a: 1\r\nb: two\r\n"
    root = _root_mapping(text)
    b = root.key_node("b")
    assert b is not None
    assert b.range == Range.at(1, 0, 1, 1)
    assert _slice(text, _scalar(root.get("b")).range) == "two"


def test_suppression_after_a_block_scalar_in_a_list_item() -> None:
    """The key after `  - prompt: |` is not block content: its suppression comment counts."""
    from lait_core.lint.suppression import scan

    text = "steps:\n  - prompt: |\n      # lait: ignore[LAIT001]\n    temprature: 1 # lait: ignore[LAIT309]\n"
    supp = scan(text)
    assert supp.lines == {3: {"LAIT309"}}
