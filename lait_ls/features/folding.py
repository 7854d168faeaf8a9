"""Folding ranges for mappings, lists and block scalars (from lait_core.language.outline)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.language import folding_ranges
from lait_ls.features.definition import document_of

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")


def register(server: LaitServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_FOLDING_RANGE)
    def folding(ls: LaitServer, params: lsp.FoldingRangeParams) -> list[lsp.FoldingRange] | None:
        try:
            doc = document_of(ls, params.text_document.uri)
            if doc is None:
                return None
            return [
                lsp.FoldingRange(
                    start_line=f.start_line, end_line=f.end_line, kind=lsp.FoldingRangeKind.Region
                )
                for f in folding_ranges(doc.kind, doc.text)
            ]
        except Exception:
            log.exception("foldingRange failed for %s", params.text_document.uri)
            return None
