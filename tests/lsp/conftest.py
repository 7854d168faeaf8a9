"""A real LSP client (pytest-lsp) talking to `lait-ls` in a subprocess."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

SERVER = [sys.executable, "-m", "lait_ls.server"]


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, server_env={"XDG_CONFIG_HOME": "/nonexistent-lait-test"})
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            initialization_options={"debounce": 0},
        )
    )
    yield lsp_client
    await lsp_client.shutdown_session()


def module_client() -> Any:
    """:func:`client` with one server for a whole test module: ``client = module_client()`` in the
    module, with ``pytestmark = pytest.mark.asyncio(loop_scope="module")``. For modules whose tests
    each work on files of their own ``tmp_path`` (what one test opens never meets another's); it
    saves a server start-up (about a second of CPU) per test."""

    @pytest_lsp.fixture(  # type: ignore[untyped-decorator]
        scope="module",
        config=ClientServerConfig(
            server_command=SERVER, server_env={"XDG_CONFIG_HOME": "/nonexistent-lait-test"}
        ),
    )
    async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
        await lsp_client.initialize_session(
            lsp.InitializeParams(
                capabilities=lsp.ClientCapabilities(), initialization_options={"debounce": 0}
            )
        )
        yield lsp_client
        await lsp_client.shutdown_session()

    return client


def open_doc(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(
                uri=uri, language_id="yaml", version=1, text=path.read_text() if text is None else text
            )
        )
    )
    return uri


async def diagnostics_for(client: LanguageClient, uri: str, timeout: float = 10.0) -> list[lsp.Diagnostic]:
    """The next diagnostics published for ``uri`` (pop ``client.diagnostics[uri]`` before an edit)."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while uri not in client.diagnostics:
        if loop.time() > deadline:
            raise TimeoutError(f"no diagnostics for {uri}")
        await asyncio.sleep(0.01)
    return list(client.diagnostics[uri])
