"""An edit of lait.config.yml re-publishes the open documents whose findings depend on what changed
(the names they use) and not the others; what is published then equals a full lint."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from lait_core.documents.config_file import ConfigMode
from lait_core.lint.engine import Linter, LintOptions
from tests.lsp.conftest import diagnostics_for, open_doc

CONFIG = """\
models:
  fast: [{model_id: m, provider: {base_url: "http://127.0.0.1:1/v1"}}]
mcp_servers:
  github: {command: gh}
  files: {command: fs}
"""
FILES = {
    "uses_github.yml": "steps:\n  - prompt: hi\n    mcp: [github]\n",
    "uses_files.yml": "steps:\n  - prompt: hi\n    mcp: [files]\n",
    "calls_child.yml": "steps:\n  - workflow: child.yml\n",
    "child.yml": "steps:\n  - prompt: hi\n    mcp: [github]\n",
    "plain.yml": "steps:\n  - jq: .\n",
    "sentinel.yml": "# edited to mark a point in the server's queue\nsteps:\n  - jq: .\n",
}


class PublishLog(dict[str, Any]):
    """``client.diagnostics`` that also records the order of the publishes."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.order: list[str] = []

    def __setitem__(self, uri: str, value: Any) -> None:
        self.order.append(uri)
        super().__setitem__(uri, value)


async def published(log: PublishLog, uri: str, after: int, timeout: float = 30.0) -> int:
    """The index in ``log.order`` of the first publish of ``uri`` after index ``after``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        for i in range(after, len(log.order)):
            if log.order[i] == uri:
                return i
        assert loop.time() < deadline, f"no publish of {uri}: {log.order[after:]}"
        await asyncio.sleep(0.01)


def full_lint(root: Path) -> dict[str, set[tuple[str, int]]]:
    linter = Linter(LintOptions(ConfigMode.SEARCH, environ={"XDG_CONFIG_HOME": "/nonexistent-lait-test"}))
    out: dict[str, set[tuple[str, int]]] = {}
    for report in linter.lint_paths([str(root)]).reports:
        out[Path(os.path.abspath(report.path)).as_uri()] = {
            (d.code, d.range.start.line) for d in report.diagnostics
        }
    return out


def shown(client: LanguageClient, uri: str) -> set[tuple[str, int]]:
    return {(str(d.code), d.range.start.line) for d in client.diagnostics[uri]}


async def test_a_config_edit_republishes_only_its_dependants(client: LanguageClient, tmp_path: Path) -> None:
    config = tmp_path / "lait.config.yml"
    config.write_text(CONFIG, encoding="utf-8")
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    uris = {name: open_doc(client, tmp_path / name) for name in FILES}
    config_uri = open_doc(client, config)
    for uri in [*uris.values(), config_uri]:
        await diagnostics_for(client, uri)
    log = PublishLog(client.diagnostics)
    client.diagnostics = log
    version = iter(range(2, 100))

    async def edit_config(text: str) -> int:
        config.write_text(text, encoding="utf-8")  # what the full lint compares with
        start = len(log.order)
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=config_uri, version=next(version)),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return start

    async def queue_mark(start: int) -> tuple[list[str], int]:
        """The documents published since ``start``, up to an edit of sentinel.yml sent now (the
        server lints in order: everything the config edit scheduled is published before it)."""
        sentinel = tmp_path / "sentinel.yml"
        text = sentinel.read_text() + "# one more\n"
        sentinel.write_text(text, encoding="utf-8")
        mark = len(log.order)
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(
                    uri=uris["sentinel.yml"], version=next(version)
                ),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        end = await published(log, uris["sentinel.yml"], mark)
        return log.order[start:end], end

    # a server renamed: the documents that name it (directly or through their child) and the config
    start = await edit_config(CONFIG.replace("github:", "gh:"))
    for name in ("uses_github.yml", "child.yml", "calls_child.yml"):
        await published(log, uris[name], start)
    order, end = await queue_mark(start)
    republished = set(order)
    assert {uris["uses_github.yml"], uris["child.yml"], uris["calls_child.yml"]} <= republished
    assert not republished & {uris["uses_files.yml"], uris["plain.yml"]}
    expected = full_lint(tmp_path)
    assert shown(client, uris["uses_github.yml"]) == expected[uris["uses_github.yml"]] != set()
    for name in FILES:
        assert shown(client, uris[name]) == expected[uris[name]], name

    # the sentinel's edit re-checks every other document (it is a workflow): let that settle first
    for name in FILES:
        if name != "sentinel.yml":
            await published(log, uris[name], end + 1)

    # what every document may use (the default model): every one of them
    start = await edit_config(CONFIG + "default:\n  model: fast\n")
    for name in FILES:
        if name != "sentinel.yml":
            await published(log, uris[name], start)
    expected = full_lint(tmp_path)
    for name in FILES:
        assert shown(client, uris[name]) == expected[uris[name]], name
