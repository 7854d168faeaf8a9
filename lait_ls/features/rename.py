"""Rename (with prepareRename): a name and all its references, across config, agents and workflows.

An invalid or clashing new name is answered with a RequestFailed error carrying the reason;
anything unexpected gives no result.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from lait_core.language import RenameError
from lait_ls.convert import to_lsp_range
from lait_ls.features.definition import at, open_documents, project_of, uri_of
from lait_ls.roots import workspace_roots

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

REQUEST_FAILED = -32803


def register(server: LaitServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(ls: LaitServer, params: lsp.PrepareRenameParams) -> lsp.PrepareRenameResult | None:
        try:
            found = at(ls, params.text_document.uri, params.position)
            if found is None:
                return None
            doc, pos = found
            project = project_of(ls)
            target = project.prepare_rename(doc, pos)
            if target is None:
                return None
            refusal = project.rename_refusal(doc, target.key)
            if refusal is not None:  # said before the new name is typed
                raise JsonRpcException(message=refusal, code=REQUEST_FAILED)
            index = project.index(doc).source.index
            return lsp.PrepareRenamePlaceholder(
                range=to_lsp_range(index, target.range), placeholder=target.name
            )
        except JsonRpcException:
            raise
        except Exception:
            log.exception("prepareRename failed for %s", params.text_document.uri)
            return None

    @server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
    def rename(ls: LaitServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        try:
            found = at(ls, params.text_document.uri, params.position)
            if found is None:
                return None
            doc, pos = found
            roots = workspace_roots(ls, with_open_folders=True)
            edits = project_of(ls).rename(doc, pos, params.new_name, open_documents(ls), roots)
        except RenameError as exc:
            raise JsonRpcException(message=str(exc), code=REQUEST_FAILED) from None
        except Exception:
            log.exception("rename failed for %s", params.text_document.uri)
            return None
        changes: dict[str, list[lsp.TextEdit]] = {}
        for file in edits:
            changes[uri_of(ls, file.path)] = [
                lsp.TextEdit(range=to_lsp_range(file.index, e.range), new_text=e.new_text) for e in file.edits
            ]
        return lsp.WorkspaceEdit(changes=changes)
