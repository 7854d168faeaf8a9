"""Repeated ``workspace/diagnostic`` pulls answered without a re-lint while nothing changed.

VS Code's language client (vscode-languageclient 9) pulls workspace diagnostics in a loop: two
seconds after each answer it asks again, with the result ids it holds. Re-linting every lait file
of the workspace each time would keep a core busy on a big project. The server knows when a lait
file changes (an edit, a save, a watched file created, changed or deleted: each goes through
:func:`request_refresh`, which calls :func:`changed`), so a pull
that comes with exactly the result ids of the last answer, with no change since, gets "unchanged"
for every file at once.

Decision: a full re-lint still happens at least every :data:`RELINT_SECONDS` (or ten times the last
lint's duration, whichever is longer, so a slow project costs at most about a tenth of a core), to
pick up what no watcher reports (a JSON schema file, the global config); and always when the client
cannot watch files.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

RELINT_SECONDS = 60.0

Report = lsp.WorkspaceFullDocumentDiagnosticReport | lsp.WorkspaceUnchangedDocumentDiagnosticReport


@dataclass
class _State:
    generation: int = 0
    """Bumped by every change of a lait file."""
    answered: int | None = None
    """The generation the last full answer was computed at."""
    at: float = 0.0
    """When that answer was ready (monotonic seconds)."""
    took: float = 0.0
    """How long it took."""
    ids: dict[str, str] = field(default_factory=dict)
    """uri -> result id of that answer."""
    open_uris: frozenset[str] = frozenset()
    """The documents open then: an open buffer is linted instead of the file, so a document closed
    (or opened) since, even with no edit (a buffer closed without saving), changes the answer."""


_ATTRIBUTE = "_lait_workspace_pulls"


def _state(ls: LaitServer) -> _State:
    state = getattr(ls, _ATTRIBUTE, None)
    if not isinstance(state, _State):
        state = _State()
        setattr(ls, _ATTRIBUTE, state)
    return state


def changed(ls: LaitServer) -> None:
    """A lait file changed: the next workspace pull lints again."""
    _state(ls).generation += 1


def generation(ls: LaitServer) -> int:
    return _state(ls).generation


def unchanged(
    ls: LaitServer, previous: dict[str, str], version: Callable[[str], int | None]
) -> list[Report] | None:
    """The answer "unchanged" for every file, when the client holds the last answer and nothing
    changed since (None: lint). An open document's result id may come from its own document pull
    (the client prefers those): only closed files' ids are compared."""
    state = _state(ls)
    if state.answered != state.generation or not supports_watching(ls):
        return None
    if state.open_uris != ls.open_uris:
        return None
    if time.monotonic() - state.at >= max(RELINT_SECONDS, 10 * state.took):
        return None
    if any(previous.get(uri) != rid for uri, rid in state.ids.items() if uri not in ls.open_uris):
        return None
    return [
        lsp.WorkspaceUnchangedDocumentDiagnosticReport(uri=uri, result_id=rid, version=version(uri))
        for uri, rid in state.ids.items()
    ]


def remember(ls: LaitServer, started: int, began: float, reports: list[Report]) -> None:
    """Keeps the result ids of an answer computed from generation ``started`` (the lint began at
    ``began``, monotonic seconds)."""
    state = _state(ls)
    state.answered = started
    state.at = time.monotonic()
    state.took = state.at - began
    state.ids = {r.uri: r.result_id for r in reports if r.result_id is not None}
    state.open_uris = frozenset(ls.open_uris)


_REFRESH_ATTRIBUTE = "_lait_refresh_pending"


def request_refresh(ls: LaitServer) -> None:
    """Ask the client to pull again (once per burst of changes), when it supports that."""
    from lait_ls.features.workspace_pulls import changed

    changed(ls)  # the next workspace pull lints again
    try:
        caps = ls.client_capabilities.workspace
        if caps is None or caps.diagnostics is None or not caps.diagnostics.refresh_support:
            return
    except Exception:
        return
    if getattr(ls, _REFRESH_ATTRIBUTE, False):
        return
    setattr(ls, _REFRESH_ATTRIBUTE, True)

    def send() -> None:
        setattr(ls, _REFRESH_ATTRIBUTE, False)
        try:
            ls.protocol.send_request(lsp.WORKSPACE_DIAGNOSTIC_REFRESH, None)
        except Exception:
            log.debug("diagnostic refresh failed", exc_info=True)

    asyncio.get_running_loop().call_later(ls.debounce, send)


def supports_watching(ls: LaitServer) -> bool:
    try:
        caps = ls.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps is not None else None
        return bool(watched is not None and watched.dynamic_registration)
    except Exception:
        return False
