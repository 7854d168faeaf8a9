"""Semantic tokens (full, delta and range) for jq programs and templates, from
:mod:`lait_core.language.semantic_tokens`. Tokens are computed off the request loop (a huge
workflow's parse never delays a hover), and the last result per document is kept for deltas."""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.language.semantic_tokens import (
    TOKEN_MODIFIERS,
    TOKEN_TYPES,
    Token,
    delta,
    document_tokens,
    encode,
)
from lait_core.source.positions import LineIndex
from lait_ls.convert import from_lsp_range
from lait_ls.features.definition import document_of

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

LEGEND = lsp.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))
_IDS = itertools.count(1)


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


async def tokens_of(ls: LaitServer, uri: str) -> _Result | None:
    """This document's tokens (reused while its text is unchanged)."""
    doc = document_of(ls, uri)
    if doc is None:
        return None
    results = _results(ls)
    known = results.get(uri)
    if known is not None and known.text == doc.text:
        return known

    def compute() -> tuple[list[Token], list[int]]:
        tokens = document_tokens(doc.kind, doc.text, str(doc.path))
        return tokens, encode(tokens, LineIndex(doc.text))

    tokens, data = await asyncio.to_thread(compute)
    result = _Result(doc.text, tokens, data, str(next(_IDS)))
    if uri in ls.open_uris:
        results[uri] = result
    for gone in [u for u in results if u not in ls.open_uris]:
        del results[gone]
    return result


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
            before = _results(ls).get(uri)
            result = await tokens_of(ls, uri)
            if result is None:
                return None
            if before is None or before.result_id != params.previous_result_id:
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
