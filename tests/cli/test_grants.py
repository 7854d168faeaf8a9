"""Standing grants ("a" at an approval prompt), as real subprocesses on a pseudo-terminal against the
real peer MCP server and the scripted OpenAI-compatible server: the grant is written to the
project's .lait/grants.yml, survives a restart (the next run, without a terminal, is not asked), is
listed and revocable with `lait grants`, shown by `lait policy test`, and never applies to another
project or to another server under the same name. The approval prompt shows the tool's annotations
as unverified hints."""

from __future__ import annotations

import json
import shutil
import sys
import uuid
from pathlib import Path

import pexpect
import pytest

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.processes import running_with_marker

REPO = Path(__file__).resolve().parents[2]
NOT_ASKED = "--approve-tools needs an interactive terminal, but stdin is not a TTY"


def project(
    lait: Lait, llm: ScriptedOpenAIServer, marker_file: Path, *extra: str, where: Path | None = None
) -> None:
    server = {
        "command": sys.executable,
        "args": ["-m", "tests.peers.mcp_peer", "--marker", str(marker_file), "--annotate", *extra],
        "cwd": str(REPO),
        "env": {"PYTHONPATH": str(REPO), "LAIT_TEST_MARKER": lait.env["LAIT_TEST_MARKER"]},
    }
    config = {"base_url": llm.url, "api_key": "k", "default": {"model": "m"}, "mcp_servers": {"peer": server}}
    root = where or lait.cwd
    root.mkdir(parents=True, exist_ok=True)
    (root / "lait.config.yml").write_text(json.dumps(config))
    (root / "wf.yml").write_text("steps:\n  - prompt: hi\n    mcp: [peer]\n")


def calls_seen(marker_file: Path) -> list[str]:
    if not marker_file.exists():
        return []
    return [line for line in marker_file.read_text().splitlines() if line.startswith("call ")]


@pytest.fixture
def marked(lait: Lait) -> Lait:
    lait.env["LAIT_TEST_MARKER"] = uuid.uuid4().hex
    return lait


def test_an_always_grant_survives_a_restart_and_is_revocable(
    marked: Lait, server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    lait = marked
    marker_file = tmp_path / "seen"
    project(lait, server, marker_file)
    server.push(tool_calls(call("peer__echo", {"text": "hi"})), text("done"))
    child = pexpect.spawn(
        sys.executable,
        ["-m", "lait_cli.main", "--approve-tools", "run", "wf.yml", "x"],
        cwd=str(lait.cwd),
        env={**lait.env, "PYTHONPATH": str(REPO), "TERM": "dumb"},
        encoding="utf-8",
        timeout=60,
    )
    try:
        child.expect_exact("tool call: peer__echo")
        child.expect_exact("server says: read-only (unverified)")  # the annotation, shown, not trusted
        child.expect_exact("allow this call?")
        child.sendline("a")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0, child.before
    assert len(calls_seen(marker_file)) == 1
    grants_file = lait.cwd / ".lait" / "grants.yml"
    text_of_file = grants_file.read_text()
    assert 'tool: "peer__echo"' in text_of_file and 'server: "peer"' in text_of_file

    # a new process without a terminal: asking would fail, the grant answers instead
    server.push(tool_calls(call("peer__echo", {"text": "hi"})), text("done again"))
    again = lait("--approve-tools", "run", "wf.yml", "x", timeout=60)
    assert again.returncode == 0, again.stderr
    assert len(calls_seen(marker_file)) == 2

    listed = lait("grants", "list", "--json")
    [grant] = json.loads(listed.stdout)
    assert (grant["tool"], grant["server"]) == ("peer__echo", "peer")
    assert "tests.peers.mcp_peer" in lait("grants", "list").stdout
    explained = lait(
        "--approve-tools", "policy", "test", "--tool", "peer__echo", "--tool", "peer__add", "--json"
    )
    verdicts = {r["call"]: (r["verdict"], r["source"]) for r in json.loads(explained.stdout)}
    assert verdicts == {"peer__echo": ("allow", "grants"), "peer__add": ("ask", "approval")}

    # revoked: the next run asks again (and, without a terminal, fails before the call)
    revoked = lait("grants", "revoke", "peer__echo")
    assert revoked.returncode == 0 and "revoked peer__echo" in revoked.stderr
    assert lait("grants", "revoke", "peer__echo").returncode == 1
    server.push(tool_calls(call("peer__echo", {"text": "hi"})), text("never"))
    asked = lait("--approve-tools", "run", "wf.yml", "x", timeout=60)
    assert asked.returncode != 0 and NOT_ASKED in asked.stderr
    assert len(calls_seen(marker_file)) == 2
    assert running_with_marker(lait.env["LAIT_TEST_MARKER"]) == []


def test_a_grant_never_applies_to_another_project_or_server(
    marked: Lait, server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    lait = marked
    marker_file = tmp_path / "seen"
    project(lait, server, marker_file)
    grants = lait.cwd / ".lait" / "grants.yml"
    launch = {
        "command": [sys.executable, "-m", "tests.peers.mcp_peer", "--marker", str(marker_file), "--annotate"]
    }
    grants.parent.mkdir()
    grants.write_text(
        "grants:\n"
        f"  - tool: peer__echo\n    server: peer\n    target: {json.dumps(json.dumps(launch, sort_keys=True))}\n"
        "    granted: '2026-12-01T00:00:00Z'\n"
    )
    server.push(tool_calls(call("peer__echo", {"text": "hi"})), text("done"))
    assert lait("--approve-tools", "run", "wf.yml", "x", timeout=60).returncode == 0  # the grant applies here

    other = tmp_path / "other-project"  # the same files in another folder: its own (empty) grants
    project(lait, server, marker_file, where=other)
    server.push(tool_calls(call("peer__echo", {"text": "hi"})), text("never"))
    refused = lait("--approve-tools", "run", "wf.yml", "x", cwd=other, timeout=60)
    assert refused.returncode != 0 and NOT_ASKED in refused.stderr

    project(lait, server, marker_file, "--getenv")  # another program under the same server name
    server.clear()
    server.push(tool_calls(call("peer__echo", {"text": "hi"})), text("never"))
    refused = lait("--approve-tools", "run", "wf.yml", "x", timeout=60)
    assert refused.returncode != 0 and NOT_ASKED in refused.stderr
    assert len(calls_seen(marker_file)) == 1
    shutil.rmtree(other)
    assert running_with_marker(lait.env["LAIT_TEST_MARKER"]) == []


def test_a_broken_grants_file_is_a_located_error(marked: Lait) -> None:
    grants = marked.cwd / ".lait" / "grants.yml"
    grants.parent.mkdir()
    grants.write_text("grants: [\n")
    run = marked("grants", "list")
    assert run.returncode == 3 and f"{grants}:" in run.stderr and "not a grants file" in run.stderr
    grants.write_text("grants: {tool: x}\n")
    run = marked("grants", "list")
    assert run.returncode == 3 and "expected a 'grants:' list" in run.stderr
    assert marked("grants", "revoke").returncode == 2


def test_read_only_tools_of_listed_servers_run_unasked(
    marked: Lait, server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """``approvals.read_only`` lets a listed server's read-only-annotated tool run without asking;
    the annotation alone (server not listed) or the listing alone (tool not annotated) never does."""
    lait = marked
    marker_file = tmp_path / "seen"
    project(lait, server, marker_file)
    config = json.loads((lait.cwd / "lait.config.yml").read_text())
    server.push(tool_calls(call("peer__echo", {"text": "hi"})), text("never"))
    refused = lait("--approve-tools", "run", "wf.yml", "x", timeout=60)  # annotated, server not listed
    assert refused.returncode != 0 and NOT_ASKED in refused.stderr

    (lait.cwd / "lait.config.yml").write_text(json.dumps({**config, "approvals": {"read_only": ["peer"]}}))
    server.clear()
    server.push(tool_calls(call("peer__echo", {"text": "hi"})), text("done"))
    ran = lait("--approve-tools", "run", "wf.yml", "x", timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert calls_seen(marker_file) == ["call echo hi"]
    server.push(tool_calls(call("peer__add", {"a": 1, "b": 2})), text("never"))
    refused = lait("--approve-tools", "run", "wf.yml", "x", timeout=60)  # listed, not annotated read-only
    assert refused.returncode != 0 and NOT_ASKED in refused.stderr

    assert lait("mcp", "lock", timeout=60).returncode == 0  # policy test reads the pinned annotations
    explained = lait(
        "--approve-tools", "policy", "test", "--tool", "peer__echo", "--tool", "peer__crash", "--json"
    )
    verdicts = {r["call"]: (r["verdict"], r["source"]) for r in json.loads(explained.stdout)}
    assert verdicts == {"peer__echo": ("allow", "approvals"), "peer__crash": ("ask", "approval")}
    assert running_with_marker(lait.env["LAIT_TEST_MARKER"]) == []
