"""The shared workflow parse (lait_core.documents.workflow_file.parse_workflow keeps the last few):
two files with the same text are two parses, since a parse's locations name its file."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.documents.config_file import ConfigMode
from lait_core.lint.engine import Linter, LintOptions

BAD_CHILD = "steps:\n  - bogus: 1\n"


def test_two_identical_child_workflows_are_reported_at_their_own_paths(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "lait.config.yml").write_text("", encoding="utf-8")
        (tmp_path / name / "child.yml").write_text(BAD_CHILD, encoding="utf-8")
        (tmp_path / name / "main.yml").write_text("steps:\n  - workflow: child.yml\n", encoding="utf-8")
    options = LintOptions(ConfigMode.SEARCH, environ={"XDG_CONFIG_HOME": "/nonexistent-lait-test"})
    result = Linter(options).lint_paths([str(tmp_path / "a"), str(tmp_path / "b")])
    for name in ("a", "b"):
        (report,) = [r for r in result.reports if r.path.endswith(f"{name}/main.yml")]
        (diag,) = report.diagnostics
        assert diag.code == "LAIT320"
        other = "b" if name == "a" else "a"  # paths may be shown relative to the current directory
        assert f"{name}/child.yml:2:5" in diag.message and f"{other}/child.yml" not in diag.message
        assert [r.path.endswith(f"{name}/child.yml") for r in diag.related] == [True]


def test_a_files_relative_and_absolute_paths_are_two_parses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lait lint .` and a workspace pull name files relatively, an editor's document absolutely: a
    parse made for one must not be handed to the other, or its messages name the file the other way."""
    from lait_core.documents.workflow_file import parse_workflow

    monkeypatch.chdir(tmp_path)
    text = BAD_CHILD + "# only this test writes this text\n"
    absolute = parse_workflow(text, str(tmp_path / "child.yml"))
    relative = parse_workflow(text, "child.yml")
    assert absolute.path == str(tmp_path / "child.yml")
    assert relative.path == "child.yml" and relative.source.path == "child.yml"
    assert parse_workflow(text, "child.yml") is relative  # the same file and text still share one parse


def test_readers_of_positions_share_the_linters_parse_of_the_same_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The language server lints an open workflow under its display path (relative) and reads the
    same text for agent references, the navigation index, semantic tokens and completion: those
    use the lint's parse (no second parse per edit), and still name and resolve the file correctly."""
    from lait_core.documents.workflow_file import agent_file_references, kept_parse, parse_workflow
    from lait_core.language.completion import prepare
    from lait_core.language.index import Namespace, build_index
    from lait_core.language.semantic_tokens import document_tokens
    from lait_core.lint.discovery import FileKind

    monkeypatch.chdir(tmp_path)
    text = (
        "steps:\n  - id: ask\n    agent: ./agents/helper.md\n  - jq: '$steps.ask | length'\n"
        "# shared-parse test text\n"
    )
    absolute = tmp_path / "flows" / "main.yml"
    assert kept_parse(text) is None
    linted = parse_workflow(text, "flows/main.yml")  # as the linter names it
    assert kept_parse(text) is linted
    # agent paths resolve against the path given, not the parse's
    assert agent_file_references(text, absolute) == {str(tmp_path / "flows" / "agents" / "helper.md")}
    index = build_index(str(absolute), text, FileKind.WORKFLOW, "")
    assert index.workflow is linted and index.path == str(absolute)
    (step,) = [o for o in index.occurrences if o.key.namespace is Namespace.STEP and o.definition]
    assert step.key.scope == str(absolute) and (step.range.start.line, step.range.start.character) == (1, 8)
    assert len(document_tokens(FileKind.WORKFLOW, text, str(absolute))) > 0
    assert prepare(text, FileKind.WORKFLOW).tree is linted.root
    assert kept_parse(text) is linted  # none of them parsed the text again
    # a text nobody parsed yet: completion parses only the YAML (not the whole workflow)
    other = text + "# not kept\n"
    assert prepare(other, FileKind.WORKFLOW).tree is not None and kept_parse(other) is None


def test_typing_into_one_file_keeps_two_of_its_parses_and_the_other_files_parses(tmp_path: Path) -> None:
    """Every keystroke in an editor is a new text of the same file, linted under the same name:
    the lint's parses of the older texts are not kept (typing into a 10,000-line workflow used to
    keep eight of them, about 12 MiB each, see docs/performance.md), and another file's parse stays
    shared however long one file is typed into."""
    import gc

    from lait_core.documents.workflow_file import WorkflowDocument, kept_parse, parse_workflow
    from lait_core.lint.discovery import FileKind

    (tmp_path / "lait.config.yml").write_text("", encoding="utf-8")
    other_text = "steps:\n  - id: other\n    jq: '.a'\n# the other file of the typing test\n"
    other = parse_workflow(other_text, str(tmp_path / "other.yml"))
    typed = tmp_path / "typed.yml"
    options = LintOptions(ConfigMode.SEARCH, environ={"XDG_CONFIG_HOME": "/nonexistent-lait-test"})
    linter = Linter(options)  # as the language server's lint thread keeps one
    texts = [f"# typing test {'x' * n}\nsteps:\n  - id: a\n    jq: '.x | length'\n" for n in range(12)]
    for text in texts:
        linter.lint_text(text, typed, FileKind.WORKFLOW)
    assert [kept_parse(t) is not None for t in texts] == [False] * 10 + [True] * 2
    assert kept_parse(other_text) is other
    gc.unfreeze()  # count every live parse, also any a collector freeze moved out of gc's view
    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, WorkflowDocument) and o.source.text in texts]
    assert len(alive) == 2
