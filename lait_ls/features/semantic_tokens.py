"""Semantic tokens (full, delta and range) for jq programs and templates, from
:mod:`lait_core.language.semantic_tokens`. Tokens are computed off the request loop (a huge
workflow's parse never delays a hover), and the last result per document is kept for deltas.

A document whose tokens were asked for once gets them computed again right after each publish of
its diagnostics (:func:`prepare`, part of the warm-up in :mod:`lait_ls.features.diagnostics`):
editors ask for tokens after every edit, and the answer is then ready. A request that arrives while
that computation runs waits for it instead of starting a second one."""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.language.kept_results import KeptResults, carry_tokens
from lait_core.language.semantic_tokens import (
    TOKEN_MODIFIERS,
    TOKEN_TYPES,
    Token,
    delta,
    document_tokens,
    encode,
)
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import LineIndex
from lait_ls.convert import from_lsp_range
from lait_ls.features.definition import document_of

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

LEGEND = lsp.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))
_IDS = itertools.count(1)
KEPT: KeptResults[list[Token]] = KeptResults(carry_tokens)


@dataclass(slots=True)
class _Result:
    text: str
    tokens: list[Token]
    data: list[int]
    result_id: str


_RESULTS_ATTRIBUTE = "_lait_semantic_tokens"


def _results(ls: LaitServer) -> dict[str, _Result]:
    results = getattr(ls, _RESULTS_ATTRIBUTE, None)
    if not isinstance(results, dict):
        results = {}
        setattr(ls, _RESULTS_ATTRIBUTE, results)
    return results


_PENDING_ATTRIBUTE = "_lait_semantic_tokens_pending"


def _pending(ls: LaitServer) -> dict[str, tuple[str, asyncio.Future[_Result]]]:
    pending = getattr(ls, _PENDING_ATTRIBUTE, None)
    if not isinstance(pending, dict):
        pending = {}
        setattr(ls, _PENDING_ATTRIBUTE, pending)
    return pending


async def tokens_of(ls: LaitServer, uri: str) -> _Result | None:
    """This document's tokens (reused while its text is unchanged; shared with a computation of the
    same text in progress)."""
    doc = document_of(ls, uri)
    if doc is None:
        return None
    results = _results(ls)
    known = results.get(uri)
    if known is not None and known.text == doc.text:
        return known
    pending = _pending(ls)
    running = pending.get(uri)
    if running is None or running[0] != doc.text:
        future = asyncio.ensure_future(_compute(ls, uri, doc.kind, doc.text, str(doc.path)))
        running = (doc.text, future)
        pending[uri] = running

        def done(_f: asyncio.Future[_Result], uri: str = uri, running: tuple[str, object] = running) -> None:
            if pending.get(uri) is running:
                del pending[uri]

        future.add_done_callback(done)
    return await asyncio.shield(running[1])


async def _compute(ls: LaitServer, uri: str, kind: FileKind, text: str, path: str) -> _Result:
    def compute() -> tuple[list[Token], list[int]]:
        # an incomplete edit keeps the tokens of the last text that parsed (lait_core.language.kept_results)
        KEPT.forget(lambda key: key in ls.open_uris)
        tokens = KEPT.result(uri, kind, text, lambda: document_tokens(kind, text, path), path)
        return tokens, encode(tokens, LineIndex(text))

    tokens, data = await asyncio.to_thread(compute)
    result = _Result(text, tokens, data, str(next(_IDS)))
    log.info("semantic tokens of %s computed (result %s)", path, result.result_id)
    results, earlier = _results(ls), _earlier(ls)
    if uri in ls.open_uris:
        before = results.get(uri)
        if before is not None:
            earlier[uri] = [before, *earlier.get(uri, [])][:KEPT_FOR_DELTAS]
        results[uri] = result
    for gone in [u for u in results if u not in ls.open_uris]:
        del results[gone]
        earlier.pop(gone, None)
    return result


KEPT_FOR_DELTAS = 3
"""Earlier results kept per document: a delta request names the result its client has, which may be
older than the last one computed (tokens are also computed ahead of requests, see :func:`prepare`)."""
_EARLIER_ATTRIBUTE = "_lait_semantic_tokens_earlier"


def _earlier(ls: LaitServer) -> dict[str, list[_Result]]:
    earlier = getattr(ls, _EARLIER_ATTRIBUTE, None)
    if not isinstance(earlier, dict):
        earlier = {}
        setattr(ls, _EARLIER_ATTRIBUTE, earlier)
    return earlier


def _known(ls: LaitServer, uri: str, result_id: str) -> _Result | None:
    for result in [_results(ls).get(uri), *_earlier(ls).get(uri, [])]:
        if result is not None and result.result_id == result_id:
            return result
    return None


async def prepare(ls: LaitServer, uri: str) -> None:
    """Compute the tokens of the current text if the client asked for this document's tokens before."""
    if uri in _results(ls):
        await tokens_of(ls, uri)


def register(server: LaitServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    async def full(ls: LaitServer, params: lsp.SemanticTokensParams) -> lsp.SemanticTokens | None:
        try:
            result = await tokens_of(ls, params.text_document.uri)
            return (
                None if result is None else lsp.SemanticTokens(data=result.data, result_id=result.result_id)
            )
        except Exception:
            log.exception("semanticTokens/full failed for %s", params.text_document.uri)
            return None

    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA)
    async def full_delta(
        ls: LaitServer, params: lsp.SemanticTokensDeltaParams
    ) -> lsp.SemanticTokens | lsp.SemanticTokensDelta | None:
        try:
            uri = params.text_document.uri
            before = _known(ls, uri, params.previous_result_id)
            result = await tokens_of(ls, uri)
            if result is None:
                return None
            if before is None:
                return lsp.SemanticTokens(data=result.data, result_id=result.result_id)
            edits = [
                lsp.SemanticTokensEdit(start=s, delete_count=n, data=d)
                for s, n, d in delta(before.data, result.data)
            ]
            return lsp.SemanticTokensDelta(edits=edits, result_id=result.result_id)
        except Exception:
            log.exception("semanticTokens/full/delta failed for %s", params.text_document.uri)
            return None

    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE)
    async def in_range(ls: LaitServer, params: lsp.SemanticTokensRangeParams) -> lsp.SemanticTokens | None:
        try:
            result = await tokens_of(ls, params.text_document.uri)
            if result is None:
                return None
            index = LineIndex(result.text)
            rng = from_lsp_range(index, params.range)
            inside = [t for t in result.tokens if rng.start.line <= t.line <= rng.end.line]
            return lsp.SemanticTokens(data=encode(inside, index))
        except Exception:
            log.exception("semanticTokens/range failed for %s", params.text_document.uri)
            return None
