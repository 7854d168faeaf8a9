"""textDocument/completion: positions and items converted; every answer comes from lait_core.

A document is parsed once per version (the cache keeps the few most recently completed
documents); the configuration comes from the linter's cached workspace. The handler never raises:
any problem is logged and answered with an empty list.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.language.completion import (
    CompletionItem,
    Environment,
    ItemKind,
    PreparedDocument,
    complete,
    prepare,
    snippet_text,
)
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import LineIndex
from lait_ls import inflight
from lait_ls.convert import from_lsp_position, to_lsp_range

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

TRIGGER_CHARACTERS = [":", " ", ".", "$", "{", "-", "[", ","]
CACHED_DOCUMENTS = 8

_KINDS = {
    ItemKind.KEY: lsp.CompletionItemKind.Property,
    ItemKind.VALUE: lsp.CompletionItemKind.Value,
    ItemKind.ENUM: lsp.CompletionItemKind.EnumMember,
    ItemKind.SNIPPET: lsp.CompletionItemKind.Snippet,
    ItemKind.REFERENCE: lsp.CompletionItemKind.Reference,
    ItemKind.VARIABLE: lsp.CompletionItemKind.Variable,
    ItemKind.FUNCTION: lsp.CompletionItemKind.Function,
    ItemKind.KEYWORD: lsp.CompletionItemKind.Keyword,
    ItemKind.FILE: lsp.CompletionItemKind.File,
    ItemKind.FIELD: lsp.CompletionItemKind.Field,
}
_COMPLETABLE = (FileKind.WORKFLOW, FileKind.AGENT, FileKind.CONFIG, FileKind.TEST, FileKind.EVAL)
_EMPTY = lsp.CompletionList(is_incomplete=False, items=[])


class _Cache:
    """Prepared documents by URI, for the version they were prepared from."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, tuple[int | None, FileKind, str, PreparedDocument]] = OrderedDict()

    def get(self, uri: str, version: int | None, kind: FileKind, text: str) -> PreparedDocument:
        entry = self.entries.get(uri)
        if entry is not None and entry[0] == version and entry[1] is kind and entry[2] == text:
            self.entries.move_to_end(uri)
            return entry[3]
        prepared = prepare(text, kind)
        self.put(uri, version, kind, text, prepared)
        return prepared

    def put(
        self, uri: str, version: int | None, kind: FileKind, text: str, prepared: PreparedDocument
    ) -> None:
        self.entries[uri] = (version, kind, text, prepared)
        self.entries.move_to_end(uri)
        while len(self.entries) > CACHED_DOCUMENTS:
            self.entries.popitem(last=False)


def _client_item(ls: LaitServer) -> lsp.ClientCompletionItemOptions | None:
    document = ls.client_capabilities.text_document
    completion = document.completion if document else None
    return completion.completion_item if completion else None


def _documentation(text: str, markdown: bool) -> lsp.MarkupContent | str | None:
    if not text:
        return None
    return lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text) if markdown else text


def to_lsp(
    item: CompletionItem, index: LineIndex, snippets: bool, markdown: bool = True
) -> lsp.CompletionItem:
    """The LSP item: snippets only for clients that take them, Markdown only for clients that show it."""
    snippet = item.snippet and snippets
    text = item.insert if snippet or not item.snippet else snippet_text(item.insert)
    return lsp.CompletionItem(
        label=item.label,
        kind=_KINDS.get(item.kind, lsp.CompletionItemKind.Text),
        detail=item.detail or None,
        documentation=_documentation(item.documentation, markdown),
        text_edit=lsp.TextEdit(range=to_lsp_range(index, item.range), new_text=text),
        insert_text_format=lsp.InsertTextFormat.Snippet if snippet else lsp.InsertTextFormat.PlainText,
        insert_text_mode=lsp.InsertTextMode.AsIs if item.multiline else None,
        filter_text=item.filter_text,
        sort_text=item.sort_text,
    )


def compute(ls: LaitServer, params: lsp.CompletionParams, cache: _Cache) -> lsp.CompletionList:
    uri = params.text_document.uri
    if uri not in ls.open_uris:
        return lsp.CompletionList(is_incomplete=False, items=[])
    kind = ls.kind_of(uri)
    path = ls.path_of(uri)
    if kind is FileKind.FOREIGN and path is not None:
        return _foreign(ls, uri, path, params)
    if kind not in _COMPLETABLE or kind is None or path is None:
        return _EMPTY
    document = ls.workspace.get_text_document(uri)
    prepared = cache.get(uri, document.version, kind, document.source)
    position = from_lsp_position(prepared.index, params.position)
    config = None
    try:
        loaded = ls.linter.workspace_for(path).loaded_config
        config = loaded.config if loaded is not None else None
    except Exception:  # an unreadable config only means fewer names
        log.debug("no configuration for %s", uri, exc_info=True)
    trigger = params.context.trigger_character if params.context else None
    env = Environment(path, config, reader=lambda p: ls.overlay.read(p).text)
    items = complete(prepared, position, env, trigger)
    options = _client_item(ls)
    snippets = bool(options and options.snippet_support)
    formats = options.documentation_format if options else None
    markdown = formats is None or lsp.MarkupKind.Markdown in formats
    return lsp.CompletionList(
        is_incomplete=False, items=[to_lsp(item, prepared.index, snippets, markdown) for item in items]
    )


def _foreign(ls: LaitServer, uri: str, path: Path, params: lsp.CompletionParams) -> lsp.CompletionList:
    """Keys and values of another tool's file (:mod:`lait_core.language.foreign_files`)."""
    from lait_core.language.foreign_files import complete as complete_foreign

    text = ls.workspace.get_text_document(uri).source
    index = LineIndex(text)
    items = complete_foreign(text, path, from_lsp_position(index, params.position))
    return lsp.CompletionList(
        is_incomplete=False,
        items=[
            lsp.CompletionItem(
                label=item.label,
                kind=lsp.CompletionItemKind.Property
                if item.kind == "key"
                else lsp.CompletionItemKind.EnumMember,
                detail=item.detail or None,
                documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=item.documentation),
                text_edit=lsp.TextEdit(range=to_lsp_range(index, item.range), new_text=item.insert),
            )
            for item in items
        ],
    )


_CACHE_ATTRIBUTE = "_lait_completion_cache"


def cache_of(ls: LaitServer) -> _Cache:
    cache = getattr(ls, _CACHE_ATTRIBUTE, None)
    if not isinstance(cache, _Cache):
        cache = _Cache()
        setattr(ls, _CACHE_ATTRIBUTE, cache)
    return cache


def wanted(ls: LaitServer, uri: str) -> bool:
    """Whether :func:`prepare_ahead` prepares this document (completion was asked for in it)."""
    return uri in cache_of(ls).entries


async def prepare_ahead(ls: LaitServer, uri: str) -> None:
    """Prepare the current version on the lint thread when the client asked for completion in this
    document before (part of the warm-up after each publish, :mod:`lait_ls.features.diagnostics`), so
    the next completion request finds it ready."""
    cache = cache_of(ls)
    if uri not in cache.entries or uri not in ls.open_uris:
        return
    kind = ls.kind_of(uri)
    if kind not in _COMPLETABLE or kind is None:
        return
    document = ls.workspace.get_text_document(uri)
    version, text = document.version, document.source
    entry = cache.entries[uri]
    if entry[0] == version and entry[1] is kind and entry[2] == text:
        return
    prepared = await ls.lint_worker.run(lambda: prepare(text, kind), f"completion of {ls.path_of(uri)}")
    now = ls.workspace.get_text_document(uri)
    if prepared is not None and uri in ls.open_uris and now.version == version and now.source == text:
        cache.put(uri, version, kind, text, prepared)


def register(server: LaitServer) -> None:

    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION,
        lsp.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS, resolve_provider=False),
    )
    async def completion(ls: LaitServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        try:
            await inflight.ready(ls, "completion", params.text_document.uri)  # the warm-up's, if preparing
            with ls.lint_worker.answering():  # the lint thread waits meanwhile (see lait_ls.lint_worker)
                return compute(ls, params, cache_of(ls))
        except Exception:  # completion must never fail the request
            log.exception("completion at %s failed", params.text_document.uri)
            return _EMPTY


__all__ = ["TRIGGER_CHARACTERS", "compute", "register", "to_lsp"]
