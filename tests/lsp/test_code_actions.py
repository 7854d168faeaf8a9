"""Quick fixes: the core's edits (unit tests) and `textDocument/codeAction` through a real client.

Every end-to-end test applies the returned edits to the text the way an editor does (UTF-16
ranges), hands the new text to the server, and checks that the diagnostic is gone.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lait_core.language.code_actions import (
    TextEdit,
    add_mcp_server_edit,
    apply_edits,
    quick_fixes,
    yaml_scalar,
)
from lait_core.lint import suppression
from lait_core.lint.discovery import FileKind
from lait_core.lint.engine import Linter, LintOptions
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.positions import LineIndex, Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_ls.convert import from_lsp_range
from tests.lsp.conftest import SERVER, diagnostics_for, open_doc


@pytest_lsp.fixture(  # type: ignore[untyped-decorator]
    scope="module",
    config=ClientServerConfig(
        server_command=SERVER, server_env={"XDG_CONFIG_HOME": "/nonexistent-lait-test"}
    ),
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    """One server for the module (every test works in its own directory)."""
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), initialization_options={"debounce": 0})
    )
    yield lsp_client
    await lsp_client.shutdown_session()


CONFIG = "mcp_servers:\n  notes:\n    command: python3\n    args: [notes.py]\n  github:\n    command: gh\n"


# -- helpers --------------------------------------------------------------------------------------
def apply_lsp_edits(text: str, edits: Sequence[lsp.TextEdit]) -> str:
    """What an editor does with a TextEdit list: UTF-16 ranges against the current text."""
    index = LineIndex(text)
    return apply_edits(text, [TextEdit(from_lsp_range(index, e.range), e.new_text) for e in edits])


async def actions_for(
    client: LanguageClient, uri: str, diags: Sequence[lsp.Diagnostic], only: Sequence[str] | None = None
) -> list[lsp.CodeAction]:
    result = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            range=diags[0].range if diags else lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(0, 0)),
            context=lsp.CodeActionContext(diagnostics=list(diags), only=list(only) if only else None),
        )
    )
    actions = [a for a in result or [] if isinstance(a, lsp.CodeAction)]
    assert len(actions) == len(result or []), "commands are not expected, only code actions"
    return actions


def pick(actions: Sequence[lsp.CodeAction], title: str) -> lsp.CodeAction:
    titles = [a.title for a in actions]
    assert title in titles, f"{title!r} not offered; got {titles}"
    return next(a for a in actions if a.title == title)


def edits_of(action: lsp.CodeAction, uri: str) -> list[lsp.TextEdit]:
    assert action.kind == lsp.CodeActionKind.QuickFix
    assert action.edit is not None and action.edit.changes is not None
    assert set(action.edit.changes) == {uri}, action.edit.changes
    return list(action.edit.changes[uri])


async def replace_text(client: LanguageClient, uri: str, version: int, text: str) -> list[lsp.Diagnostic]:
    """Hand the edited text to the server (as an editor does after applying an edit) and wait for
    the diagnostics of that version."""
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    return await diagnostics_for(client, uri)


async def one(client: LanguageClient, uri: str, code: str) -> tuple[list[lsp.Diagnostic], lsp.Diagnostic]:
    diags = await diagnostics_for(client, uri)
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in diags]
    return diags, found[0]


def project(tmp_path: Path, config: str | None = CONFIG) -> Path:
    if config is not None:
        (tmp_path / "lait.config.yml").write_text(config, encoding="utf-8")
    return tmp_path


async def fix_and_recheck(
    client: LanguageClient, path: Path, text: str, code: str, title: str, expected: str | None = None
) -> str:
    """Open ``text``, apply the quick fix ``title`` for the one ``code`` diagnostic, check it is gone."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    uri = open_doc(client, path, text)
    _, diag = await one(client, uri, code)
    action = pick(await actions_for(client, uri, [diag]), title)
    assert list(action.diagnostics or ()) == [diag]
    new_text = apply_lsp_edits(text, edits_of(action, uri))
    if expected is not None:
        assert new_text == expected
    after = await replace_text(client, uri, 2, new_text)
    assert [d for d in after if d.code == code and d.range.start.line == diag.range.start.line] == []
    return new_text


# -- "did you mean" -----------------------------------------------------------------------------------
@pytest.mark.asyncio(loop_scope="module")
async def test_replacement_after_astral_characters(client: LanguageClient, tmp_path: Path) -> None:
    """The fix's code-point range becomes a UTF-16 range: the emoji before it counts twice."""
    text = 'steps:\n  - prompt: "😀😀 hi"\n    mcp: ["😀", gthub]\n'
    new = await fix_and_recheck(
        client,
        project(tmp_path) / "flow.yml",
        text.replace('"😀", ', ""),
        "LAIT501",
        "Replace with 'github'",
    )
    assert "mcp: [github]" in new
    wf = tmp_path / "flow2.yml"
    wf.write_text(text, encoding="utf-8")
    uri = open_doc(client, wf, text)
    diags = await diagnostics_for(client, uri)
    gthub = next(d for d in diags if "gthub" in d.message)
    assert gthub.range.start.character == len('    mcp: ["😀", ') + 1  # UTF-16 units
    action = pick(await actions_for(client, uri, [gthub]), "Replace with 'github'")
    assert action.is_preferred
    new_text = apply_lsp_edits(text, edits_of(action, uri))
    assert new_text == text.replace("gthub", "github")
    after = await replace_text(client, uri, 2, new_text)
    assert not any("gthub" in d.message for d in after)


@pytest.mark.asyncio(loop_scope="module")
async def test_replacement_in_a_template_inside_a_block_scalar(
    client: LanguageClient, tmp_path: Path
) -> None:
    text = "inputs:\n  topic: string\nsteps:\n  - prompt: |\n      日本語 {{ inputs.topc }} 😀\n"
    await fix_and_recheck(
        client,
        project(tmp_path) / "flow.yml",
        text,
        "LAIT403",
        "Replace with 'topic'",
        expected=text.replace("topc", "topic"),
    )


@pytest.mark.asyncio(loop_scope="module")
async def test_unknown_key_in_agent_frontmatter(client: LanguageClient, tmp_path: Path) -> None:
    text = "---\nmodel: local\ntemprature: 0.2\n---\nYou review code. 😀\n"
    await fix_and_recheck(
        client,
        project(tmp_path) / "agents" / "reviewer.md",
        text,
        "LAIT202",
        "Replace with 'temperature'",
        expected=text.replace("temprature", "temperature"),
    )


@pytest.mark.asyncio(loop_scope="module")
async def test_fixes_come_back_when_the_client_drops_data(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - prompt: hi\n    temprature: 0.2\n"
    wf = project(tmp_path) / "flow.yml"
    wf.write_text(text, encoding="utf-8")
    uri = open_doc(client, wf)
    _, diag = await one(client, uri, "LAIT309")
    assert diag.data is not None
    stripped = lsp.Diagnostic(range=diag.range, message=diag.message, code=diag.code, source=diag.source)
    action = pick(await actions_for(client, uri, [stripped]), "Replace with 'temperature'")
    assert apply_lsp_edits(text, edits_of(action, uri)) == text.replace("temprature", "temperature")


# -- LAIT501: add the server to lait.config.yml ---------------------------------------------------------
@pytest.mark.asyncio(loop_scope="module")
async def test_add_mcp_server_to_an_open_config(client: LanguageClient, tmp_path: Path) -> None:
    root = project(tmp_path)
    config_path = root / "lait.config.yml"
    config_uri = open_doc(client, config_path)
    await diagnostics_for(client, config_uri)
    text = "steps:\n  - prompt: hi\n    mcp: [notes, jira]\n"
    wf = root / "flow.yml"
    wf.write_text(text, encoding="utf-8")
    uri = open_doc(client, wf)
    _, diag = await one(client, uri, "LAIT501")
    actions = await actions_for(client, uri, [diag])
    action = pick(actions, "Add 'jira' to 'mcp_servers:' in lait.config.yml")
    assert action.edit is not None and action.edit.changes is not None
    assert set(action.edit.changes) == {config_uri}
    new_config = apply_lsp_edits(CONFIG, action.edit.changes[config_uri])
    assert new_config == CONFIG + "  jira: {command: jira}\n"
    # the editor applies the edit to the open config buffer; the workflow is checked again
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=config_uri, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=new_config)],
        )
    )
    assert [d.code for d in await diagnostics_for(client, uri) if d.code == "LAIT501"] == []


@pytest.mark.asyncio(loop_scope="module")
async def test_add_mcp_server_creates_the_section(client: LanguageClient, tmp_path: Path) -> None:
    config = "# project settings\nbase_url: http://localhost:1234/v1\nskills: {}"
    root = project(tmp_path, config)
    text = '---\nmcp: ["my server"]\n---\nBody.\n'
    agent = root / "agents" / "a.md"
    agent.parent.mkdir()
    agent.write_text(text, encoding="utf-8")
    uri = open_doc(client, agent)
    _, diag = await one(client, uri, "LAIT501")
    action = pick(
        await actions_for(client, uri, [diag]), "Add 'my server' to 'mcp_servers:' in lait.config.yml"
    )
    assert action.edit is not None and action.edit.changes is not None
    [(config_uri, edits)] = action.edit.changes.items()
    assert config_uri == (root / "lait.config.yml").as_uri()
    new_config = apply_lsp_edits(config, edits)
    assert new_config == config + '\nmcp_servers:\n  "my server": {command: "my server"}\n'
    open_doc(client, root / "lait.config.yml", new_config)
    await diagnostics_for(client, config_uri)
    after = await replace_text(client, uri, 2, text)
    assert [d.code for d in after if d.code == "LAIT501"] == []


# -- suppressions -----------------------------------------------------------------------------------
@pytest.mark.asyncio(loop_scope="module")
async def test_suppress_on_a_yaml_line(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - prompt: hi\n    mcp: [jira]  # the tracker\n"
    await fix_and_recheck(
        client,
        project(tmp_path) / "flow.yml",
        text,
        "LAIT501",
        "Suppress LAIT501 on this line",
        expected=text.replace("tracker\n", "tracker # lait: ignore[LAIT501]\n"),
    )


@pytest.mark.asyncio(loop_scope="module")
async def test_suppress_merges_into_an_existing_comment(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - prompt: hi\n    mcp: [jira] # lait: ignore[LAIT502]\n"
    await fix_and_recheck(
        client,
        project(tmp_path) / "flow.yml",
        text,
        "LAIT501",
        "Suppress LAIT501 on this line",
        expected=text.replace("[LAIT502]", "[LAIT502, LAIT501]"),
    )


@pytest.mark.asyncio(loop_scope="module")
async def test_suppress_inside_a_block_scalar_is_file_wide(client: LanguageClient, tmp_path: Path) -> None:
    """A comment inside `prompt: |` would be prompt text: only the file-level suppression is offered."""
    text = "inputs:\n  topic: string\nsteps:\n  - prompt: |\n      about {{ inputs.nope }}\n"
    wf = project(tmp_path) / "flow.yml"
    wf.write_text(text, encoding="utf-8")
    uri = open_doc(client, wf)
    _, diag = await one(client, uri, "LAIT403")
    titles = [a.title for a in await actions_for(client, uri, [diag])]
    assert "Suppress LAIT403 on this line" not in titles
    await fix_and_recheck(
        client,
        tmp_path / "flow2.yml",
        text,
        "LAIT403",
        "Suppress LAIT403 in this file",
        expected="# lait: ignore-file[LAIT403]\n" + text,
    )


@pytest.mark.asyncio(loop_scope="module")
async def test_suppress_in_a_markdown_body(client: LanguageClient, tmp_path: Path) -> None:
    text = "---\nmodel: local\n---\nSummarise {{ input }} {{/if}}. 😀\n"
    path = project(tmp_path) / "agents" / "s.md"
    new = await fix_and_recheck(client, path, text, "LAIT401", "Suppress LAIT401 on this line")
    assert new == text.replace("😀\n", "😀 <!-- lait: ignore[LAIT401] -->\n")


@pytest.mark.asyncio(loop_scope="module")
async def test_suppress_in_agent_frontmatter(client: LanguageClient, tmp_path: Path) -> None:
    text = "---\nmodel: local\ntemprature: 0.2\n---\nBody.\n"
    path = project(tmp_path) / "agents" / "f.md"
    await fix_and_recheck(
        client,
        path,
        text,
        "LAIT202",
        "Suppress LAIT202 on this line",
        expected=text.replace("0.2", "0.2 # lait: ignore[LAIT202]"),
    )
    await fix_and_recheck(
        client,
        path.with_name("g.md"),
        text,
        "LAIT202",
        "Suppress LAIT202 in this file",
        expected=text.replace("---\nmodel", "---\n# lait: ignore-file[LAIT202]\nmodel"),
    )


@pytest.mark.asyncio(loop_scope="module")
async def test_suppress_the_unchecked_names_warning(client: LanguageClient, tmp_path: Path) -> None:
    """LAIT506 sits at 1:1 of an agent: the `---` line cannot take a comment, the file can."""
    text = "---\nmcp: [x]\n---\nBody.\n"
    path = tmp_path / "agents" / "n.md"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    uri = open_doc(client, path)
    _, diag = await one(client, uri, "LAIT506")
    titles = [a.title for a in await actions_for(client, uri, [diag])]
    assert titles == ["Suppress LAIT506 in this file"]
    await fix_and_recheck(
        client, tmp_path / "agents" / "m.md", text, "LAIT506", "Suppress LAIT506 in this file"
    )


# -- what gets nothing ----------------------------------------------------------------------------------
@pytest.mark.asyncio(loop_scope="module")
async def test_nothing_for_other_kinds_and_other_servers(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - prompt: hi\n    temprature: 0.2\n"
    wf = project(tmp_path) / "flow.yml"
    wf.write_text(text, encoding="utf-8")
    uri = open_doc(client, wf)
    _, diag = await one(client, uri, "LAIT309")
    assert await actions_for(client, uri, [diag], only=[lsp.CodeActionKind.Source]) == []
    foreign = lsp.Diagnostic(range=diag.range, message="yaml says no", code="E1", source="yaml")
    assert await actions_for(client, uri, [foreign]) == []
    assert await actions_for(client, uri, []) == []
    assert await actions_for(client, uri, [diag], only=[lsp.CodeActionKind.QuickFix]) != []


@pytest.mark.asyncio(loop_scope="module")
async def test_a_stale_diagnostic_gets_no_broken_edit(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - prompt: hi\n    temprature: 0.2\n"
    wf = project(tmp_path) / "flow.yml"
    wf.write_text(text, encoding="utf-8")
    uri = open_doc(client, wf)
    _, diag = await one(client, uri, "LAIT309")
    await replace_text(client, uri, 2, "steps: []\n")
    actions = await asyncio.wait_for(actions_for(client, uri, [diag]), 5)
    assert all(a.title != "Replace with 'temperature'" for a in actions)


# -- the core, without a server ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (
            "mcp_servers:\n    a: {command: x}\n",
            "mcp_servers:\n    a: {command: x}\n    new: {command: new}\n",
        ),
        ("mcp_servers:\n  a:\n    command: |\n      x\n\nz: 1\n", None),
        ("mcp_servers: {a: {command: x}}\n", "mcp_servers: {a: {command: x}, new: {command: new}}\n"),
        ("mcp_servers: {}\n", "mcp_servers: {new: {command: new}}\n"),
        ("mcp_servers: # none yet\nz: 1\n", "mcp_servers: # none yet\n  new: {command: new}\nz: 1\n"),
        ("mcp_servers: ~\n", "mcp_servers: {new: {command: new}}\n"),
        ("", "mcp_servers:\n  new: {command: new}\n"),
        ("base_url: x", "base_url: x\nmcp_servers:\n  new: {command: new}\n"),
        (
            "a: 1\r\nmcp_servers:\r\n  b: {command: y}\r\n",
            "a: 1\r\nmcp_servers:\r\n  b: {command: y}\r\n  new: {command: new}\r\n",
        ),
        ("mcp_servers: [a]\n", "-"),
        ("mcp_servers: [\n", "-"),
        ("{base_url: x}\n", "-"),
    ],
)
def test_add_mcp_server_edit(config: str, expected: str | None) -> None:
    edit = add_mcp_server_edit(config, "new")
    if expected == "-":
        assert edit is None
        return
    assert edit is not None
    new = apply_edits(config, [edit])
    if expected is not None:
        assert new == expected
    parsed = parse_yaml(new)
    assert parsed.ok and parsed.root is not None
    assert parsed.root.to_python()["mcp_servers"]["new"] == {"command": "new"}


@pytest.mark.parametrize(
    "name", ["github", "true", "a b", "x:y", "日本", "#x", "123", "-", 'q"uote', "tab\there"]
)
def test_yaml_scalar_reads_back(name: str) -> None:
    written = yaml_scalar(name)
    assert written is not None
    parsed = parse_yaml(f"{written}: {{command: {written}}}\n")
    assert parsed.ok and parsed.root is not None
    assert parsed.root.to_python() == {name: {"command": name}}


LINE_CASES = [
    # (text, line of the diagnostic, markdown, line suppression offered)
    ("steps:\n  - prompt: hi\n    mcp: [x]\n", 2, False, True),
    ('steps:\n  - prompt: "a\n      b"\n', 1, False, False),  # inside a quoted string
    ("steps:\n  - prompt: a\n      b\n", 1, False, False),  # inside a plain multi-line scalar
    ("steps:\n  - prompt: !!str |\n      x {{ y }}\n", 2, False, False),  # tagged block scalar
    ("steps:\n  - prompt: |\n      x {{ y }}\n  - prompt: z\n", 3, False, True),
    ("---\nmodel: x\n---\nHi {{#if a\n}}x{{/if}}\n", 3, True, False),  # inside a {{ }} tag
    ("---\nmodel: x\n---\nHi {{ a }}\n", 2, True, False),  # the closing ---
    ("---\nmodel: x\n---\nHi {{ a }}\n", 0, True, False),  # the opening ---
    ("no frontmatter {{ a }}\n", 0, True, True),
]


@pytest.mark.parametrize(("text", "line", "markdown", "offered"), LINE_CASES)
def test_line_suppression_only_where_it_is_honoured(
    text: str, line: int, markdown: bool, offered: bool
) -> None:
    kind = FileKind.AGENT if markdown else FileKind.WORKFLOW
    diag = Diagnostic("LAIT403", "m", Range.at(line, 0, line, 1))
    fixes = quick_fixes(text, Path("/nonexistent/x"), kind, [diag])
    by_title = {f.title: f for f in fixes}
    assert ("Suppress LAIT403 on this line" in by_title) is offered
    for fix in fixes:
        [change] = fix.changes
        new = apply_edits(change.text, change.edits)
        if "in this file" in fix.title:
            assert suppression.scan(new, markdown=markdown).file == {"LAIT403"}
            continue
        assert suppression.scan(new, markdown=markdown).suppressed(diag), (fix.title, new)
        if not markdown:
            before, after = parse_yaml(text), parse_yaml(new)
            assert before.root is not None and after.root is not None
            assert after.root.to_python() == before.root.to_python()


def test_line_suppression_after_a_block_scalar_in_a_list_item() -> None:
    text = "steps:\n  - prompt: |\n      hi\n    temprature: 1\n"
    diag = Diagnostic("LAIT309", "m", Range.at(3, 4, 3, 14))
    titles = [f.title for f in quick_fixes(text, Path("/nonexistent/x"), FileKind.WORKFLOW, [diag])]
    assert "Suppress LAIT309 on this line" in titles


def test_quick_fixes_against_the_linter(tmp_path: Path) -> None:
    """Each fix the core offers, applied, makes the diagnostic disappear from a fresh lint."""
    (tmp_path / "lait.config.yml").write_text(CONFIG, encoding="utf-8")
    text = "inputs:\n  topic: string\nsteps:\n  - prompt: 'on {{ inputs.topc }}'\n    mcp: [gthub, jira]\n    temprature: 1\n"
    wf = tmp_path / "flow.yml"
    linter = Linter(LintOptions(environ={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}))
    diags = linter.lint_text(text, wf, FileKind.WORKFLOW)
    assert {d.code for d in diags} == {"LAIT403", "LAIT501", "LAIT309"}
    fixes = quick_fixes(text, wf, FileKind.WORKFLOW, diags, linter=linter)
    assert len(fixes) >= 3 * len(diags)
    for fix in fixes:
        target = fix.diagnostic
        fresh = Linter(LintOptions(environ={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}))
        new_text = text
        for change in fix.changes:
            if change.path == str(wf):
                new_text = apply_edits(change.text, change.edits)
            else:
                Path(change.path).write_text(apply_edits(change.text, change.edits), encoding="utf-8")
        after = fresh.lint_text(new_text, wf, FileKind.WORKFLOW)
        (tmp_path / "lait.config.yml").write_text(CONFIG, encoding="utf-8")
        assert not any(
            d.code == target.code and d.range.start == target.range.start and d.message == target.message
            for d in after
        ), (fix.title, new_text)
