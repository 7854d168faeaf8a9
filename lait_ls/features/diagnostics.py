"""Live diagnostics: the same findings as `lait lint`, debounced, linted off the request loop (on
the :class:`~lait_ls.lint_worker.LintWorker` thread), with stale runs cancelled -- also a lint
already in progress, so one slow document never delays another, a hover or the shutdown.

Editing lait.config.yml re-checks the open lait documents whose findings may depend on what changed
(:mod:`lait_core.lint.config_changes`: those that, or whose child workflows, agents..., mention a
name whose definition changed; all of them after a change of ``default:``, ``lint:``...); saving or
changing an agent or a child workflow re-checks the other open documents (they may reference it). Other documents see an
open one's unsaved text only while it parses: an incomplete edit leaves them with its last good (or
saved) text (:func:`lait_core.language.kept_results.shown_to_others`).

After each publish the document is prepared for the requests that usually follow (:func:`warm`):
off the request loop, cancelled by the next edit, never in the way of a request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.lint.discovery import FileKind
from lait_core.support.cancel import checkpoint
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.positions import LineIndex
from lait_ls.convert import severity, to_lsp_range
from lait_ls.documents import agent_references

if TYPE_CHECKING:
    from lait_core.documents.config_file import LoadedConfig
    from lait_core.language.index import FileIndex
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")
_RULE_DOCS: dict[str, str] = {}


def rule_doc_uri(code: str) -> str | None:
    """A file URI of the rule's Markdown doc (written once to the user's cache directory)."""
    if not _RULE_DOCS:
        from lait_core.rules.registry import all_rules

        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lait" / "rules"
        try:
            base.mkdir(parents=True, exist_ok=True)
        except OSError:
            base = Path(tempfile.gettempdir()) / "lait-rules"
            base.mkdir(parents=True, exist_ok=True)
        for rule in all_rules():
            target = base / f"{rule.code}.md"
            try:
                target.write_text(rule.render(), encoding="utf-8")
            except (OSError, UnicodeError):
                continue
            _RULE_DOCS[rule.code] = target.as_uri()
    return _RULE_DOCS.get(code)


def to_lsp(diag: Diagnostic, index: LineIndex, uri_of: dict[str, str]) -> lsp.Diagnostic:
    href = rule_doc_uri(diag.code)
    related = []
    for rel in diag.related:
        rel_uri = uri_of.get(rel.path) or Path(os.path.abspath(rel.path)).as_uri()
        rel_index = index if rel.path == diag.path else None
        rng = (
            to_lsp_range(rel_index, rel.range)
            if rel_index
            else lsp.Range(
                start=lsp.Position(line=rel.range.start.line, character=rel.range.start.character),
                end=lsp.Position(line=rel.range.end.line, character=rel.range.end.character),
            )
        )
        related.append(
            lsp.DiagnosticRelatedInformation(
                location=lsp.Location(uri=rel_uri, range=rng), message=rel.message
            )
        )
    return lsp.Diagnostic(
        range=to_lsp_range(index, diag.range),
        message=diag.message,
        severity=severity(diag.severity),
        code=diag.code,
        code_description=lsp.CodeDescription(href=href) if href else None,
        source="lait",
        related_information=related or None,
        data={
            "fixes": [
                {"title": f.title, "text": f.text, "range": list(map(list, f.range))} for f in diag.fixes
            ]
        }
        if diag.fixes
        else None,
    )


async def compute(ls: LaitServer, uri: str) -> list[lsp.Diagnostic] | None:
    """Diagnostics for an open document ([] when it is not a lait file; None when the lint went
    stale). The lint, the conversion to LSP and (for a workflow) the agent files it uses are done
    on the worker thread; cancelling the caller cancels it."""
    kind = ls.kind_of(uri)
    path = ls.path_of(uri)
    if kind is None or path is None:
        return []
    text = ls.text_of(uri)

    def convert(diags: list[Diagnostic]) -> tuple[list[lsp.Diagnostic], set[str] | None]:
        refs = agent_references(path, text) if kind is FileKind.WORKFLOW else None
        index = LineIndex(text)
        display = diags[0].path if diags else str(path)
        return [to_lsp(d, index, {display: uri}) for d in diags], refs

    done = await ls.lint_worker.lint(text, path, kind, convert)
    if done is None:
        return None
    result, refs = done
    if refs is not None:
        ls.agent_refs[uri] = refs
    return result


async def publish(ls: LaitServer, uri: str, started: float | None = None) -> bool:
    """Lint and publish; whether the diagnostics were of the current text. A lint that went stale
    is dropped, unless it is one an edit kept (:data:`MAX_UNPUBLISHED`): it publishes for its text,
    without a version (a client may drop an older version's diagnostics). ``started``: when the
    lint began (monotonic); what was typed since waits from then, so while typing continues the
    next lint starts at once."""
    doc = ls.workspace.get_text_document(uri)
    version = doc.version
    try:
        result = await compute(ls, uri)
    except asyncio.CancelledError:
        raise
    except Exception:  # the server keeps answering whatever the text is
        log.exception("linting %s failed", uri)
        return False
    if result is None or uri not in ls.open_uris:
        return False
    current = ls.workspace.get_text_document(uri).version == version
    if not current and ls.kept_lints.get(uri) is not asyncio.current_task():
        return False  # stale: the next edit's lint publishes
    ls.had_findings[uri] = bool(result)
    if current:
        ls.unpublished_since.pop(uri, None)
    else:  # what was typed since the lint began waits from then
        ls.unpublished_since[uri] = time.monotonic() if started is None else started
    ls.text_document_publish_diagnostics(
        lsp.PublishDiagnosticsParams(uri=uri, diagnostics=result, version=version if current else None)
    )
    return current


WARM_LIMIT_LINES = 5000
"""Documents up to this size get their navigation index (and semantic tokens, see :func:`warm`) built
right after their diagnostics, so the first hover, go-to-definition or tokens request after an edit
is answered from the cache."""

WARM_GATE_ENV = "LAIT_LS_TEST_WARM_GATE"
"""Tests only: a file path; each warm-up waits (on the lint thread, at most a minute) until that file
exists, which shows that requests are answered while a warm-up is in progress."""


def _wait_for_gate(gate: str) -> None:
    deadline = time.monotonic() + 60.0
    while not os.path.exists(gate) and time.monotonic() < deadline:
        checkpoint()
        time.sleep(0.01)


async def warm(ls: LaitServer, uri: str) -> None:
    """Prepare for the requests that follow an edit: the document's semantic tokens, its navigation
    index and its completion (tokens and completion when the client asked for them in this document
    before); all off the request loop (which only checks and stores the results), so a request sent
    right after an edit never waits for the warm-up.
    A newer edit cancels it (it is part of the document's scheduled task)."""
    from lait_core.language.index import build_index
    from lait_ls import inflight
    from lait_ls.features import completion, semantic_tokens
    from lait_ls.features.definition import document_of, project_of

    try:
        doc = document_of(ls, uri)
        if doc is None or doc.text.count("\n") > WARM_LIMIT_LINES:
            return
        project = project_of(ls)
        config = project.pending(doc)
        # a hover (a completion) waits for the index (the completion) from here, not only while it is
        # built: the steps before it are short
        with contextlib.ExitStack() as stack:
            if completion.wanted(ls, uri):
                stack.enter_context(inflight.preparing(ls, "completion", uri, doc.text))
            with inflight.preparing(ls, "index", uri, doc.text):
                await semantic_tokens.prepare(ls, uri)
                if config is not None:
                    gate = os.environ.get(WARM_GATE_ENV)

                    def work() -> FileIndex:
                        if gate:
                            _wait_for_gate(gate)
                        return build_index(str(doc.path), doc.text, doc.kind, config)

                    index = await ls.lint_worker.run(work, f"warm-up of {doc.path}")
                    now = document_of(ls, uri)
                    if (
                        index is not None
                        and now is not None
                        and now.text == doc.text
                        and now.kind is doc.kind
                    ):
                        project.install(index)
            await completion.prepare_ahead(ls, uri)  # last: completion usually comes with the next edit
    except asyncio.CancelledError:
        raise
    except Exception:  # only a cache warm-up: never let it disturb the server
        log.debug("warming the index of %s failed", uri, exc_info=True)


MAX_UNPUBLISHED = 0.25
"""Seconds a document may go with changes and no diagnostics before an edit stops cancelling its
lint in progress (and skips the debounce): typed into continuously, a long file gets diagnostics
after every lint (the next one starts with the next edit), for the text they were computed on."""


def schedule(ls: LaitServer, uri: str, delay: float | None = None) -> None:
    if ls.pull_diagnostics:  # the client pulls: ask it to pull again instead
        from lait_ls.features.workspace_pulls import request_refresh

        request_refresh(ls)
        return
    wait = ls.debounce if delay is None else delay
    now = time.monotonic()
    since = ls.unpublished_since.setdefault(uri, now)
    starving = now - since >= MAX_UNPUBLISHED and uri not in ls.kept_lints  # one kept lint at a time
    task = ls.pending.pop(uri, None)
    if task is not None:
        if starving and ls.linting.get(uri) is task:
            ls.kept_lints[uri] = task  # it publishes for the text it has; this edit's lint follows it
        else:
            task.cancel()
    if starving:
        wait = 0.0  # no more debounce: the document has waited long enough

    async def later() -> None:
        # the task is looked up, never closed over: a cancelled task keeps its traceback, which keeps
        # this frame, and a reference from here to the task made a cycle that kept the text the lint
        # had until a full collection, which the frozen heap puts off (lait_core.support.gcpause)
        try:
            if wait > 0:
                await asyncio.sleep(wait)
            if uri in ls.open_uris:
                ls.linting[uri] = _this_task()
                try:
                    fresh = await publish(ls, uri, time.monotonic())
                finally:
                    if ls.linting.get(uri) is asyncio.current_task():
                        del ls.linting[uri]
                if fresh:
                    await asyncio.sleep(0)  # let waiting requests go first, then prepare for the next ones
                    await warm(ls, uri)
        finally:
            if ls.kept_lints.get(uri) is asyncio.current_task():
                del ls.kept_lints[uri]
            if ls.pending.get(uri) is asyncio.current_task():
                ls.pending.pop(uri, None)

    ls.pending[uri] = asyncio.get_running_loop().create_task(later())


def _this_task() -> asyncio.Task[None]:
    task = asyncio.current_task()
    assert task is not None  # called from a task
    return task  # type: ignore[return-value]


def _changed(ls: LaitServer, uri: str, *, saved: bool = False) -> None:
    path = ls.path_of(uri)
    if path is None:
        return
    kind = ls.kind_of(uri)
    before = ls.linter.loaded_configs() if kind is FileKind.CONFIG else None
    # other files see an incomplete edit's last good (or saved) text, never the broken one
    ls.overlay.set(path, ls.text_of(uri), kind=kind, saved=saved)
    ls.invalidate(path)
    schedule(ls, uri)
    if kind is not None:
        others = ls.open_uris - {uri}
        for other in others if before is None else _config_dependants(ls, before, others):
            schedule(ls, other)


def _config_dependants(ls: LaitServer, before: dict[str, LoadedConfig], uris: set[str]) -> set[str]:
    """The open documents whose findings may differ after a config edit (``before``: the configs
    loaded until then)."""
    from lait_core.lint.config_changes import changes_since, may_depend

    try:
        changes = changes_since(before, ls.linter.config_for)
    except Exception:  # whatever the config says, the documents are checked again
        log.debug("comparing the configs failed", exc_info=True)
        changes = None
    if changes is None:
        return uris
    out: set[str] = set()
    for uri in uris:
        path = ls.path_of(uri)
        read = ls.lint_worker.read_by.get(os.path.abspath(path)) if path is not None else None
        if path is None or read is None:  # never linted: nothing known about it
            out.add(uri)
            continue
        texts = [ls.overlay.read(Path(p)).text for p in read]
        if any(may_depend(c, str(path), texts, ls.had_findings.get(uri, True)) for c in changes):
            out.add(uri)
    return out


def register(server: LaitServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LaitServer, params: lsp.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.open_uris.add(uri)
        path = ls.path_of(uri)
        if path is not None:
            ls.overlay.set(path, params.text_document.text)
            ls.invalidate(path)
        schedule(ls, uri, delay=0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LaitServer, params: lsp.DidChangeTextDocumentParams) -> None:
        _changed(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LaitServer, params: lsp.DidSaveTextDocumentParams) -> None:
        _changed(ls, params.text_document.uri, saved=True)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LaitServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.open_uris.discard(uri)
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        path = ls.path_of(uri)
        ls.agent_refs.pop(uri, None)
        ls.had_findings.pop(uri, None)
        ls.unpublished_since.pop(uri, None)
        if path is not None:
            ls.overlay.drop(path)
            ls.invalidate(path)
        if ls.pull_diagnostics:
            from lait_ls.features.workspace_pulls import request_refresh

            request_refresh(ls)  # the file on disk stands for it again: the client pulls its dependants too
        else:
            ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


__all__ = ["FileKind", "compute", "register", "schedule"]
