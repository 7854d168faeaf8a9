"""Workspace symbols and selection ranges (from lait_core.language.navigation)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.language.index import Namespace
from lait_core.language.navigation import selection_ranges, workspace_symbols
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import LineIndex, Range
from lait_ls.convert import from_lsp_position, to_lsp_range
from lait_ls.features.definition import document_of, project_of, uri_of
from lait_ls.roots import workspace_roots

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

KINDS: dict[Namespace | FileKind, lsp.SymbolKind] = {
    Namespace.STEP: lsp.SymbolKind.Function,
    Namespace.INPUT: lsp.SymbolKind.Variable,
    Namespace.SCHEMA: lsp.SymbolKind.Struct,
    Namespace.INLINE_AGENT: lsp.SymbolKind.Class,
    Namespace.MODEL: lsp.SymbolKind.Constant,
    Namespace.MCP: lsp.SymbolKind.Interface,
    Namespace.TOOL: lsp.SymbolKind.Method,
    Namespace.AGENT: lsp.SymbolKind.Class,
    Namespace.SKILL: lsp.SymbolKind.Module,
    Namespace.WORKFLOW: lsp.SymbolKind.File,
    FileKind.WORKFLOW: lsp.SymbolKind.File,
    FileKind.AGENT: lsp.SymbolKind.File,
}


def _nest(ranges: list[Range], index: LineIndex) -> lsp.SelectionRange:
    parent: lsp.SelectionRange | None = None
    for rng in reversed(ranges):
        parent = lsp.SelectionRange(range=to_lsp_range(index, rng), parent=parent)
    assert parent is not None
    return parent


def register(server: LaitServer) -> None:
    @server.feature(lsp.WORKSPACE_SYMBOL)
    async def symbols(ls: LaitServer, params: lsp.WorkspaceSymbolParams) -> list[lsp.WorkspaceSymbol] | None:
        try:
            found = await asyncio.to_thread(
                workspace_symbols, project_of(ls), workspace_roots(ls, with_open_folders=True), params.query
            )
            return [
                lsp.WorkspaceSymbol(
                    name=s.name,
                    kind=KINDS.get(s.kind, lsp.SymbolKind.Property),
                    location=lsp.Location(uri=uri_of(ls, s.path), range=to_lsp_range(s.index, s.range)),
                    container_name=s.container,
                )
                for s in found
            ]
        except Exception:
            log.exception("workspace/symbol failed")
            return None

    @server.feature(lsp.TEXT_DOCUMENT_SELECTION_RANGE)
    def selection(ls: LaitServer, params: lsp.SelectionRangeParams) -> list[lsp.SelectionRange] | None:
        try:
            doc = document_of(ls, params.text_document.uri)
            if doc is None:
                return None
            index = LineIndex(doc.text)
            positions = [from_lsp_position(index, p) for p in params.positions]
            chains = selection_ranges(doc.kind, doc.text, str(doc.path), positions)
            return [_nest(chain, index) for chain in chains]
        except Exception:
            log.exception("selectionRange failed for %s", params.text_document.uri)
            return None
