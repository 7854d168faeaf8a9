"""The YAML 1.2 reader (tree-sitter-yaml + lait's composer): what libyaml 0.1.7 got wrong, tabs,
non-ASCII positions, incremental reparsing and the fallback for very long texts. The whole official
test suite runs in tests/conformance/test_yaml_suite.py."""

from __future__ import annotations

import random

import pytest

from lait_core.syntax.positions import LineIndex, Range
from lait_core.syntax.yaml.parse import (
    TREE_SITTER_MAX_LINES,
    Offsets,
    _parse_tree,
    _tree_sitter_parser,
    parse_yaml,
)
from lait_core.syntax.yaml.tree import MappingNode, ScalarNode


def _slice(text: str, rng: Range) -> str:
    index = LineIndex(text)
    return text[index.offset(rng.start) : index.offset(rng.end)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("web: {url: http://127.0.0.1:8080/mcp}\n", {"web": {"url": "http://127.0.0.1:8080/mcp"}}),
        ("a: &x:y 1\nb: *x:y\n", {"a": 1, "b": 1}),
        ("%YAML 1.2\n---\na: 1\n", {"a": 1}),
        ("%FOO bar\n---\na: 1\n", {"a": 1}),
        ("? [a,\n   b]\n: 1\nk: {x\n  y: 1}\n", None),
        ("a: |\nb: 1\n", {"a": "", "b": 1}),
        ("- |\n x\n-\t1\n", ["x\n", 1]),
        ("key:\tvalue\n", {"key": "value"}),
        ("a: '1'\nb: !!str 2\nc: ! 3\nd: 0o17\ne: 0x1f\nf: .inf\n", None),
        ('s: "a\\tb\\u263A\\x41\\\n  c"\n', {"s": "a\tb\u263aAc"}),
        ("s: >-\n  one\n  two\n\n  three\n", {"s": "one two\nthree"}),
    ],
)
def test_valid_yaml_12_that_libyaml_rejected(text: str, value: object) -> None:
    parsed = parse_yaml(text, "t.yml")
    codes = [p.code for p in parsed.problems]
    if value is None:  # a non-scalar key: valid YAML, a lait diagnostic by design
        assert all(code == "LAIT001" for code in codes)
        return
    assert codes == []
    assert parsed.root is not None
    assert parsed.root.to_python() == value


@pytest.mark.parametrize(
    ("text", "code", "at"),
    [
        ("a:\n\t- 1\n", "LAIT008", "\t"),
        ("-\t-\n", "LAIT008", "\t"),
        ("foo: |\n\t\nbar: 1\n", "LAIT008", "\t"),
        ('k: "a"# c\n', "LAIT001", "#"),
        ("- !!str, x\n", "LAIT001", ","),
        ("a: !e!x 1\n", "LAIT001", "!"),
        ('a: "\\q"\n', "LAIT001", "\\"),
    ],
)
def test_invalid_yaml_is_one_located_diagnostic(text: str, code: str, at: str) -> None:
    parsed = parse_yaml(text, "t.yml")
    assert parsed.root is None
    (problem,) = parsed.problems
    assert problem.code == code, problem
    assert _slice(text, problem.range) == at


def test_a_tab_as_separation_space_is_no_diagnostic_but_indentation_is() -> None:
    assert parse_yaml("steps:\n  - jq:\t'.'\n").problems == []
    (problem,) = parse_yaml("steps:\n\t- jq: '.'\n").problems
    assert problem.code == "LAIT008"


@pytest.mark.parametrize(
    "text",
    [
        '名前: 😀 and 日本\nnext: [é, "ü😀"]\nblock: |\n  😀 x\n',  # UTF-8 with placeholders
        "\ufeffname: 😀 é\nnext: x\n",  # a byte-order mark: UTF-16
    ],
)
def test_positions_count_code_points_outside_ascii(text: str) -> None:
    root = parse_yaml(text, "t.yml").root
    assert isinstance(root, MappingNode)
    for _key, key_node, value in root.items():
        assert _slice(text, key_node.range) == key_node.text
        if isinstance(value, ScalarNode) and value.style == "":
            assert _slice(text, value.range) == value.text


def test_incremental_reparse_gives_the_fresh_tree() -> None:
    """The last tree of a path is reused for the next text: for any edit, the tree (when valid) and
    whether the text is valid are those of a fresh parse."""
    rng = random.Random(20261201)
    base = "".join(
        f"  - id: s{i}\n    prompt: |\n      Say {{{{ inputs.x }}}} {i}\n    when: '$x != {i}'\n    retry: {{n: 2}}\n"
        for i in range(400)
    )
    text = "name: w\nsteps:\n" + base
    pieces = [" ", "\n", ":", "- ", "a", "#", '"', "'", "[", "]", "{", "}", "|", "\t", "&x", "*x", ",", "?"]
    parser = _tree_sitter_parser()
    _parse_tree(Offsets(text), "incremental.yml")
    for _ in range(150):
        start = rng.randrange(len(text) + 1)
        end = min(len(text), start + rng.randrange(4))
        text = text[:start] + "".join(rng.choice(pieces) for _ in range(rng.randrange(3))) + text[end:]
        offsets = Offsets(text)
        tree, incremental = _parse_tree(offsets, "incremental.yml")
        assert incremental
        fresh = parser.parse(offsets.data).root_node
        assert tree.root_node.has_error == fresh.has_error
        if not fresh.has_error:
            assert str(tree.root_node) == str(fresh)


def test_texts_too_long_for_tree_sitter_are_read_from_libyaml_events() -> None:
    lines = TREE_SITTER_MAX_LINES + 5000
    text = "steps:\n" + "".join(f"  - jq: '.{i}'\n" for i in range(lines))
    parsed = parse_yaml(text, "long.yml")
    assert parsed.problems == []
    assert parsed.root is not None
    steps = parsed.root.to_python()["steps"]
    assert len(steps) == lines
    assert steps[-1] == {"jq": f".{lines - 1}"}


def test_a_cancelled_lint_stops_in_the_composer() -> None:
    """The language server cancels a stale lint; the reader stops at its next checkpoint."""
    from lait_core.support.cancel import Cancelled, CancelToken, cancellable

    text = "steps:\n" + "".join(f"  - id: s{i}\n    jq: '.'\n" for i in range(2000))
    token = CancelToken()
    token.cancel()
    with cancellable(token), pytest.raises(Cancelled):
        parse_yaml(text, "cancel.yml")
    assert parse_yaml(text, "cancel.yml").problems == []  # and the next parse is whole


@pytest.mark.parametrize(
    "text",
    ["".join(" " * i + f"k{i}:\n" for i in range(300)), "- " * 300 + "x\n"],
    ids=["indented", "compact"],
)
def test_block_nesting_deeper_than_tree_sitter_takes_is_a_located_error(text: str) -> None:
    """tree-sitter-yaml 0.7.2 crashes at about 250 levels of block nesting: such texts go to libyaml."""
    (problem,) = parse_yaml(text, "deep.yml").problems
    assert problem.code == "LAIT001"
    assert "nested more than 128 levels" in problem.message


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("k: |\n    x\n  \t\n    y\n", "x\n\ny\n"),  # a line of spaces and a tab, less indented: empty
        ("k: |\n    x\n  \r    y\n", "x\n\ny\n"),  # a lone carriage return ends a line
        ("k: >\n    a\n    b\n\n    c\nnext: 1\n", "a b\nc\n"),
        ("k: |+\n    a\n\n\n", "a\n\n\n"),
        ("k: |-\n\n    a\n      b\n    \n", "\na\n  b"),
        ("k: |\n    a\n      \n    b\n", "a\n  \nb\n"),  # spaces past the indentation are text
        ("k: |\n    a\tb\n    c\n", "a\tb\nc\n"),
    ],
)
def test_block_scalars_read_the_same_on_the_quick_path_and_line_by_line(text: str, value: str) -> None:
    """A block scalar without an indentation indicator is read with two regular expressions when no
    tab, carriage return or leading empty line can matter, else line by line: the same values."""
    parsed = parse_yaml(text)
    assert not parsed.problems
    root = parsed.root
    assert isinstance(root, MappingNode)
    node = root.get("k")
    assert isinstance(node, ScalarNode) and node.value == value
