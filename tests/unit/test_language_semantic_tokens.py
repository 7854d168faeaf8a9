"""The jq and template lexers behind semantic tokens: what they find, and that no text makes them
raise, overlap or leave their text (Hypothesis, derandomized)."""

from __future__ import annotations

import os

import pytest

from lait_core.language.semantic_tokens import (
    TOKEN_TYPES,
    delta,
    document_tokens,
    encode,
    jq_pieces,
    template_pieces,
)
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import LineIndex

try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # installed by .ci/install-test-peers; in CI its absence is a failure
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("hypothesis is not installed", allow_module_level=True)


def pieces(src: str, lexer: object) -> list[tuple[str, str]]:
    return [(src[p.start : p.end], p.type) for p in lexer(src)]  # type: ignore[operator]


def test_jq_tokens() -> None:
    src = 'reduce .[] as $x (0; . + $x) | {a, "b": .c} | "s\\(.d)" | @csv # done'
    assert pieces(src, jq_pieces) == [
        ("reduce", "keyword"),
        ("as", "keyword"),
        ("$x", "variable"),
        ("0", "number"),
        ("+", "operator"),
        ("$x", "variable"),
        ("|", "operator"),
        ("a", "property"),
        (",", "operator"),
        ('"b"', "property"),
        ("c", "property"),
        ("|", "operator"),
        ('"s', "string"),
        ("\\(", "operator"),
        ("d", "property"),
        (")", "operator"),
        ('"', "string"),
        ("|", "operator"),
        ("@csv", "function"),
        ("# done", "comment"),
    ]
    assert jq_pieces("def f: 1; f")[1].modifiers == ("declaration",)
    assert jq_pieces("$x as $y | 1")[2].modifiers == ("declaration",)


def test_template_tokens() -> None:
    src = "{{~#with inputs as |i|~}}{{ (text i.[my key]) n=2 }}{{^}}{{!x}}{{else if a}}{{{ b }}}{{/with}}"
    assert pieces(src, template_pieces) == [
        ("{{~", "macro"),
        ("#with", "keyword"),
        ("inputs", "variable"),
        ("as", "keyword"),
        ("i", "parameter"),
        ("~}}", "macro"),
        ("{{", "macro"),
        ("text", "function"),
        ("i", "variable"),
        ("[my key]", "property"),
        ("n", "parameter"),
        ("2", "number"),
        ("}}", "macro"),
        ("{{", "macro"),
        ("^", "keyword"),
        ("}}", "macro"),
        ("{{!x}}", "comment"),
        ("{{", "macro"),
        ("else", "keyword"),
        ("if", "keyword"),
        ("a", "variable"),
        ("}}", "macro"),
        ("{{{", "macro"),
        ("b", "variable"),
        ("}}}", "macro"),
        ("{{", "macro"),
        ("/with", "keyword"),
        ("}}", "macro"),
    ]


def test_unterminated_tag_ends_with_its_line() -> None:
    src = "a {{ steps.x\nplain words here"
    assert pieces(src, template_pieces) == [("{{", "macro"), ("steps", "variable"), ("x", "property")]


def test_delta_is_one_edit_of_whole_tokens() -> None:
    old = [0, 1, 2, 0, 0, 0, 5, 1, 1, 0, 1, 0, 3, 2, 0]
    new = [0, 1, 2, 0, 0, 0, 5, 4, 1, 0, 1, 0, 3, 2, 0]
    assert delta(old, new) == [(5, 5, [0, 5, 4, 1, 0])]
    assert delta(old, old) == []
    assert delta([], new) == [(0, 0, new)]


@settings(max_examples=150, derandomize=True, deadline=None)
@given(
    st.lists(st.sampled_from([*list("{}()[]\"'\\$.|#@~!^/= \n\tab_1-日😀:,?"), "{{", "}}", "\\("])).map(
        "".join
    )
)
def test_lexers_never_raise_or_overlap(src: str) -> None:
    for lexer in (jq_pieces, template_pieces):
        last = 0
        for p in lexer(src):
            assert last <= p.start < p.end <= len(src)
            assert p.type in TOKEN_TYPES
            last = p.end


@settings(max_examples=60, derandomize=True, deadline=None)
@given(
    st.lists(st.sampled_from([*list("{}$.|'\" \n-:>#😀日"), "{{ a }}", "jq: ", "prompt: |", "steps:"])).map(
        "".join
    )
)
def test_document_tokens_stay_on_their_line(body: str) -> None:
    text = "steps:\n  - jq: " + body
    index = LineIndex(text)
    tokens = document_tokens(FileKind.WORKFLOW, text, "x.yml")
    for t in tokens:
        assert 0 <= t.start < t.end <= len(index.line_text(t.line))
    assert len(encode(tokens, index)) == 5 * len(tokens)
