"""A dependant's message names a child file the same way whichever file was linted first.

lait-ls runs where the editor starts it (VS Code: the workspace folder), so its messages name files
relative to that folder, as `lait lint .` does there. A child workflow that a test file targets used
to be parsed once for the whole session under the name the test file's lint gave it (its absolute
path): a workflow running that child, linted afterwards, then quoted the child's problem with its
absolute path (in a workspace pull, the test file sorts before the workflows; in an editor, it was
opened first). Here the test file is opened and linted first, then the parent; then the workspace is
pulled: every message equals `lait lint .`'s, character for character.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient
from pytest_lsp.client import make_test_lsp_client

from tests.lsp.conftest import SERVER, open_doc

ROOT = Path(__file__).resolve().parents[2]
ENV = {
    **os.environ,
    "XDG_CONFIG_HOME": "/nonexistent-lait-test",
    "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
}
FILES = {
    "lait.config.yml": "agents: {}\n",
    "tests/child.test.yml": "workflow: ../workflows/child.yml\nreplay: tape\nassert:\n  - type: contains\n    value: hi\n",
    "tests/tape/.keep": "",
    "workflows/child.yml": "steps:\n  - id: one\n    prompt: hi\n    temprature: 0.2\n",
    "workflows/parent.yml": "steps:\n  - workflow: ./child.yml\n",
}

Row = tuple[str, str, int, int, str]


@pytest_asyncio.fixture
async def project_client(tmp_path: Path) -> AsyncIterator[tuple[LanguageClient, Path]]:
    """A pull-mode lait-ls started in the project folder (as VS Code starts it)."""
    root = tmp_path / "project"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    client = make_test_lsp_client()
    await client.start_io(*SERVER, env=ENV, cwd=str(root))
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(
                text_document=lsp.TextDocumentClientCapabilities(
                    diagnostic=lsp.DiagnosticClientCapabilities(related_document_support=True)
                )
            ),
            root_uri=root.as_uri(),
            initialization_options={"debounce": 0, "diagnostics": "pull"},
        )
    )
    try:
        yield client, root
    finally:
        await client.shutdown_session()
        await client.stop()  # type: ignore[no-untyped-call]


def lint_rows(root: Path) -> set[Row]:
    proc = subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "lint", "--format", "json", "."],
        cwd=root,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 3), proc.stderr
    return {(f["file"], f["code"], f["line"], f["column"], f["message"]) for f in json.loads(proc.stdout)}


def rows(root: Path, uri: str, items: list[lsp.Diagnostic]) -> set[Row]:
    from pygls.uris import to_fs_path

    fs = to_fs_path(uri)
    assert fs is not None
    rel = os.path.relpath(fs, root)
    return {(rel, str(d.code), d.range.start.line + 1, d.range.start.character + 1, d.message) for d in items}


async def document_rows(client: LanguageClient, root: Path, rel: str) -> set[Row]:
    uri = open_doc(client, root / rel)
    report = await client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, lsp.RelatedFullDocumentDiagnosticReport)
    return rows(root, uri, list(report.items))


@pytest.mark.asyncio
async def test_a_child_is_named_as_lait_lint_names_it_whatever_was_linted_first(
    project_client: tuple[LanguageClient, Path],
) -> None:
    client, root = project_client
    expected = lint_rows(root)
    [summary] = [r for r in expected if r[0] == "workflows/parent.yml"]
    assert summary[1] == "LAIT320" and "(workflows/child.yml:4:5)" in summary[4]
    # the test file first (its lint parses the child it targets), then the parent
    assert await document_rows(client, root, "tests/child.test.yml") == {
        r for r in expected if r[0] == "tests/child.test.yml"
    }
    assert await document_rows(client, root, "workflows/parent.yml") == {summary}
    # the workspace pull (the test file sorts before the workflows): `lait lint .` exactly
    report = await client.workspace_diagnostic_async(lsp.WorkspaceDiagnosticParams(previous_result_ids=[]))
    pulled: set[Row] = set()
    for item in report.items:
        assert isinstance(item, lsp.WorkspaceFullDocumentDiagnosticReport)
        pulled |= rows(root, item.uri, list(item.items))
    assert pulled == expected
    assert str(root) not in " ".join(r[4] for r in pulled)
