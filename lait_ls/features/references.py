"""Find references: every place a step id, input, schema, agent, model alias or registry name occurs."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_ls.features.definition import at, open_documents, project_of, to_location
from lait_ls.roots import workspace_roots

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")


def register(server: LaitServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def references(ls: LaitServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
        try:
            found = at(ls, params.text_document.uri, params.position)
            if found is None:
                return None
            doc, pos = found
            locations = project_of(ls).references(
                doc,
                pos,
                include_declaration=params.context.include_declaration,
                open_docs=open_documents(ls),
                roots=workspace_roots(ls, with_open_folders=True),
            )
            return [to_location(ls, loc) for loc in locations] or None
        except Exception:
            log.exception("references failed for %s", params.text_document.uri)
            return None
