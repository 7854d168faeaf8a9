"""Inlay hints (from lait_core.language.inlay_hints); each kind is off unless the settings turn it
on: initialization option or ``workspace/didChangeConfiguration`` ``{"inlayHints": {"modelAlias":
true, "shellArgv": true, "outputType": true, "forEachItem": true}}`` (also under a ``lait`` key)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from lait_core.language.inlay_hints import KINDS, Hint, inlay_hints
from lait_core.language.kept_results import KeptResults, carry_hints
from lait_core.syntax.positions import LineIndex
from lait_ls.convert import from_lsp_range, to_lsp_position
from lait_ls.features.definition import document_of

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")
_ENABLED_ATTRIBUTE = "_lait_inlay_hints"
KEPT: KeptResults[list[Hint]] = KeptResults(carry_hints)


def enabled_kinds(ls: LaitServer) -> set[str]:
    value = getattr(ls, _ENABLED_ATTRIBUTE, None)
    return set(value) if isinstance(value, set) else set()


def configure(ls: LaitServer, options: Any) -> None:
    """Read ``inlayHints`` from settings (kinds not mentioned keep their state)."""
    if not isinstance(options, dict):
        return
    lait = options.get("lait", options)
    hints = lait.get("inlayHints") if isinstance(lait, dict) else None
    if not isinstance(hints, dict):
        return
    kinds = enabled_kinds(ls)
    for kind in KINDS:
        if isinstance(hints.get(kind), bool):
            (kinds.add if hints[kind] else kinds.discard)(kind)
    setattr(ls, _ENABLED_ATTRIBUTE, kinds)


def refresh(ls: LaitServer) -> None:
    """Ask the client to ask again (after a settings change), when it supports that."""
    try:
        caps = ls.client_capabilities.workspace
        if caps is None or caps.inlay_hint is None or not caps.inlay_hint.refresh_support:
            return
        ls.protocol.send_request(lsp.WORKSPACE_INLAY_HINT_REFRESH, None)
    except Exception:
        log.debug("inlay hint refresh failed", exc_info=True)


def register(server: LaitServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintOptions(resolve_provider=False))
    async def hints(ls: LaitServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint] | None:
        try:
            kinds = enabled_kinds(ls)
            if not kinds:
                return []
            doc = document_of(ls, params.text_document.uri)
            if doc is None:
                return None
            try:
                config = ls.linter.workspace_for(doc.path).loaded_config
            except Exception:
                config = None
            uri = params.text_document.uri

            def compute() -> list[Hint]:
                return inlay_hints(
                    doc.kind,
                    doc.text,
                    str(doc.path),
                    config=config.config if config is not None else None,
                    enabled=kinds,
                )

            # an incomplete edit keeps the hints of the last text that parsed
            KEPT.forget(lambda key: isinstance(key, tuple) and key[0] in ls.open_uris)
            key = (uri, frozenset(kinds))
            found = await asyncio.to_thread(KEPT.result, key, doc.kind, doc.text, compute, str(doc.path))
            index = LineIndex(doc.text)
            rng = from_lsp_range(index, params.range)
            out = []
            for hint in found:
                if not (rng.start <= hint.position <= rng.end):
                    continue
                out.append(
                    lsp.InlayHint(
                        position=to_lsp_position(index, hint.position),
                        label=hint.label,
                        kind=lsp.InlayHintKind.Parameter
                        if hint.kind == "shellArgv"
                        else lsp.InlayHintKind.Type,
                        tooltip=hint.tooltip or None,
                        padding_left=True,
                    )
                )
            return out
        except Exception:
            log.exception("inlayHint failed for %s", params.text_document.uri)
            return None
