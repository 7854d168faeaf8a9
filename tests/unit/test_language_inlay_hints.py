"""Inlay hint labels, and that no text makes the hints raise (Hypothesis, derandomized)."""

from __future__ import annotations

import os

import pytest

from lait_core.language.inlay_hints import KINDS, argv_label, inlay_hints, type_label
from lait_core.lint.discovery import FileKind

try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # installed by .ci/install-test-peers; in CI its absence is a failure
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("hypothesis is not installed", allow_module_level=True)


def test_type_labels() -> None:
    assert type_label({"type": "array", "items": {"type": "string"}}) == "string[]"
    assert type_label({"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"]}) == "{a, b?}"
    assert type_label({"enum": ["x", 1]}) == '"x" | 1'
    assert type_label({"type": ["string", "null"]}) == "string | null"
    assert type_label({"items": {"type": "object", "properties": {"a": {}}}}) == "{…}[]"
    assert type_label("nonsense") is None


def test_argv_label_names_the_parameters() -> None:
    assert argv_label(["rg", "--json", "{{ input.pattern }}", "a b"]) == "rg --json <pattern> 'a b'"


PIECES = ["steps:\n", "  - id: a\n", "    model: m\n", "    tools: [t]\n", "    for_each: '$inputs.x'\n",
          "    output_schema: s\n", "inputs:\n  x: {type: array}\n", "schemas:\n  s: {type: object}\n",
          "models:\n  m: [{model_id: q}]\n", "{", "[", "'", "😀", "\n"]  # fmt: skip


@settings(max_examples=80, derandomize=True, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_hints_never_raise(text: str) -> None:
    for kind in (FileKind.WORKFLOW, FileKind.CONFIG, FileKind.AGENT):
        for hint in inlay_hints(kind, text, "/tmp/x.yml", config=None, enabled=KINDS):
            assert hint.label and hint.kind in KINDS
