"""The per-file cache of whole-workspace lints (lait_core.lint.incremental): a second lint with no
change lints nothing again; a changed child workflow or agent re-lints itself and the workflows
that use it; a created file or a changed config starts over; the reports always equal a fresh
``Linter.lint_paths`` (what ``lait lint`` prints)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lait_core.documents.config_file import ConfigMode
from lait_core.lint.engine import Linter, LintOptions, LintResult
from lait_core.lint.incremental import IncrementalLinter

OPTIONS = LintOptions(ConfigMode.SEARCH, environ={"XDG_CONFIG_HOME": "/nonexistent-lait-test"})
GOOD_CHILD = 'inputs:\n  repo: string\nsteps:\n  - prompt: "{{ inputs.repo }} 😀"\n'
BAD_CHILD = "inputs:\n  repo: string\nsteps:\n  - bogus: 1\n"
GOOD_AGENT = "---\nmodel: fast\n---\nYou help with {{ input }}.\n"
BAD_AGENT = "---\nmodel: fast\nmcp: [ghost]\n---\nYou help with {{ input }}.\n"


def flat(result: LintResult) -> list[tuple[str, str, str, int, int]]:
    return [
        (r.path, d.code, d.message, d.range.start.line, d.range.start.character)
        for r in result.reports
        for d in r.diagnostics
    ]


def test_only_changed_files_and_their_dependants_are_linted_again(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    files = {
        "lait.config.yml": "models:\n  fast: [{model_id: m, provider: {base_url: 'http://127.0.0.1:1/v1'}}]\n",
        "agents/helper.md": GOOD_AGENT,
        "child.yml": GOOD_CHILD,
        "main.yml": "steps:\n  - workflow: child.yml\n    with: '{repo: 1}'\n  - agent: agents/helper.md\n",
        "other.yml": "steps:\n  - jq: .\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    root = [str(tmp_path)]
    inc = IncrementalLinter(OPTIONS)
    p = {name: str(tmp_path / name) for name in files}
    every = {p[n] for n in files if n != "lait.config.yml"}

    def lint() -> set[str]:
        outcome = inc.lint_paths(root)
        assert flat(outcome.result) == flat(Linter(OPTIONS).lint_paths(root))
        return outcome.linted

    assert lint() == every
    assert lint() == set()
    (tmp_path / "child.yml").write_text(BAD_CHILD, encoding="utf-8")
    assert lint() == {p["child.yml"], p["main.yml"]}
    assert any(code == "LAIT320" for _p, code, *_ in flat(inc.lint_paths(root).result))
    (tmp_path / "agents/helper.md").write_text(BAD_AGENT, encoding="utf-8")
    assert lint() == {p["agents/helper.md"], p["main.yml"]}
    (tmp_path / "child.yml").write_text(GOOD_CHILD, encoding="utf-8")
    (tmp_path / "agents/helper.md").unlink()  # deleted: the set of files changed
    assert lint() == every - {p["agents/helper.md"]}
    (tmp_path / "lait.config.yml").write_text("mcp_servers:\n  ghost: {command: g}\n", encoding="utf-8")
    # 'fast' went, 'ghost' came: main.yml has findings (its agent is gone), so it may suggest other names
    assert lint() == {p["main.yml"]}
    assert lint() == set()


def test_an_editor_buffer_is_what_counts(tmp_path: Path) -> None:
    (tmp_path / "lait.config.yml").write_text("", encoding="utf-8")
    (tmp_path / "child.yml").write_text(GOOD_CHILD, encoding="utf-8")
    (tmp_path / "main.yml").write_text("steps:\n  - workflow: child.yml\n", encoding="utf-8")
    buffers: dict[str, str] = {}
    from lait_core.lint.incremental import disk_stamp
    from lait_core.syntax.bounded_read import Loaded, read_source

    def reader(path: Path) -> Loaded:
        text = buffers.get(str(path))
        return Loaded(text, None) if text is not None else read_source(path)

    inc = IncrementalLinter(
        OPTIONS, reader=reader, stamp=lambda s: ("open", buffers[s]) if s in buffers else disk_stamp(s)
    )
    root = [str(tmp_path)]
    assert len(inc.lint_paths(root).linted) == 2
    buffers[str(tmp_path / "child.yml")] = BAD_CHILD  # unsaved: the disk did not change
    outcome = inc.lint_paths(root)
    assert outcome.linted == {str(tmp_path / "child.yml"), str(tmp_path / "main.yml")}
    assert {code for _p, code, *_ in flat(outcome.result)} == {"LAIT308", "LAIT320"}
    assert inc.lint_paths(root).linted == set()


def test_a_changed_file_never_reads_a_stale_cached_dependency(tmp_path: Path) -> None:
    """1.yml starts to call child.yml in the same change that breaks child.yml: 1.yml is linted
    before 2.yml (whose entry records child.yml), so the linter's document cache must already have
    dropped the old child.yml when 1.yml reads it."""
    (tmp_path / "lait.config.yml").write_text("", encoding="utf-8")
    (tmp_path / "child.yml").write_text(GOOD_CHILD, encoding="utf-8")
    calls = "steps:\n  - workflow: child.yml\n    with: '{repo: 1}'\n"
    (tmp_path / "1.yml").write_text("steps:\n  - jq: .\n", encoding="utf-8")
    (tmp_path / "2.yml").write_text(calls, encoding="utf-8")
    root = [str(tmp_path)]
    inc = IncrementalLinter(OPTIONS)
    inc.lint_paths(root)
    (tmp_path / "1.yml").write_text(calls, encoding="utf-8")
    (tmp_path / "child.yml").write_text(BAD_CHILD, encoding="utf-8")
    expected = flat(Linter(OPTIONS).lint_paths(root))
    assert [os.path.abspath(p) for p, code, *_ in expected if code == "LAIT320"] == [
        str(tmp_path / n) for n in ("1.yml", "2.yml")
    ]
    assert flat(inc.lint_paths(root).result) == expected
    assert flat(inc.lint_paths(root).result) == expected  # and the next lint does not keep a stale one


def test_a_cancelled_lint_leaves_no_stale_document_behind(tmp_path: Path) -> None:
    """A lint stopped part-way (the editor's next change cancels it) has read documents into the
    linter's cache without recording them: the next lint must not use them once they changed."""
    from lait_core.syntax.bounded_read import Loaded, read_source

    (tmp_path / "lait.config.yml").write_text("", encoding="utf-8")
    (tmp_path / "child.yml").write_text(GOOD_CHILD, encoding="utf-8")
    (tmp_path / "grand.yml").write_text("steps:\n  - jq: .\n", encoding="utf-8")
    calls = "steps:\n  - workflow: child.yml\n    with: '{repo: 1}'\n  - workflow: grand.yml\n"
    (tmp_path / "1.yml").write_text(calls, encoding="utf-8")
    stop = {"on": True}

    class Stopped(Exception):
        pass

    def reader(path: Path) -> Loaded:
        if stop["on"] and path.name == "grand.yml":  # after child.yml was read for 1.yml
            raise Stopped
        return read_source(path)

    root = [str(tmp_path)]
    inc = IncrementalLinter(OPTIONS, reader=reader)
    with pytest.raises(Stopped):
        inc.lint_paths(root)
    stop["on"] = False
    (tmp_path / "child.yml").write_text(BAD_CHILD, encoding="utf-8")
    expected = flat(Linter(OPTIONS).lint_paths(root))
    assert [os.path.abspath(p) for p, code, *_ in expected if code == "LAIT320"] == [str(tmp_path / "1.yml")]
    assert flat(inc.lint_paths(root).result) == expected


def test_a_config_changed_after_a_cancelled_first_lint_starts_over(tmp_path: Path) -> None:
    """The first lint (nothing recorded yet) stops part-way after the config was loaded; the config
    then changes: the next lint must not keep what was linted under the old config."""
    from lait_core.syntax.bounded_read import Loaded, read_source

    (tmp_path / "lait.config.yml").write_text("workflows:\n  kid: child.yml\n", encoding="utf-8")
    (tmp_path / "child.yml").write_text(GOOD_CHILD, encoding="utf-8")
    (tmp_path / "1.yml").write_text("steps:\n  - workflow: kid\n    with: '{repo: 1}'\n", encoding="utf-8")
    (tmp_path / "2.yml").write_text("steps:\n  - jq: .\n", encoding="utf-8")
    stop = {"on": True}

    class Stopped(Exception):
        pass

    def reader(path: Path) -> Loaded:
        if stop["on"] and path.name == "2.yml":  # after 1.yml was linted
            raise Stopped
        return read_source(path)

    root = [str(tmp_path)]
    inc = IncrementalLinter(OPTIONS, reader=reader)
    with pytest.raises(Stopped):
        inc.lint_paths(root)
    stop["on"] = False
    (tmp_path / "lait.config.yml").write_text("workflows:\n  other: child.yml\n", encoding="utf-8")
    expected = flat(Linter(OPTIONS).lint_paths(root))
    assert any(
        os.path.abspath(p) == str(tmp_path / "1.yml") for p, *_ in expected
    )  # 'kid' is not registered now
    assert flat(inc.lint_paths(root).result) == expected


def test_a_cancelled_lint_keeps_the_files_it_finished(tmp_path: Path) -> None:
    """An editor cancels a workspace lint at each change: the next lint must not start over (on a big
    project it would be cancelled again and again), only finish what the stopped one left."""
    from lait_core.syntax.bounded_read import Loaded, read_source

    (tmp_path / "lait.config.yml").write_text("", encoding="utf-8")
    (tmp_path / "1.yml").write_text("steps:\n  - jq: .\n", encoding="utf-8")
    (tmp_path / "2.yml").write_text("steps:\n  - jq: .x\n", encoding="utf-8")
    stop = {"on": True}

    class Stopped(Exception):
        pass

    def reader(path: Path) -> Loaded:
        if stop["on"] and path.name == "2.yml":
            raise Stopped
        return read_source(path)

    inc = IncrementalLinter(OPTIONS, reader=reader)
    with pytest.raises(Stopped):
        inc.lint_paths([str(tmp_path)])
    stop["on"] = False
    assert inc.lint_paths([str(tmp_path)]).linted == {str(tmp_path / "2.yml")}


def test_a_created_replay_folder_is_seen(tmp_path: Path) -> None:
    """A test file's replay folder is no lait file (creating it changes no file of the lint), but its
    existence decides LAIT706: the lint that looked for it records it."""
    (tmp_path / "lait.config.yml").write_text("", encoding="utf-8")
    (tmp_path / "wf.yml").write_text("steps:\n  - prompt: Say hi\n", encoding="utf-8")
    (tmp_path / "smoke.test.yml").write_text(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: contains\n    value: hi\n", encoding="utf-8"
    )
    root = [str(tmp_path)]
    inc = IncrementalLinter(OPTIONS)
    assert "LAIT706" in {code for _p, code, *_ in flat(inc.lint_paths(root).result)}
    (tmp_path / "tape").mkdir()
    expected = flat(Linter(OPTIONS).lint_paths(root))
    assert "LAIT706" not in {code for _p, code, *_ in expected}
    assert flat(inc.lint_paths(root).result) == expected


MODEL = "[{model_id: m, provider: {base_url: 'http://127.0.0.1:1/v1'}}]"


def test_a_config_edit_relints_only_the_files_using_what_changed(tmp_path: Path) -> None:
    config = tmp_path / "lait.config.yml"

    def write_config(fast: str = "fast", command: str = "gh", default: str = "") -> None:
        config.write_text(
            f"models:\n  {fast}: {MODEL}\n  slow: {MODEL}\n"
            f"mcp_servers:\n  github: {{command: {command}}}\n  files: {{command: fs}}\n"
            f"agents:\n  helper: agents/helper.md\n{default}",
            encoding="utf-8",
        )

    write_config()
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents/helper.md").write_text(
        "---\nmodel: slow\nmcp: [files]\n---\nHelp.\n", encoding="utf-8"
    )
    names = {
        "fast.yml": "steps:\n  - prompt: hi\n    model: fast\n",
        "github.yml": "steps:\n  - prompt: hi\n    model: slow\n    mcp: [github]\n",
        "helper.yml": "steps:\n  - agent: helper\n",
        "plain.yml": "steps:\n  - jq: .\n",
    }
    for name, text in names.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    p = {name: str(tmp_path / name) for name in [*names, "agents/helper.md"]}
    root = [str(tmp_path)]
    inc = IncrementalLinter(OPTIONS)

    def lint() -> set[str]:
        outcome = inc.lint_paths(root)
        assert flat(outcome.result) == flat(Linter(OPTIONS).lint_paths(root))
        return outcome.linted

    every = set(p.values())
    assert lint() == every
    write_config(fast="quick")  # a rename: fast.yml now names an unknown model
    assert lint() == {p["fast.yml"]}
    write_config(fast="quick", command="gh2")  # one server's definition
    assert lint() == {p["github.yml"]}
    write_config()  # both back
    assert lint() == {p["fast.yml"], p["github.yml"]}
    config.write_text(config.read_text().replace("github:", "gh:"), encoding="utf-8")  # a server renamed
    assert lint() == {p["github.yml"]}
    assert any(os.path.abspath(path) == p["github.yml"] for path, *_ in flat(inc.lint_paths(root).result))
    write_config()
    assert lint() == {p["github.yml"]}
    write_config(default="default:\n  model: slow\n")  # what every file may use
    assert lint() == every
    write_config(default="default:\n  model: slow\n", command="gh3")  # github is not in default
    assert lint() == {p["github.yml"]}
    config.write_text("models: [\n", encoding="utf-8")  # no longer loads
    assert lint() == every
