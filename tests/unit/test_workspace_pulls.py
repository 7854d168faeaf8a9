"""When a repeated workspace/diagnostic pull is answered without a re-lint (lait_ls/features/workspace_pulls.py).
Through the real server: tests/lsp/test_workspace_diagnostics.py; here the rules one by one, on the
state the module keeps on the server object (a plain stand-in with the two attributes it reads)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from lsprotocol import types as lsp

from lait_ls.features import workspace_pulls


def server(*, watching: bool = True, open_uris: set[str] | None = None) -> Any:
    watched = lsp.DidChangeWatchedFilesClientCapabilities(dynamic_registration=watching)
    caps = lsp.ClientCapabilities(workspace=lsp.WorkspaceClientCapabilities(did_change_watched_files=watched))
    return SimpleNamespace(client_capabilities=caps, open_uris=open_uris or set())


def answered(ls: Any, took: float = 0.1, **ids: str) -> dict[str, str]:
    reports: list[workspace_pulls.Report] = [
        lsp.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=[], result_id=rid)
        for uri, rid in ids.items()
    ]
    began = workspace_pulls.time.monotonic() - took
    workspace_pulls.remember(ls, workspace_pulls.generation(ls), began, reports)
    return dict(ids)


def no_version(uri: str) -> int | None:
    return None


def test_the_same_ids_and_no_change_is_unchanged_for_every_file() -> None:
    ls = server()
    held = answered(ls, a="1", b="2")
    again = workspace_pulls.unchanged(ls, held, no_version)
    assert again is not None
    assert {(r.uri, r.result_id, r.kind) for r in again} == {("a", "1", "unchanged"), ("b", "2", "unchanged")}


def test_a_change_or_other_ids_or_no_watching_lint_again() -> None:
    ls = server()
    held = answered(ls, a="1", b="2")
    assert workspace_pulls.unchanged(ls, {"a": "1"}, no_version) is None  # the client lacks b's answer
    assert workspace_pulls.unchanged(ls, {"a": "1", "b": "old"}, no_version) is None
    workspace_pulls.changed(ls)
    assert workspace_pulls.unchanged(ls, held, no_version) is None
    blind = server(watching=False)
    assert workspace_pulls.unchanged(blind, answered(blind, a="1"), no_version) is None


def test_an_open_files_id_may_differ() -> None:
    """An open document's id on the client comes from its own document pull."""
    ls = server(open_uris={"b"})
    answered(ls, a="1", b="2")
    assert workspace_pulls.unchanged(ls, {"a": "1", "b": "from-a-document-pull"}, no_version) is not None


def test_a_full_lint_at_least_every_minute_or_ten_times_the_last_lint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ls = server()
    held = answered(ls, took=0.5, a="1")
    now = workspace_pulls.time.monotonic()
    monkeypatch.setattr(workspace_pulls.time, "monotonic", lambda: now + workspace_pulls.RELINT_SECONDS - 1)
    assert workspace_pulls.unchanged(ls, held, no_version) is not None
    monkeypatch.setattr(workspace_pulls.time, "monotonic", lambda: now + workspace_pulls.RELINT_SECONDS + 1)
    assert workspace_pulls.unchanged(ls, held, no_version) is None
    monkeypatch.undo()
    slow = server()
    held = answered(slow, took=20.0, a="1")  # a 20 s lint: at most every 200 s
    now = workspace_pulls.time.monotonic()
    monkeypatch.setattr(workspace_pulls.time, "monotonic", lambda: now + 150)
    assert workspace_pulls.unchanged(slow, held, no_version) is not None
    monkeypatch.setattr(workspace_pulls.time, "monotonic", lambda: now + 201)
    assert workspace_pulls.unchanged(slow, held, no_version) is None


def test_a_lint_that_began_before_a_change_is_not_taken_as_current() -> None:
    ls = server()
    started = workspace_pulls.generation(ls)
    workspace_pulls.changed(ls)  # an edit while the lint ran
    report = lsp.WorkspaceFullDocumentDiagnosticReport(uri="a", items=[], result_id="1")
    workspace_pulls.remember(ls, started, workspace_pulls.time.monotonic(), [report])
    assert workspace_pulls.unchanged(ls, {"a": "1"}, no_version) is None
