"""Workspace-wide diagnostics and file watching through the real server.

* pull mode (``{"diagnostics": "pull"}``): ``workspace/diagnostic`` lists every lait file's problems,
  open or not, exactly as ``lait lint .`` reports them (compared with the CLI's JSON in the same
  test); a second pull says ``unchanged`` for every file whose lint inputs did not change and
  re-checks a changed file and the workflows that use it; ``textDocument/diagnostic`` answers for a closed file and says "unchanged" for a result id
  the client already has; a change of any lait file asks the client to pull again.
* file watching: the server registers ``workspace/didChangeWatchedFiles`` for the lait globs, and a
  file created on disk is seen at once (the missing-agent diagnostic of an open workflow goes away).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, diagnostics_for, open_doc
from tests.lsp.markers import write_project

ENV = {"XDG_CONFIG_HOME": "/nonexistent-lait-test"}
FILES = {
    "lait.config.yml": "agents:\n  reviewer: agents/reviewer.md\nmcp_servers:\n  git: {command: git-mcp}\n",
    "workflows/a.yml": "steps:\n  - id: one\n    prompt: hi\n    temprature: 0.2\n",
    "workflows/b.yml": "steps:\n  - agent: ../agents/nobody.md\n  - agent: reviewer\n    mcp: [gti]\n",
    "workflows/clean.yml": "steps:\n  - jq: '.'\n",
    "agents/reviewer.md": "---\nmodel: gpt-4o-mini\nsytem: x\n---\nYou review 😀 {{ inputs.x }}.\n",
}


def recording_client(lsp_client: LanguageClient) -> list[lsp.Registration]:
    registrations: list[lsp.Registration] = []

    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register(params: lsp.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    return registrations


_REGISTRATIONS: dict[int, list[lsp.Registration]] = {}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def pull_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    _REGISTRATIONS[id(lsp_client)] = recording_client(lsp_client)
    root = tmp_path / "project"
    root.mkdir()
    result = await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(
                workspace=lsp.WorkspaceClientCapabilities(
                    diagnostics=lsp.DiagnosticWorkspaceClientCapabilities(refresh_support=True),
                    did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(
                        dynamic_registration=True
                    ),
                ),
                text_document=lsp.TextDocumentClientCapabilities(
                    diagnostic=lsp.DiagnosticClientCapabilities(related_document_support=True)
                ),
            ),
            root_uri=root.as_uri(),
            initialization_options={"debounce": 0, "diagnostics": "pull"},
        )
    )
    provider = result.capabilities.diagnostic_provider
    assert isinstance(provider, lsp.DiagnosticOptions)
    assert provider.workspace_diagnostics and provider.inter_file_dependencies
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def watch_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    _REGISTRATIONS[id(lsp_client)] = recording_client(lsp_client)
    root = tmp_path / "project"
    root.mkdir()
    result = await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(
                workspace=lsp.WorkspaceClientCapabilities(
                    did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(
                        dynamic_registration=True
                    )
                )
            ),
            root_uri=root.as_uri(),
            initialization_options={"debounce": 0},
        )
    )
    assert result.capabilities.diagnostic_provider is None  # push mode by default
    yield lsp_client
    await lsp_client.shutdown_session()


def lint_json(root: Path) -> set[tuple[str, str, int, int, str]]:
    """``lait lint --format json .`` in ``root``: (absolute file, code, line, column, message)."""
    env = {**os.environ, **ENV}
    proc = subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "lint", "--format", "json", "."],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 3), proc.stderr
    ROOTS.append(str(root))
    return {
        (
            os.path.normpath(os.path.join(root, f["file"])),
            f["code"],
            f["line"],
            f["column"],
            relative(f["message"]),
        )
        for f in json.loads(proc.stdout)
    }


def as_rows(uri: str, items: list[lsp.Diagnostic], text: str) -> set[tuple[str, str, int, int, str]]:
    """Rows like lint_json's (columns back to code points: the fixtures are BMP-only before problems)."""
    path = os.path.normpath(lsp_path(uri))
    return {
        (path, str(d.code), d.range.start.line + 1, d.range.start.character + 1, relative(d.message))
        for d in items
    }


ROOTS: list[str] = []


def relative(message: str) -> str:
    """Paths in messages relative to the project (the CLI ran there; the server names them in full)."""
    for root in ROOTS:
        message = message.replace(root + os.sep, "")
    return message


def lsp_path(uri: str) -> str:
    from pygls.uris import to_fs_path

    fs = to_fs_path(uri)
    assert fs is not None
    return fs


async def workspace_report(client: LanguageClient, previous: list[lsp.PreviousResultId] | None = None) -> Any:
    return await client.workspace_diagnostic_async(
        lsp.WorkspaceDiagnosticParams(previous_result_ids=previous or [])
    )


@pytest.mark.asyncio
async def test_workspace_diagnostics_equal_lait_lint(pull_client: LanguageClient, tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_project(root, FILES)
    open_doc(pull_client, root / "workflows" / "a.yml")  # open or not: the same answers
    expected = lint_json(root)
    report = await workspace_report(pull_client)
    rows: set[tuple[str, str, int, int, str]] = set()
    uris = set()
    for item in report.items:
        assert isinstance(item, lsp.WorkspaceFullDocumentDiagnosticReport)
        uris.add(item.uri)
        rows |= as_rows(item.uri, list(item.items), "")
    assert rows == expected
    assert {c for _p, c, *_ in expected} >= {"LAIT202", "LAIT319"}  # the fixture has problems in closed files
    assert (root / "workflows" / "clean.yml").as_uri() in uris  # clean files are listed (empty)
    # the same result ids again: every file is unchanged
    previous = [lsp.PreviousResultId(uri=i.uri, value=i.result_id or "") for i in report.items]
    again = await workspace_report(pull_client, previous)
    assert all(isinstance(i, lsp.WorkspaceUnchangedDocumentDiagnosticReport) for i in again.items)
    assert "file://" in next(iter(uris))
    # a closed agent changes on disk: it and the workflow calling it (by registered name) come back
    # `full` with new results, equal to `lait lint` again; every other file is `unchanged`
    agent = root / "agents" / "reviewer.md"
    agent.write_text("---\nmodel: gpt-4o-mini\nmcp: [ghost]\n---\nYou review 😀.\n", encoding="utf-8")
    pull_client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=agent.as_uri(), type=lsp.FileChangeType.Changed)]
        )
    )
    third = await workspace_report(pull_client, previous)
    full = {i.uri: i for i in third.items if isinstance(i, lsp.WorkspaceFullDocumentDiagnosticReport)}
    b_uri = (root / "workflows" / "b.yml").as_uri()
    assert set(full) == {agent.as_uri(), b_uri}
    assert len(third.items) == len(report.items)
    old = {i.uri: i for i in report.items}
    assert all(full[u].result_id != old[u].result_id and full[u].items != old[u].items for u in full)
    expected = lint_json(root)
    rows = set()
    for item in third.items:
        rows |= as_rows(item.uri, list(full[item.uri].items if item.uri in full else old[item.uri].items), "")
    assert rows == expected and any("ghost" in r[4] for r in expected)


@pytest.mark.asyncio
async def test_document_pull_for_a_closed_file(pull_client: LanguageClient, tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_project(root, FILES)
    uri = (root / "agents" / "reviewer.md").as_uri()
    params = lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    report = await pull_client.text_document_diagnostic_async(params)
    assert isinstance(report, lsp.RelatedFullDocumentDiagnosticReport)
    lint_rows = lint_json(root)
    expected = {r for r in lint_rows if r[0] == str(root / "agents" / "reviewer.md")}
    assert as_rows(uri, list(report.items), "") == expected and expected
    params.previous_result_id = report.result_id
    same = await pull_client.text_document_diagnostic_async(params)
    assert isinstance(same, lsp.RelatedUnchangedDocumentDiagnosticReport)
    other = root / "notes.yml"  # not a lait file: nothing, as when it is open
    other.write_text("just: [a, list\n", encoding="utf-8")
    plain = await pull_client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=other.as_uri()))
    )
    assert isinstance(plain, lsp.RelatedFullDocumentDiagnosticReport) and list(plain.items) == []


@pytest.mark.asyncio
async def test_change_of_a_file_asks_the_client_to_pull_again(
    pull_client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    write_project(root, FILES)
    registrations = _REGISTRATIONS[id(pull_client)]
    for _ in range(500):
        if registrations:
            break
        await asyncio.sleep(0.01)
    assert [r.method for r in registrations] == [lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    b_uri = (root / "workflows" / "b.yml").as_uri()
    first = await workspace_report(pull_client)
    assert any("nobody.md" in d.message for i in first.items if i.uri == b_uri for d in i.items)
    held = [lsp.PreviousResultId(uri=i.uri, value=i.result_id or "") for i in first.items]
    before = pull_client.diagnostic_refresh_count
    (root / "agents" / "nobody.md").write_text("---\nmodel: m\n---\nhi\n", encoding="utf-8")
    # VS Code pulls the workspace again two seconds after each answer: while no watched file changed
    # the server answers "unchanged" without linting (so it has not seen the file written meanwhile).
    quiet = await workspace_report(pull_client, held)
    assert quiet.items and all(
        isinstance(i, lsp.WorkspaceUnchangedDocumentDiagnosticReport) for i in quiet.items
    )
    pull_client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[
                lsp.FileEvent(uri=(root / "agents" / "nobody.md").as_uri(), type=lsp.FileChangeType.Created)
            ]
        )
    )
    for _ in range(1000):
        if pull_client.diagnostic_refresh_count > before:
            break
        await asyncio.sleep(0.01)
    assert pull_client.diagnostic_refresh_count > before
    # after the change the next workspace pull lints: b.yml is reported again, without the problem
    changed = {i.uri: i for i in (await workspace_report(pull_client, held)).items}
    assert isinstance(changed[b_uri], lsp.WorkspaceFullDocumentDiagnosticReport)
    assert not any("nobody.md" in d.message for d in changed[b_uri].items)
    uri = open_doc(pull_client, root / "workflows" / "b.yml")
    report = await pull_client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, lsp.RelatedFullDocumentDiagnosticReport)
    assert "nobody.md" not in " ".join(d.message for d in report.items)
    assert uri not in pull_client.diagnostics  # pull mode publishes nothing
    # an unsaved edit shows in the workspace pull; closed without saving, the file on disk counts again
    text = (root / "workflows" / "b.yml").read_text(encoding="utf-8")
    pull_client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                lsp.TextDocumentContentChangeWholeDocument(text=text + "  - agent: ../ghost.md\n")
            ],
        )
    )
    edited = await workspace_report(pull_client, held)
    held = [lsp.PreviousResultId(uri=i.uri, value=i.result_id or "") for i in edited.items]
    assert any(
        "ghost.md" in d.message for i in edited.items if i.uri == b_uri for d in getattr(i, "items", [])
    )
    refreshes = pull_client.diagnostic_refresh_count
    pull_client.text_document_did_close(
        lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    for _ in range(1000):  # closing an edited file asks the client to pull again at once
        if pull_client.diagnostic_refresh_count > refreshes:
            break
        await asyncio.sleep(0.01)
    assert pull_client.diagnostic_refresh_count > refreshes
    closed = {i.uri: i for i in (await workspace_report(pull_client, held)).items}
    assert isinstance(closed[b_uri], lsp.WorkspaceFullDocumentDiagnosticReport)
    assert not any("ghost.md" in d.message for d in closed[b_uri].items)


@pytest.mark.asyncio
async def test_created_agent_is_seen_at_once(watch_client: LanguageClient, tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_project(root, FILES)
    registrations = _REGISTRATIONS[id(watch_client)]
    for _ in range(500):
        if registrations:
            break
        await asyncio.sleep(0.01)
    [registration] = registrations
    assert registration.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES
    options = registration.register_options
    globs = {w["globPattern"] if isinstance(w, dict) else w.glob_pattern for w in _watchers(options)}
    assert "**/lait.config.yml" in globs and "**/*.md" in globs
    uri = open_doc(watch_client, root / "workflows" / "b.yml")
    first = await diagnostics_for(watch_client, uri)
    assert any("nobody.md" in d.message for d in first)
    watch_client.diagnostics.pop(uri)
    (root / "agents" / "nobody.md").write_text("---\nmodel: m\n---\nhi\n", encoding="utf-8")
    watch_client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[
                lsp.FileEvent(uri=(root / "agents" / "nobody.md").as_uri(), type=lsp.FileChangeType.Created)
            ]
        )
    )
    after = await diagnostics_for(watch_client, uri)
    assert not any("nobody.md" in d.message for d in after)
    assert any("gti" in d.message for d in after)  # the other problem stays


def _watchers(options: Any) -> list[Any]:
    if isinstance(options, dict):
        return list(options["watchers"])
    return list(options.watchers)
