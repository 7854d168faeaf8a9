"""Go to definition; also the helpers the navigation features share (the session's
:class:`~lait_core.language.Project`, documents and position conversions)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.language import Document, Location, Project
from lait_core.syntax.positions import LineIndex, Position
from lait_ls.convert import from_lsp_position, to_lsp_range

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

_PROJECT_ATTRIBUTE = "_lait_language_project"


def project_of(ls: LaitServer) -> Project:
    """The session's project index (created on first use, reading through the editor overlay)."""
    project = getattr(ls, _PROJECT_ATTRIBUTE, None)
    if not isinstance(project, Project):
        project = Project(ls.linter, reader=ls.overlay.read)
        setattr(ls, _PROJECT_ATTRIBUTE, project)
    return project


def document_of(ls: LaitServer, uri: str) -> Document | None:
    """The open lait document at ``uri`` (None for closed documents and other files)."""
    if uri not in ls.open_uris:
        return None
    kind = ls.kind_of(uri)
    path = ls.path_of(uri)
    if kind is None or path is None:
        return None
    return Document(path, ls.text_of(uri), kind)


def at(ls: LaitServer, uri: str, position: lsp.Position) -> tuple[Document, Position] | None:
    """The document and the code-point position of an LSP (UTF-16) position in it."""
    doc = document_of(ls, uri)
    if doc is None:
        return None
    return doc, from_lsp_position(LineIndex(doc.text), position)


def open_documents(ls: LaitServer) -> list[Document]:
    out = []
    for uri in sorted(ls.open_uris):
        try:
            doc = document_of(ls, uri)
        except Exception:
            continue
        if doc is not None:
            out.append(doc)
    return out


def uri_of(ls: LaitServer, path: str) -> str:
    """The URI the client uses for ``path`` (an open document's own URI when it is open)."""
    target = os.path.normpath(os.path.abspath(path))
    for uri in ls.open_uris:
        p = ls.path_of(uri)
        if p is not None and os.path.normpath(os.path.abspath(p)) == target:
            return uri
    return Path(target).as_uri()


def to_location(ls: LaitServer, loc: Location) -> lsp.Location:
    return lsp.Location(uri=uri_of(ls, loc.path), range=to_lsp_range(loc.index, loc.range))


def register(server: LaitServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: LaitServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        try:
            found = at(ls, params.text_document.uri, params.position)
            if found is None:
                return None
            locations = project_of(ls).definition(*found)
            return [to_location(ls, loc) for loc in locations] or None
        except Exception:
            log.exception("definition failed for %s", params.text_document.uri)
            return None
