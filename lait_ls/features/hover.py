"""Hover: key documentation and what names resolve to (Markdown from lait_core.language.hover)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.language import hover_at
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import LineIndex
from lait_ls import inflight
from lait_ls.convert import from_lsp_position, to_lsp_range
from lait_ls.features.definition import at, project_of

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")


def register(server: LaitServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: LaitServer, params: lsp.HoverParams) -> lsp.Hover | None:
        try:
            await inflight.ready(ls, "index", params.text_document.uri)  # the warm-up's, if building
            with ls.lint_worker.answering():
                return _hover(ls, params)
        except Exception:
            log.exception("hover failed for %s", params.text_document.uri)
            return None


def _hover(ls: LaitServer, params: lsp.HoverParams) -> lsp.Hover | None:
    uri = params.text_document.uri
    path = ls.path_of(uri)
    if path is not None and uri in ls.open_uris and ls.kind_of(uri) is FileKind.FOREIGN:
        from lait_core.language.foreign_files import hover as hover_foreign

        text = ls.text_of(uri)
        index = LineIndex(text)
        shown = hover_foreign(text, path, from_lsp_position(index, params.position))
        if shown is None:
            return None
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=shown.markdown),
            range=to_lsp_range(index, shown.range),
        )
    found = at(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    doc, pos = found
    project = project_of(ls)
    result = hover_at(project, doc, pos)
    if result is None:
        return None
    index = project.index(doc).source.index
    return lsp.Hover(
        contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=result.markdown),
        range=to_lsp_range(index, result.range),
    )
