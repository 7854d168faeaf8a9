"""lait as the client under test of the MCP conformance suite's client scenarios.

The suite runs ``<command> <server URL>`` with ``MCP_CONFORMANCE_SCENARIO`` (and, for some auth
scenarios, ``MCP_CONFORMANCE_CONTEXT``, a JSON object) in the environment. This script writes a
``lait.config.yml`` with one server ``peer`` (the URL; ``allow_elicitation: true``; whatever
:func:`server_entry` adds for the scenario) in a fresh temporary folder, then runs the real CLI
there: ``lait mcp call peer TOOL JSON --json`` for each call :data:`CALLS` names for the scenario
(``lait mcp tools peer --json`` when it names none). Form elicitation is answered through the
terminal form on a pseudo-terminal with every field left at its default (Enter), which is what
``elicitation-sep1034-client-defaults`` checks.

Exit status: the first failing lait command's (the suite records it), else 0. lait's output is
copied to this script's stdout/stderr (the suite saves them next to ``checks.json``).

Extend it for a scenario by adding its calls to :data:`CALLS` and its config to
:func:`server_entry` (the ``auth/*`` scenarios: an ``oauth:`` block from the context).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

CALLS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "initialize": [],
    "tools_call": [("add_numbers", {"a": 5, "b": 3})],
    "elicitation-sep1034-client-defaults": [("test_client_elicitation_defaults", {})],
    "sse-retry": [("test_reconnection", {})],
}
"""Scenario -> the tool calls to make, in order. Unlisted ``auth/*`` scenarios call ``test-tool``."""

ANSWER_WITH_DEFAULTS = {"elicitation-sep1034-client-defaults"}
"""Scenarios whose calls run on a pseudo-terminal where every form prompt is answered with Enter."""


def calls_for(scenario: str) -> list[tuple[str, dict[str, Any]]]:
    if scenario in CALLS:
        return CALLS[scenario]
    if scenario.startswith("auth/"):
        return [("test-tool", {})]
    return []


def server_entry(url: str, scenario: str, context: dict[str, Any]) -> dict[str, Any]:
    """The ``mcp_servers.peer`` entry for ``scenario``."""
    entry: dict[str, Any] = {"url": url, "allow_elicitation": True}
    return entry


def lait(folder: Path, *args: str, pty_defaults: bool = False) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "lait_cli.main", "--config", str(folder / "lait.config.yml"), *args]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    if pty_defaults:
        return _on_pty(argv, env, folder)
    return subprocess.run(
        argv, cwd=folder, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120
    )


def _on_pty(argv: list[str], env: dict[str, str], folder: Path) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` with a pseudo-terminal as stdin, pressing Enter whenever lait prompts (every
    prompt of the form ends without a newline); stdout and stderr are pipes."""
    import pty
    import select

    main, secondary = pty.openpty()
    proc = subprocess.Popen(
        argv, cwd=folder, env=env, stdin=secondary, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    os.close(secondary)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = bytearray(), bytearray()
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    try:
        while streams:
            ready, _, _ = select.select(list(streams), [], [], 60)
            if not ready:
                proc.kill()
                break
            for fd in ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    del streams[fd]
                    continue
                streams[fd] += chunk
                if fd == proc.stderr.fileno() and not chunk.endswith(b"\n"):
                    os.write(main, b"\n")
        code = proc.wait(timeout=60)
    finally:
        os.close(main)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(argv, code, out.decode(errors="replace"), err.decode(errors="replace"))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: lait_mcp_client.py SERVER_URL\n")
        return 2
    url = argv[0]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    with tempfile.TemporaryDirectory(prefix="lait-conformance-") as tmp:
        folder = Path(tmp)
        config = {"mcp_servers": {"peer": server_entry(url, scenario, context)}}
        (folder / "lait.config.yml").write_text(json.dumps(config), encoding="utf-8")
        calls = calls_for(scenario)
        runs = (
            [lait(folder, "mcp", "call", "peer", tool, json.dumps(args), "--json",
                  pty_defaults=scenario in ANSWER_WITH_DEFAULTS) for tool, args in calls]
            if calls
            else [lait(folder, "mcp", "tools", "peer", "--json")]
        )  # fmt: skip
        for done in runs:
            sys.stdout.write(done.stdout)
            sys.stderr.write(done.stderr)
        return next((d.returncode for d in runs if d.returncode != 0), 0)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
