"""Document symbols: the outline of steps and sections (from lait_core.language.outline)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.language import OutlineKind, OutlineSymbol, document_symbols
from lait_core.syntax.positions import LineIndex
from lait_ls.convert import to_lsp_range
from lait_ls.features.definition import document_of

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

KINDS: dict[OutlineKind, lsp.SymbolKind] = {
    OutlineKind.SECTION: lsp.SymbolKind.Namespace,
    OutlineKind.STEP: lsp.SymbolKind.Function,
    OutlineKind.BRANCH: lsp.SymbolKind.Array,
    OutlineKind.INPUT: lsp.SymbolKind.Variable,
    OutlineKind.SCHEMA: lsp.SymbolKind.Struct,
    OutlineKind.AGENT: lsp.SymbolKind.Class,
    OutlineKind.MODEL: lsp.SymbolKind.Constant,
    OutlineKind.MCP: lsp.SymbolKind.Interface,
    OutlineKind.TOOL: lsp.SymbolKind.Method,
    OutlineKind.SKILL: lsp.SymbolKind.Module,
    OutlineKind.WORKFLOW: lsp.SymbolKind.File,
    OutlineKind.PROMPT: lsp.SymbolKind.String,
    OutlineKind.KEY: lsp.SymbolKind.Property,
    OutlineKind.BODY: lsp.SymbolKind.String,
}


def to_lsp(symbol: OutlineSymbol, index: LineIndex) -> lsp.DocumentSymbol:
    return lsp.DocumentSymbol(
        name=symbol.name or "?",
        kind=KINDS.get(symbol.kind, lsp.SymbolKind.Property),
        range=to_lsp_range(index, symbol.range),
        selection_range=to_lsp_range(index, symbol.selection),
        detail=symbol.detail or None,
        children=[to_lsp(c, index) for c in symbol.children] or None,
    )


def register(server: LaitServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(ls: LaitServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol] | None:
        try:
            doc = document_of(ls, params.text_document.uri)
            if doc is None:
                return None
            index = LineIndex(doc.text)
            return [to_lsp(s, index) for s in document_symbols(doc.kind, doc.text, str(doc.path))]
        except Exception:
            log.exception("documentSymbol failed for %s", params.text_document.uri)
            return None
