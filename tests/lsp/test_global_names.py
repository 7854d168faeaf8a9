"""Names that only the global config ($XDG_CONFIG_HOME/lait/config.yml) defines: go to definition
from a project workflow lands in the global file, references include the global definition,
workspace symbols list the global names, and rename refuses (saying where the definition is); from the
global file itself, references and rename reach the workspace's uses."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, diagnostics_for, open_doc
from tests.lsp.markers import marked, write_project

XDG = Path(tempfile.mkdtemp(prefix="lait-global-names-"))
atexit.register(shutil.rmtree, XDG, True)
GLOBAL = (
    "mcp_servers:\n  «everywhere»: {command: some-mcp}\n"
    "models:\n  «tiny»: [{model_id: t, provider: {base_url: 'http://127.0.0.1:1/v1'}}]\n"
    "default:\n  model: «tiny»\n"
)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, server_env={"XDG_CONFIG_HOME": str(XDG)})
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), initialization_options={"debounce": 0})
    )
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_definition_in_the_global_config(client: LanguageClient, tmp_path: Path) -> None:
    glob = write_project(XDG, {"lait/config.yml": GLOBAL})["lait/config.yml"]
    write_project(tmp_path, {"lait.config.yml": "mcp_servers:\n  local: {command: x}\n"})
    for source, target in (
        ("steps:\n  - prompt: hi\n    mcp: [every‸where]\n", glob.ranges[0]),
        ("steps:\n  - prompt: hi\n    model: ti‸ny\n", glob.ranges[1]),
    ):
        m = marked(source)
        path = tmp_path / "flow.yml"
        path.write_text(m.text, encoding="utf-8")
        uri = open_doc(client, path)
        found = await client.text_document_definition_async(
            lsp.DefinitionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=m.at)
        )
        assert isinstance(found, list)
        assert [(d.uri, d.range) for d in found] == [((XDG / "lait" / "config.yml").as_uri(), target)]
        client.text_document_did_close(
            lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
        )

    # references from a project file include the global definition (and the global file's own uses)
    m = marked("steps:\n  - prompt: hi\n    model: ti‸ny\n  - prompt: 😀 again\n    model: tiny\n")
    path = tmp_path / "flow.yml"
    path.write_text(m.text, encoding="utf-8")
    uri = open_doc(client, path)
    doc = lsp.TextDocumentIdentifier(uri=uri)
    global_uri = (XDG / "lait" / "config.yml").as_uri()
    refs = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=doc, position=m.at, context=lsp.ReferenceContext(include_declaration=True)
        )
    )
    assert refs is not None
    assert sorted((r.uri, r.range.start.line) for r in refs) == sorted(
        [(uri, 2), (uri, 4), (global_uri, glob.ranges[1].start.line), (global_uri, glob.ranges[2].start.line)]
    )
    without = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=doc, position=m.at, context=lsp.ReferenceContext(include_declaration=False)
        )
    )
    assert without is not None and (global_uri, glob.ranges[1]) not in [(r.uri, r.range) for r in without]

    # rename refuses, naming the global file and line, in prepareRename and in rename
    expected = f"model 'tiny' is defined in the global config {XDG / 'lait' / 'config.yml'}:4:3"
    for request in (
        client.text_document_prepare_rename_async(lsp.PrepareRenameParams(text_document=doc, position=m.at)),
        client.text_document_rename_async(
            lsp.RenameParams(text_document=doc, position=m.at, new_name="small")
        ),
    ):
        with pytest.raises(JsonRpcException) as failed:
            await request
        assert expected in str(failed.value)

    # from the global file itself (a config document for the editor): references reach the uses in
    # the workspace that resolve to it, and rename edits both
    global_doc = lsp.TextDocumentIdentifier(uri=open_doc(client, XDG / "lait" / "config.yml"))
    at_definition = glob.ranges[1].start
    refs = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=global_doc,
            position=at_definition,
            context=lsp.ReferenceContext(include_declaration=True),
        )
    )
    assert refs is not None
    assert sorted((r.uri, r.range.start.line) for r in refs) == sorted(
        [(uri, 2), (uri, 4), (global_uri, glob.ranges[1].start.line), (global_uri, glob.ranges[2].start.line)]
    )
    edit = await client.text_document_rename_async(
        lsp.RenameParams(text_document=global_doc, position=at_definition, new_name="small")
    )
    assert edit is not None and edit.changes is not None
    assert {u: len(e) for u, e in edit.changes.items()} == {global_uri: 2, uri: 2}

    # a project definition shadows the global one: then the project's name is renamed as usual
    config = tmp_path / "lait.config.yml"
    config.write_text(
        "mcp_servers:\n  local: {command: x}\nmodels:\n  tiny: [{model_id: p, provider: {base_url: 'http://127.0.0.1:1/v1'}}]\n",
        encoding="utf-8",
    )
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=config.as_uri(), type=lsp.FileChangeType.Changed)]
        )
    )
    edit = await client.text_document_rename_async(
        lsp.RenameParams(text_document=doc, position=m.at, new_name="small")
    )
    assert edit is not None and edit.changes is not None
    assert set(edit.changes) == {uri, config.as_uri()}

    # workspace symbols list the global names, located in the global file
    symbols = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="everyw"))
    assert symbols is not None
    assert [(s.name, s.location.uri, s.location.range) for s in symbols] == [
        ("everywhere", global_uri, glob.ranges[0])
    ]

    # the global config edited in the editor (unsaved): open project files are linted against its new
    # text (the linters' cached configs are dropped, as for a lait.config.yml)
    uses = open_doc(
        client,
        write_project(tmp_path, {"uses.yml": "steps:\n  - prompt: hi\n    mcp: [everywhere]\n"})
        and tmp_path / "uses.yml",
    )
    assert not [d for d in await diagnostics_for(client, uses) if d.code == "LAIT501"]
    client.diagnostics.pop(uses, None)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=global_doc.uri, version=2),
            content_changes=[
                lsp.TextDocumentContentChangeWholeDocument(text=glob.text.replace("everywhere", "elsewhere"))
            ],
        )
    )
    after = await diagnostics_for(client, uses)
    assert [d.code for d in after if "everywhere" in d.message] == ["LAIT501"]
