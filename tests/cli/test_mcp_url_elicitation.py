"""URL elicitation (seed 003) and choice forms through `lait mcp call` on a pseudo-terminal,
against the real peer tests/peers/mcp_url_server.py: a call failing with -32042 shows the message
and the URL (never opened by lait), waits for notifications/elicitation/complete (sent when the
test, playing the browser, visits the URL) and is retried once; a URL-mode elicitation/create
during a call; cancel and headless runs end with a clear error; titled choices and a multi-select
are answered field by field."""

from __future__ import annotations

import json
import re
import sys
import urllib.request
import uuid
from pathlib import Path

import pexpect

from tests.cli.conftest import Lait
from tests.processes import running_with_marker

REPO = Path(__file__).resolve().parents[2]
URL = re.compile(
    r"open this URL in your browser \(lait does not open it\): (http://127\.0\.0\.1:\d+/done/[\w-]+)"
)


def configure(lait: Lait, marker: str, **extra: object) -> None:
    server = {
        "command": sys.executable,
        "args": ["-m", "tests.peers.mcp_url_server"],
        "cwd": str(REPO),
        "env": {"PYTHONPATH": str(REPO), "LAIT_TEST_MARKER": marker},
        "allow_elicitation": True,
        **extra,
    }
    lait.write("lait.config.yml", json.dumps({"mcp_servers": {"shop": server}}))


def spawn(lait: Lait, *args: str) -> pexpect.spawn:
    env = {**lait.env, "PYTHONPATH": str(REPO), "TERM": "dumb"}
    return pexpect.spawn(
        sys.executable,
        ["-m", "lait_cli.main", *args],
        cwd=str(lait.cwd),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 400),
    )


def visit(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as page:  # the person's browser
        return page.read().decode()


def finish(child: pexpect.spawn) -> tuple[int, str]:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, str(child.before)


def test_url_required_is_shown_waited_for_and_the_call_retried(lait: Lait) -> None:
    marker = uuid.uuid4().hex
    configure(lait, marker)
    child = spawn(lait, "mcp", "call", "shop", "private_note")
    try:
        child.expect_exact("mcp_servers.shop: Sign in to read your notes")
        child.expect(URL)
        url = child.match.group(1)
        child.expect_exact("the server tells lait and the call is retried")
        child.expect_exact("continue? [Y(es: I open it)/n(o: decline)/c(ancel)] ")
        child.sendline("")
        child.expect_exact("waiting for the server to report that you are done")
        assert "done" in visit(url)
        code, out = finish(child)
    finally:
        child.close(force=True)
    assert code == 0, out
    assert "note: buy milk" in out
    assert running_with_marker(marker) == []


def test_url_required_cancelled_is_a_clear_error(lait: Lait) -> None:
    configure(lait, uuid.uuid4().hex)
    child = spawn(lait, "mcp", "call", "shop", "private_note")
    try:
        child.expect(URL)
        url = child.match.group(1)
        child.expect_exact("continue? ")
        child.sendline("c")
        code, out = finish(child)
    finally:
        child.close(force=True)
    assert code == 1
    assert (
        f"lait: MCP server 'shop': calling tool 'private_note' needs you to open {url} (Sign in to read "
        "your notes); the request was cancelled"
    ) in out
    assert "Traceback" not in out


def test_url_required_without_a_terminal_names_the_url(lait: Lait) -> None:
    configure(lait, uuid.uuid4().hex)
    run = lait("mcp", "call", "shop", "private_note", timeout=60)
    assert (run.returncode, run.stdout) == (1, "")
    assert re.fullmatch(
        r"lait: MCP server 'shop': calling tool 'private_note' needs you to open "
        r"http://127\.0\.0\.1:\d+/done/sign-in \(Sign in to read your notes\); the request was declined\n",
        run.stderr.splitlines(keepends=True)[-1],
    ), run.stderr
    configure(lait, uuid.uuid4().hex, allow_elicitation=False)
    run = lait("mcp", "call", "shop", "private_note", timeout=60)
    assert run.returncode == 1
    assert "the request was declined: 'mcp_servers.shop.allow_elicitation' is false" in run.stderr


def test_url_mode_elicitation_during_a_call(lait: Lait) -> None:
    configure(lait, uuid.uuid4().hex)
    child = spawn(lait, "mcp", "call", "shop", "open_page")
    try:
        child.expect_exact("mcp_servers.shop: Confirm the order on the shop's page")
        child.expect(URL)
        url = child.match.group(1)
        child.expect_exact("the server continues when you are done there")
        child.sendline("y")
        visit(url)
        code, out = finish(child)
    finally:
        child.close(force=True)
    assert code == 0, out
    assert "page visited" in out


def test_choice_form_field_by_field(lait: Lait) -> None:
    configure(lait, uuid.uuid4().hex)
    child = spawn(lait, "mcp", "call", "shop", "choose")
    try:
        child.expect_exact(
            '  - size (required): one of Small (s), Medium (m), Large (l) — Size (default: "m")'
        )
        child.expect_exact('  - toppings: any of Ham (ham), Olives (olive) — Toppings (default: ["olive"])')
        child.expect_exact("press Enter to fill in the form: ")
        child.sendline("")
        child.expect_exact(
            "    1) Small (s)\r\n    2) Medium (m)\r\n    3) Large (l)\r\n  size (required) [m]: "
        )
        child.sendline("large")
        child.expect_exact("  toppings (numbers or values, separated by commas) [olive]: ")
        child.sendline("3")
        child.expect_exact("'3' is not one of the choices")
        child.sendline("1, olive")
        child.expect_exact("  note [none]: ")
        child.sendline("")
        child.expect_exact('  answer: {"size": "l", "toppings": ["ham", "olive"], "note": "none"}')
        child.sendline("")
        code, out = finish(child)
    finally:
        child.close(force=True)
    assert code == 0, out
    assert '{"note": "none", "size": "l", "toppings": ["ham", "olive"]}' in out
