"""`lait mcp login NAME` / `lait mcp logout NAME` and headless runs, as real subprocesses against
the official MCP conformance suite's ``auth/scope-step-up`` scenario (an MCP server whose
tools/list needs scope ``mcp:basic`` and tools/call ``mcp:basic mcp:write``, and its
authorization server). The test plays the browser: it reads the authorization URL lait prints
and follows it over loopback HTTP. Headless commands (no terminal) fail at once with "sign in
with `lait mcp login NAME`"; the second login asks for the scopes the refused call needed; the
suite's checks (initial scope, escalation, PKCE, resource) all pass. An expired token is
refreshed by a later process at the token endpoint discovered earlier. The access and refresh
tokens (canaries) are only ever in the 0600 token file.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from tests.cli.conftest import Lait, Run
from tests.conformance.auth_scenario import scenario
from tests.processes import running_with_marker


def login(lait: Lait, name: str) -> tuple[Run, str]:
    """Run `lait mcp login NAME` (stdin closed: no terminal), follow the URL it prints."""
    process = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "mcp", "login", name],
        cwd=lait.cwd,
        env=lait.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    timer = threading.Timer(120, process.kill)
    timer.start()
    try:
        assert process.stderr is not None and process.stdout is not None
        lines: list[str] = []
        url = ""
        for line in process.stderr:
            lines.append(line)
            if line.startswith("  http"):
                url = line.strip()
                answer = httpx2.get(url, follow_redirects=True, timeout=30)
                assert answer.status_code == 200, answer.text
                break
        lines.extend(process.stderr)
        stdout = process.stdout.read()
        code = process.wait()
    finally:
        timer.cancel()
    return Run(("mcp", "login", name), code, stdout, "".join(lines)), url


@pytest.mark.conformance  # the MCP conformance suite's authorization server
def test_login_step_up_headless_and_logout(lait: Lait, tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    data = tmp_path / "data"
    lait.env.update({"XDG_DATA_HOME": str(data), "LAIT_TEST_MARKER": marker})
    outputs: list[str] = []
    with scenario("auth/scope-step-up") as suite:
        lait.write("lait.config.yml", json.dumps({"mcp_servers": {"conf": {"url": suite.url}}}))

        # headless, never signed in: fails at once
        run = lait("mcp", "tools", "conf", timeout=60)
        outputs += [run.stdout, run.stderr]
        assert run.returncode == 1
        assert run.stderr == "lait: MCP server 'conf': asks for sign-in; sign in with `lait mcp login conf`\n"

        run, url = login(lait, "conf")
        outputs += [run.stdout, run.stderr]
        assert run.returncode == 0, run.stderr
        query = parse_qs(urlsplit(url).query)
        assert query["scope"] == ["mcp:basic"]
        assert query["code_challenge_method"] == ["S256"] and query["resource"] == [suite.url]
        assert "mcp_servers.conf: sign in by opening this URL in a browser:\n" in run.stderr
        assert run.stderr.endswith("mcp_servers.conf: signed in (1 tool); tokens stored in the file store\n")

        [record_file] = (data / "lait" / "mcp-oauth").glob("*.json")
        assert record_file.stat().st_mode & 0o777 == 0o600
        first_token = json.loads(record_file.read_text())["tokens"]["access_token"]

        # the token has expired and there is a refresh token: a later process refreshes it at the
        # authorization server it discovered earlier (kept in the record), without a sign-in
        record = json.loads(record_file.read_text())
        refresh = f"refresh-canary-{uuid.uuid4().hex}"
        record["tokens"]["refresh_token"] = refresh
        record["expires_at"] = time.time() - 60
        record_file.write_text(json.dumps(record))

        # headless with the stored token: tools/list is allowed, tools/call needs more scope
        run = lait("mcp", "tools", "conf", timeout=60)
        outputs += [run.stdout, run.stderr]
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith("conf__test-tool\n")
        refreshed = json.loads(record_file.read_text())
        assert refreshed["tokens"]["refresh_token"] == refresh
        assert refreshed["tokens"]["access_token"] != first_token
        assert refreshed["expires_at"] > time.time() + 3000
        run = lait("mcp", "call", "conf", "test-tool", timeout=60)
        outputs += [run.stdout, run.stderr]
        assert run.returncode == 1
        assert (
            "needs more permission (scope 'mcp:basic mcp:write'); sign in with `lait mcp login conf`"
            in run.stderr
        ), run.stderr

        run, url = login(lait, "conf")
        outputs += [run.stdout, run.stderr]
        assert run.returncode == 0, run.stderr
        assert set(parse_qs(urlsplit(url).query)["scope"][0].split()) == {"mcp:basic", "mcp:write"}
        second_token = json.loads(record_file.read_text())["tokens"]["access_token"]
        run = lait("mcp", "call", "conf", "test-tool", timeout=60)
        outputs += [run.stdout, run.stderr]
        assert (run.returncode, run.stdout) == (0, "test\n"), run.stderr

        run = lait("mcp", "logout", "conf")
        outputs += [run.stdout, run.stderr]
        assert (run.returncode, run.stderr) == (0, "mcp_servers.conf: signed out\n")
        assert not record_file.exists()
        run = lait("mcp", "logout", "conf")
        assert (run.returncode, run.stderr) == (0, "mcp_servers.conf: was not signed in\n")
    assert suite.problems() == [], suite.problems()
    assert {"scope-step-up-initial", "scope-step-up-escalation"} <= suite.ids()
    grants = [c["details"].get("grantType") for c in suite.checks if c.get("id") == "token-request"]
    assert grants == ["authorization_code", "refresh_token", "authorization_code"]
    assert not any(refresh in text for text in outputs)
    for token in (first_token, second_token):
        assert token.startswith("test-token-")
        assert not any(token in text for text in outputs)
    assert running_with_marker(marker) == []


def test_login_refuses_stdio_and_unknown_servers(lait: Lait) -> None:
    lait.write("lait.config.yml", json.dumps({"mcp_servers": {"local": {"command": "true"}}}))
    run = lait("mcp", "login", "local")
    assert run.returncode == 1
    assert run.stderr == (
        "lait: mcp_servers.local is a stdio server ('command:'); only 'url:' servers sign in\n"
    )
    run = lait("mcp", "logout", "nope")
    assert run.returncode == 1 and "unknown MCP server 'nope'" in run.stderr


@pytest.mark.conformance  # the MCP conformance suite's authorization server
def test_ctrl_c_cancels_a_waiting_login(lait: Lait, tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    lait.env.update({"XDG_DATA_HOME": str(tmp_path / "data"), "LAIT_TEST_MARKER": marker})
    with scenario("auth/metadata-default") as suite:
        lait.write("lait.config.yml", json.dumps({"mcp_servers": {"conf": {"url": suite.url}}}))
        process = subprocess.Popen(
            [sys.executable, "-m", "lait_cli.main", "mcp", "login", "conf"],
            cwd=lait.cwd,
            env=lait.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        timer = threading.Timer(120, process.kill)
        timer.start()
        try:
            assert process.stderr is not None
            lines = []
            for line in process.stderr:
                lines.append(line)
                if line.startswith("waiting for the browser to return to "):
                    callback = line.split(" to ", 1)[1].split(" ", 1)[0]
                    process.send_signal(signal.SIGINT)
                    break
            lines.extend(process.stderr)
            code = process.wait()
        finally:
            timer.cancel()
    assert code == 130, lines
    assert lines[-1] == "lait: sign-in cancelled\n"
    with pytest.raises(httpx2.TransportError):  # the loopback listener is closed
        httpx2.get(callback + "?state=x&code=y", timeout=5)
    assert running_with_marker(marker) == []


@pytest.mark.conformance  # the MCP conformance suite's authorization server
def test_a_forged_callback_does_not_end_the_sign_in(lait: Lait, tmp_path: Path) -> None:
    """A local page that hits the loopback callback with another `state` (a code of its own, or an
    `error`) gets 400; the real redirect that follows still signs in."""
    lait.env.update({"XDG_DATA_HOME": str(tmp_path / "data")})
    with scenario("auth/metadata-default") as suite:
        lait.write("lait.config.yml", json.dumps({"mcp_servers": {"conf": {"url": suite.url}}}))
        process = subprocess.Popen(
            [sys.executable, "-m", "lait_cli.main", "mcp", "login", "conf"],
            cwd=lait.cwd,
            env=lait.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        timer = threading.Timer(120, process.kill)
        timer.start()
        try:
            assert process.stderr is not None
            lines: list[str] = []
            for line in process.stderr:
                lines.append(line)
                if line.startswith("  http"):
                    url = line.strip()
                    callback = parse_qs(urlsplit(url).query)["redirect_uri"][0]
                    for forged in ("?state=forged&code=evil", "?state=forged&error=access_denied"):
                        answer = httpx2.get(callback + forged, timeout=10)
                        assert answer.status_code == 400, answer.text
                        assert "Signed in" not in answer.text
                    real = httpx2.get(url, follow_redirects=True, timeout=30)
                    assert real.status_code == 200 and "Signed in" in real.text, real.text
                    break
            lines.extend(process.stderr)
            code = process.wait()
        finally:
            timer.cancel()
    assert code == 0, lines
    assert any("authorization received" in line for line in lines)
