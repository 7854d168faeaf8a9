"""One scenario of the official MCP conformance suite (``@modelcontextprotocol/conformance``
0.1.16, installed by .ci/install-mcp-conformance) kept running while a test drives a client
against it: the suite's interactive mode (``client --scenario NAME`` without ``--command``)
serves the scenario's MCP server and authorization server until SIGTERM, then prints its checks
as JSON (``--verbose``)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.serve.peers import CONFORMANCE, node, script


@dataclass
class Scenario:
    name: str
    url: str
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)

    def problems(self) -> list[str]:
        """The checks that did not pass (failures and warnings)."""
        return [
            f"{c.get('id')}: {c.get('status')}: {c.get('description')}"
            for c in self.checks
            if c.get("status") in ("FAILURE", "WARNING")
        ]

    def ids(self) -> set[str]:
        return {str(c.get("id")) for c in self.checks if c.get("status") == "SUCCESS"}


def _read(process: subprocess.Popen[str], lines: list[str], ready: threading.Event) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        lines.append(line)
        if line.startswith("Server URL: "):
            ready.set()
    ready.set()


@contextlib.contextmanager
def scenario(name: str, env: dict[str, str] | None = None) -> Iterator[Scenario]:
    """Start scenario ``name``; on exit stop it and parse its checks into ``Scenario.checks``."""
    process = subprocess.Popen(
        [node(), script(CONFORMANCE), "client", "--scenario", name, "--verbose"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        env={**os.environ, **(env or {})},
    )
    lines: list[str] = []
    ready = threading.Event()
    reader = threading.Thread(target=_read, args=(process, lines, ready), daemon=True)
    reader.start()
    try:
        assert ready.wait(60), "the conformance suite did not start its scenario server"
        urls = [line.split(": ", 1)[1].strip() for line in lines if line.startswith("Server URL: ")]
        assert urls, "".join(lines)
        found = Scenario(name, urls[0], process, lines)
        yield found
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        reader.join(10)
    text = "".join(lines)
    at = text.find("Checks:")
    start = text.find("[", at)
    if at != -1 and start != -1:
        decoder = json.JSONDecoder()
        with contextlib.suppress(ValueError):
            found.checks = decoder.raw_decode(text[start:])[0]
