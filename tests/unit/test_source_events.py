"""The two readers of :func:`lait_core.syntax.yaml.parse.parse_yaml` build the same document: the
tree-sitter-yaml composer (every text of normal size) and libyaml's events
(:mod:`lait_core.syntax.yaml.libyaml_events`, texts too long or too deep for tree-sitter-yaml). Both share the
scalar resolution, the alias expansion and the diagnostics for keys, aliases, tags and a second
document; each case here is read both ways and must give the same value and the same problems."""

from __future__ import annotations

import functools

import pytest

from lait_core.syntax.yaml.document_builder import ALIAS_NODE_BUDGET, ParsedYaml
from lait_core.syntax.yaml.libyaml_events import parse_events
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import SourceText

LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(6)
)

CASES = {
    "scalars": "a: 1\nb: 0x1f\nc: 0o17\nd: -1.5e3\ne: .inf\nf: ~\ng: yes\nh: True\ni: ''\nj:\nk: '1'\n",
    "tags": "a: !!int '12'\nb: !!str 12\nc: !!float 3\nd: !!bool true\ne: !local x\nf: !!null ''\n",
    "bad tag": "a: !!int twelve\nb: !!bool 1\n",
    "aliases": "base: &b {x: 1, y: [1, 2]}\nuse: *b\nlist: &l [a, b]\nagain: *l\n",
    "undefined alias": "a: *nowhere\nb: 1\n",
    "alias inside its anchor": "a: &self [1, *self]\n",
    "alias budget": LAUGHS,
    "duplicate key": "a: 1\nb: 2\na: 3\n",
    "non-scalar key": "? [a, b]\n: 1\nc: 2\n",
    "second document": "a: 1\n---\nb: 2\n",
    "nested": "steps:\n  - id: one\n    jq: '.'\n  - id: two\n    prompt: |\n      hello\n      world\n",
}


Outcome = tuple[object, list[tuple[str, str, object]]]


def _outcome(parsed: ParsedYaml) -> Outcome:
    root = parsed.root.to_python() if parsed.root is not None else None
    return root, [(p.code, p.message, p.range) for p in parsed.problems]


@functools.cache
def _read_both(name: str) -> tuple[Outcome, Outcome]:
    text = CASES[name]
    tree_sitter = parse_yaml(text, "case.yml")
    events = parse_events(text, "case.yml", SourceText(text, "case.yml"))
    return _outcome(tree_sitter), _outcome(events)


@pytest.mark.parametrize("name", list(CASES))
def test_both_readers_give_the_same_document(name: str) -> None:
    tree_sitter, events = _read_both(name)
    assert events == tree_sitter


def test_the_cases_reach_every_shared_diagnostic() -> None:
    """The cases above are not vacuous: each shared diagnostic comes out of them."""
    messages = [message for name in CASES for _code, message, _range in _read_both(name)[1][1]]
    for expected in (
        "refers to no anchor",
        "refers to a node that contains it",
        f"expands to more than {ALIAS_NODE_BUDGET:,} nodes",
        "duplicate key 'a'",
        "only scalar mapping keys are supported here",
        "'twelve' is not a valid !!int",
        "more than one YAML document",
    ):
        assert any(expected in m for m in messages), expected
