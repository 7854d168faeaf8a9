"""The official MCP conformance suite's client scenarios with lait (`lait mcp call` / `lait mcp
tools`, see lait_mcp_client.py) as the client under test. The ``auth/*`` scenarios are in
test_mcp_auth_scenarios.py."""

from __future__ import annotations

from pathlib import Path

from tests.conformance.mcp_suite import run_client_scenario


def test_initialize(tmp_path: Path) -> None:
    run = run_client_scenario("initialize", tmp_path)
    assert run.passed, run.report()
    assert '"tools"' in run.client_stdout  # lait mcp tools --json printed the listing


def test_tools_call(tmp_path: Path) -> None:
    run = run_client_scenario("tools_call", tmp_path)
    assert run.passed, run.report()
    assert run.status("tool-add-numbers") == ["SUCCESS"]
    assert "The sum of 5 and 3 is 8" in run.client_stdout


def test_sse_retry(tmp_path: Path) -> None:
    """The tools/call stream closes after a priming event (``retry: 500``): the client reconnects
    with GET and ``Last-Event-ID`` after the retry delay and receives the result there. The suite
    grades the delay itself (a reconnect more than 200 ms late is a warning: load on the machine,
    not lait, so a warning on that one check is tolerated here)."""
    run = run_client_scenario("sse-retry", tmp_path)
    assert run.status("client-sse-graceful-reconnect") == ["SUCCESS"], run.report()
    assert run.status("client-sse-last-event-id") == ["SUCCESS"], run.report()
    timing = run.status("client-sse-retry-timing")
    assert timing in (["SUCCESS"], ["WARNING"]), run.report()
    assert "Reconnection test completed successfully" in run.client_stdout, run.report()
    assert [c for c in run.failures if c["id"] != "client-sse-retry-timing"] == [], run.report()


def test_elicitation_defaults(tmp_path: Path) -> None:
    """The server's form has a default on every field; lait runs on a pseudo-terminal where Enter
    is pressed at each prompt (the form field by field, every field kept at its default)."""
    run = run_client_scenario("elicitation-sep1034-client-defaults", tmp_path)
    assert run.passed, run.report()
    for kind in ("string", "integer", "number", "enum", "boolean"):
        assert run.status(f"client-elicitation-sep1034-{kind}-default") == ["SUCCESS"]
    assert "  status [active]: " in run.client_stderr
