"""Hover: key documentation and what names resolve to (Markdown from lait_core.language.hover)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.language import hover_at
from lait_ls import inflight
from lait_ls.convert import to_lsp_range
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
