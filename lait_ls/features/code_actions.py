"""`textDocument/codeAction`: the core's quick fixes as LSP code actions (kind ``quickfix``).

The client hands back the diagnostics it shows (UTF-16 ranges, the ``data.fixes`` the server
attached in code points); they become core diagnostics again, the core decides the edits, and
the edits are converted to UTF-16 against the text of the file they change.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from lait_core.language.code_actions import QuickFix, quick_fixes
from lait_core.syntax.diagnostics import Diagnostic, Fix
from lait_core.syntax.positions import LineIndex, Range
from lait_ls.convert import from_lsp_range, to_lsp_range

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

Provider = Callable[["LaitServer", lsp.CodeActionParams], Sequence[lsp.CodeAction | lsp.Command] | None]
"""Another feature's code actions, kept in the server's ``code_action_providers``."""


def fixes_from_data(data: Any) -> tuple[Fix, ...]:
    """The fixes the diagnostics feature serialised into ``data`` (``{"fixes": [{title, text,
    range: [[line, character], [line, character]]}]}``, code points); malformed entries dropped."""
    items = _get(data, "fixes")
    if not isinstance(items, list | tuple):
        return ()
    out: list[Fix] = []
    for item in items:
        title, text, rng = _get(item, "title"), _get(item, "text"), _get(item, "range")
        try:
            (sl, sc), (el, ec) = rng
            fix_range = Range.at(int(sl), int(sc), int(el), int(ec))
        except (TypeError, ValueError):
            continue
        if isinstance(title, str) and isinstance(text, str):
            out.append(Fix(title, fix_range, text))
    return tuple(out)


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def from_lsp_diagnostic(diag: lsp.Diagnostic, index: LineIndex) -> Diagnostic | None:
    """A lait diagnostic the client sent back, in core terms (None for other servers' diagnostics)."""
    code = diag.code
    if not isinstance(code, str) or not code.startswith("LAIT") or diag.source not in (None, "lait"):
        return None
    return Diagnostic(code, diag.message, from_lsp_range(index, diag.range), fixes=fixes_from_data(diag.data))


def wants_quickfix(only: Sequence[lsp.CodeActionKind | str] | None) -> bool:
    """Whether a request restricted to the ``only`` kinds asks for quick fixes."""
    if not only:
        return True
    quickfix = lsp.CodeActionKind.QuickFix.value
    return any(str(getattr(k, "value", k)) in ("", quickfix) for k in only)


def to_lsp_action(fix: QuickFix, original: lsp.Diagnostic, uri_of: dict[str, str]) -> lsp.CodeAction:
    changes: dict[str, list[lsp.TextEdit]] = {}
    for file_edit in fix.changes:
        index = LineIndex(file_edit.text)
        uri = uri_of.get(os.path.normpath(os.path.abspath(file_edit.path))) or Path(file_edit.path).as_uri()
        changes.setdefault(uri, []).extend(
            lsp.TextEdit(range=to_lsp_range(index, e.range), new_text=e.text) for e in file_edit.edits
        )
    return lsp.CodeAction(
        title=fix.title,
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[original],
        is_preferred=fix.preferred or None,
        edit=lsp.WorkspaceEdit(changes=changes),
    )


def code_actions(ls: LaitServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
    if not wants_quickfix(params.context.only):
        return None
    uri = params.text_document.uri
    path = ls.path_of(uri)
    if path is None or uri not in ls.open_uris:
        return None
    kind = ls.kind_of(uri)
    if kind is None:
        return None
    text = ls.text_of(uri)
    index = LineIndex(text)
    pairs: list[tuple[Diagnostic, lsp.Diagnostic]] = []
    for original in params.context.diagnostics:
        core = from_lsp_diagnostic(original, index)
        if core is not None:
            pairs.append((core, original))
    if not pairs:
        return None
    fixes = quick_fixes(text, path, kind, [core for core, _ in pairs], linter=ls.linter)
    # open documents keep the client's spelling of their URI
    uri_of: dict[str, str] = {}
    for open_uri in ls.open_uris:
        open_path = ls.path_of(open_uri)
        if open_path is not None:
            uri_of[os.path.normpath(os.path.abspath(open_path))] = open_uri
    originals = [original for _, original in pairs]
    actions = []
    for fix in fixes:
        original = _matching(fix.diagnostic, pairs) or originals[0]
        actions.append(to_lsp_action(fix, original, uri_of))
    return actions


def _matching(diag: Diagnostic, pairs: list[tuple[Diagnostic, lsp.Diagnostic]]) -> lsp.Diagnostic | None:
    for core, original in pairs:
        if core.code == diag.code and core.range == diag.range:
            return original
    return None


def register(server: LaitServer) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=server.code_action_kinds, resolve_provider=False),
    )
    def code_action(
        ls: LaitServer, params: lsp.CodeActionParams
    ) -> list[lsp.CodeAction | lsp.Command] | None:
        out: list[lsp.CodeAction | lsp.Command] = []
        for provider in (code_actions, *ls.code_action_providers):
            try:
                out += provider(ls, params) or []
            except Exception:  # a broken buffer must never take the server down
                log.exception("code actions for %s failed", params.text_document.uri)
        return out or None
