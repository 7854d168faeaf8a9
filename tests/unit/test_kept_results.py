"""lait_core.language.kept_results: lines across one edit, and what a text that does not parse gets."""

from __future__ import annotations

from lait_core.language.kept_results import KeptResults, line_shift, parses, shown_to_others
from lait_core.lint.discovery import FileKind


def test_line_shift_keeps_untouched_lines_and_moves_those_after_the_edit() -> None:
    old = "a\nb\nc\nd\n"
    added = line_shift(old, "a\nb\nX\nY\nc\nd\n")
    assert [added.line(i) for i in range(5)] == [0, 1, 4, 5, 6]
    changed = line_shift(old, "a\nB\nc\nd\n")
    assert [changed.line(i) for i in range(5)] == [0, None, 2, 3, 4]
    removed = line_shift(old, "a\nd\n")
    assert [removed.line(i) for i in range(5)] == [0, None, None, 1, 2]
    assert [line_shift(old, old).line(i) for i in range(5)] == [0, 1, 2, 3, 4]


def test_a_text_that_does_not_parse_gets_the_last_good_result() -> None:
    kept: KeptResults[list[int]] = KeptResults(
        lambda lines, s: [n for x in lines if (n := s.line(x)) is not None]
    )
    good = "steps:\n  - jq: '.'\n"
    assert kept.result("u", FileKind.WORKFLOW, good, lambda: [0, 1]) == [0, 1]
    broken = "mcp: [\n" + good
    assert not parses(FileKind.WORKFLOW, broken)
    assert kept.result("u", FileKind.WORKFLOW, broken, lambda: []) == [1, 2]
    assert kept.result("other", FileKind.WORKFLOW, broken, lambda: [7]) == [7]  # nothing kept: computed
    kept.forget(lambda key: key != "u")
    assert kept.result("u", FileKind.WORKFLOW, broken, lambda: []) == []


def test_what_other_files_see() -> None:
    assert shown_to_others(FileKind.WORKFLOW, "steps:\n  - jq: '.'\n    temperature: 3\n")  # parses
    assert not shown_to_others(FileKind.WORKFLOW, "steps: [\n")
    assert shown_to_others(FileKind.WORKFLOW, "steps: [\n", saved=True)
    assert not shown_to_others(FileKind.CONFIG, "mcp_servers: {a: [\n")
    assert not shown_to_others(FileKind.AGENT, "---\nmcp: [\n---\nhi\n")
    assert shown_to_others(None, "{{ not yaml")
