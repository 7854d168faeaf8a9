"""Names that only the global config ($XDG_CONFIG_HOME/lait/config.yml) defines: go to definition
from a project workflow lands in the global file."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, open_doc
from tests.lsp.markers import marked, write_project

XDG = Path(tempfile.mkdtemp(prefix="lait-global-names-"))
atexit.register(shutil.rmtree, XDG, True)
GLOBAL = "mcp_servers:\n  «everywhere»: {command: some-mcp}\nmodels:\n  «tiny»: [{model_id: t, provider: {base_url: 'http://127.0.0.1:1/v1'}}]\n"


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
