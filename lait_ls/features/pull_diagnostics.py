"""Pull diagnostics: ``textDocument/diagnostic`` for any lait file (open or not) and
``workspace/diagnostic`` for every lait file under the workspace folders -- the same findings as
``lait lint <folder>`` (the same :meth:`~lait_core.lint.engine.Linter.lint_paths`, reading open
buffers instead of the disk).

Decision: pull mode is opt-in (initialization option ``{"diagnostics": "pull"}``). With it the
server announces ``diagnosticProvider`` (inter-file dependencies, workspace diagnostics) and stops
publishing; any change of a lait file (an edit, or a watched file created, changed or deleted) asks
the client to pull again (``workspace/diagnostic/refresh``), so dependants are re-checked whether
or not they are open. Without the option nothing changes: diagnostics are pushed for open documents
(a client that pulls and also receives pushes would show every problem twice). A workspace pull
repeated while nothing changed is answered without a re-lint (:mod:`lait_ls.features.workspace_pulls`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.documents.config_file import ConfigMode
from lait_core.lint.engine import FileReport, Linter, LintOptions
from lait_core.lint.incremental import IncrementalLinter, Stamp, disk_stamp
from lait_core.support.cancel import CancelToken, cancellable
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.positions import LineIndex
from lait_ls.features.diagnostics import compute, to_lsp
from lait_ls.roots import workspace_roots

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

IDENTIFIER = "lait"
YIELD_SECONDS = 0.01
"""The conversion of a workspace lint's reports lets the request loop run other work this often.
Yielding after each file (measured: 600 files, 55 ms of conversion) took 330 ms under load, each
yield a wait for the GIL while the lint thread or another process ran (docs/performance.md)."""


def result_id(items: list[lsp.Diagnostic]) -> str:
    return hashlib.sha1(repr(items).encode("utf-8", errors="surrogatepass")).hexdigest()[:16]


def _items(ls: LaitServer, path: str, diags: list[Diagnostic], uri: str) -> list[lsp.Diagnostic]:
    if not diags:
        return []  # a clean file is not read again for its line index
    loaded = ls.overlay.read(Path(path))
    index = LineIndex(loaded.text or "")
    return [to_lsp(d, index, {diags[0].path: uri}) for d in diags]


async def document_items(ls: LaitServer, uri: str) -> list[lsp.Diagnostic]:
    """The diagnostics of one file: an open document's buffer, else the file on disk."""
    if uri in ls.open_uris:
        return await compute(ls, uri) or []
    path = ls.path_of(uri)
    if path is None or not path.is_file():
        return []
    token = CancelToken()

    def run() -> list[Diagnostic]:
        linter = Linter(LintOptions(ConfigMode.SEARCH), reader=ls.overlay.read)
        with cancellable(token):
            if not linter.is_lait_file(path):  # other YAML and Markdown get nothing, as when open
                return []
            result = linter.lint_paths([str(path)])
        own = os.path.abspath(path)
        return [d for r in result.reports if os.path.abspath(r.path) == own for d in r.diagnostics]

    try:
        diags = await asyncio.to_thread(run)
    except asyncio.CancelledError:
        token.cancel()
        raise
    return _items(ls, str(path), diags, uri)


def _version(ls: LaitServer, uri: str) -> int | None:
    if uri not in ls.open_uris:
        return None
    try:
        return ls.workspace.get_text_document(uri).version
    except Exception:
        return None


class _PullState:
    """What the last workspace pull found, per file: the incremental linter (each file's report and
    the stamps of what its lint looked at) and the LSP items made from each report."""

    def __init__(self, ls: LaitServer) -> None:
        texts = ls.overlay.texts

        def stamp(path: str) -> Stamp:
            text = texts.get(os.path.abspath(path))
            return ("open", text) if text is not None else disk_stamp(path)

        self.linter = IncrementalLinter(LintOptions(ConfigMode.SEARCH), reader=ls.overlay.read, stamp=stamp)
        self.items: dict[str, tuple[FileReport, str, list[lsp.Diagnostic], str]] = {}
        """Absolute path -> (the report, its uri, its LSP diagnostics, their result id)."""


_STATE_ATTRIBUTE = "_lait_pull_state"


def pull_state(ls: LaitServer) -> _PullState:
    state = getattr(ls, _STATE_ATTRIBUTE, None)
    if not isinstance(state, _PullState):
        state = _PullState(ls)
        setattr(ls, _STATE_ATTRIBUTE, state)
    return state


async def workspace_reports(
    ls: LaitServer, previous: dict[str, str]
) -> list[lsp.WorkspaceFullDocumentDiagnosticReport | lsp.WorkspaceUnchangedDocumentDiagnosticReport]:
    """One report per lait file under the workspace folders: ``unchanged`` when the client's previous
    result id still holds, else ``full``. Only files whose lint inputs changed since the last pull are
    linted again (:class:`~lait_core.lint.incremental.IncrementalLinter`); a pull repeated with no
    change reported since is answered at once (:mod:`lait_ls.features.workspace_pulls`)."""
    from lait_ls.features import workspace_pulls

    answered = workspace_pulls.unchanged(ls, previous, lambda uri: _version(ls, uri))
    if answered is not None:
        return answered
    started, began = workspace_pulls.generation(ls), time.monotonic()
    roots = workspace_roots(ls)
    if not roots:
        return []
    state = pull_state(ls)
    token = CancelToken()

    def run() -> list[FileReport]:
        with cancellable(token):
            return state.linter.lint_paths(roots).result.reports

    try:
        reports = await asyncio.to_thread(run)
    except asyncio.CancelledError:
        token.cancel()
        raise
    from lait_ls.features.definition import uri_of

    out: list[lsp.WorkspaceFullDocumentDiagnosticReport | lsp.WorkspaceUnchangedDocumentDiagnosticReport] = []
    kept: dict[str, tuple[FileReport, str, list[lsp.Diagnostic], str]] = {}
    slice_end = time.monotonic() + YIELD_SECONDS
    for report in reports:
        path = os.path.abspath(report.path)
        uri = uri_of(ls, path)
        cached = state.items.get(path)
        if cached is not None and cached[0] is report and cached[1] == uri:
            items, rid = cached[2], cached[3]
        else:
            items = _items(ls, path, report.diagnostics, uri)
            rid = result_id(items)
            if time.monotonic() >= slice_end:
                await asyncio.sleep(0)  # other requests in between, yet not after every file
                slice_end = time.monotonic() + YIELD_SECONDS
        kept[path] = (report, uri, items, rid)
        version = _version(ls, uri)
        if previous.get(uri) == rid:
            out.append(
                lsp.WorkspaceUnchangedDocumentDiagnosticReport(uri=uri, result_id=rid, version=version)
            )
        else:
            out.append(
                lsp.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, items=items, result_id=rid, version=version
                )
            )
    state.items = kept
    workspace_pulls.remember(ls, started, began, out)
    return out


def enable(server: LaitServer) -> None:
    """Pull mode: register the two requests (called from ``initialize``, before the capabilities
    are computed) and stop pushing."""
    server.pull_diagnostics = True

    @server.feature(
        lsp.TEXT_DOCUMENT_DIAGNOSTIC,
        lsp.DiagnosticOptions(
            identifier=IDENTIFIER, inter_file_dependencies=True, workspace_diagnostics=True
        ),
    )
    async def document_diagnostic(
        ls: LaitServer, params: lsp.DocumentDiagnosticParams
    ) -> lsp.RelatedFullDocumentDiagnosticReport | lsp.RelatedUnchangedDocumentDiagnosticReport:
        uri = params.text_document.uri
        try:
            items = await document_items(ls, uri)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("textDocument/diagnostic failed for %s", uri)
            items = []
        rid = result_id(items)
        if params.previous_result_id == rid:
            return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
        return lsp.RelatedFullDocumentDiagnosticReport(items=items, result_id=rid)

    @server.feature(lsp.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(
        ls: LaitServer, params: lsp.WorkspaceDiagnosticParams
    ) -> lsp.WorkspaceDiagnosticReport:
        previous = {p.uri: p.value for p in params.previous_result_ids}
        try:
            return lsp.WorkspaceDiagnosticReport(items=await workspace_reports(ls, previous))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("workspace/diagnostic failed")
            return lsp.WorkspaceDiagnosticReport(items=[])
