"""Call hierarchy between workflows and the agent files and child workflows they call (from
lait_core.language.call_hierarchy). Items carry their file's path in ``data``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from lait_core.language.call_hierarchy import CallItem, incoming, item_for, outgoing, prepare
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import Range
from lait_ls.convert import to_lsp_range
from lait_ls.features.definition import at, open_documents, project_of, uri_of

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")


def to_lsp(ls: LaitServer, item: CallItem) -> lsp.CallHierarchyItem:
    top = to_lsp_range(item.index, Range.at(0, 0))
    return lsp.CallHierarchyItem(
        name=item.name,
        kind=lsp.SymbolKind.Class if item.kind is FileKind.AGENT else lsp.SymbolKind.Function,
        uri=uri_of(ls, item.path),
        range=top,
        selection_range=top,
        detail="agent" if item.kind is FileKind.AGENT else "workflow",
        data={"path": item.path},
    )


def from_lsp(ls: LaitServer, item: lsp.CallHierarchyItem) -> CallItem | None:
    data: Any = item.data
    path = data.get("path") if isinstance(data, dict) else None
    if not isinstance(path, str):
        fs = ls.path_of(item.uri)
        path = str(fs) if fs is not None else None
    return item_for(project_of(ls), path) if path else None


def register(server: LaitServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
    def prepare_calls(
        ls: LaitServer, params: lsp.CallHierarchyPrepareParams
    ) -> list[lsp.CallHierarchyItem] | None:
        try:
            found = at(ls, params.text_document.uri, params.position)
            if found is None:
                return None
            item = prepare(project_of(ls), *found)
            return [to_lsp(ls, item)] if item is not None else None
        except Exception:
            log.exception("prepareCallHierarchy failed for %s", params.text_document.uri)
            return None

    @server.feature(lsp.CALL_HIERARCHY_INCOMING_CALLS)
    def incoming_calls(
        ls: LaitServer, params: lsp.CallHierarchyIncomingCallsParams
    ) -> list[lsp.CallHierarchyIncomingCall] | None:
        try:
            item = from_lsp(ls, params.item)
            if item is None:
                return None
            return [
                lsp.CallHierarchyIncomingCall(
                    from_=to_lsp(ls, call.item),
                    from_ranges=[to_lsp_range(call.index, r) for r in call.ranges],
                )
                for call in incoming(project_of(ls), item, open_documents(ls))
            ]
        except Exception:
            log.exception("callHierarchy/incomingCalls failed")
            return None

    @server.feature(lsp.CALL_HIERARCHY_OUTGOING_CALLS)
    def outgoing_calls(
        ls: LaitServer, params: lsp.CallHierarchyOutgoingCallsParams
    ) -> list[lsp.CallHierarchyOutgoingCall] | None:
        try:
            item = from_lsp(ls, params.item)
            if item is None:
                return None
            return [
                lsp.CallHierarchyOutgoingCall(
                    to=to_lsp(ls, call.item), from_ranges=[to_lsp_range(call.index, r) for r in call.ranges]
                )
                for call in outgoing(project_of(ls), item)
            ]
        except Exception:
            log.exception("callHierarchy/outgoingCalls failed")
            return None
