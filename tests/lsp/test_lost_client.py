"""The editor goes away before ``exit`` (lait_ls.lost_client): its end of stdout closed while the
server still writes, stdin closed, both at once (an editor killed), both right after ``shutdown``
(before its answer), and a socket for both ways reset by the client. Each time with a run in flight
(a tool whose shell waits on two ``sleep 300``) and a long workflow being linted: the server exits
within the test's limit (a hang fails), logs one line and no traceback, exits with status 1 (0 when
``shutdown`` came first), and no process it started is left. Real subprocess, real pipes, a real
scripted model server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.processes import running_with_marker

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "lait_ls.server"]
EXIT_LIMIT = 20.0
"""Seconds the server gets to exit once the client is gone (generous: a loaded machine)."""
LOST_LINE = b"the editor closed the connection"
AGENT = "---\nname: waiter\ntools: [slow]\n---\nWait.\n"


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def project(root: Path, llm: ScriptedOpenAIServer) -> tuple[Path, Path, str]:
    """The config (a scripted model, the tool ``slow``), the agent that calls it, a long workflow."""
    (root / "lait.config.yml").write_text(
        f"""default:
  model: test-model
models:
  test-model:
    - provider: {{base_url: "{llm.url}"}}
      model_id: scripted
tools:
  slow:
    command: [sh, -c, 'sleep 300 & sleep 300; wait']
""",
        encoding="utf-8",
    )
    agent = root / "waiter.md"
    agent.write_text(AGENT, encoding="utf-8")
    flow = root / "long.yml"
    steps = "".join(f"  - id: s{i}\n    run: echo {i}\n    when: '$inputs.n > {i}'\n" for i in range(3000))
    long_text = "inputs:\n  n: {type: number}\nsteps:\n" + steps
    flow.write_text(long_text, encoding="utf-8")
    return agent, flow, long_text


class Pipes:
    """The client's ends of the server's stdin and stdout (raw fds, read without blocking)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.stdin: int | None = proc.stdin.fileno()
        self.stdout: int | None = proc.stdout.fileno()
        os.set_blocking(self.stdout, False)
        self.received = b""

    def send(self, message: dict[str, Any]) -> None:
        assert self.stdin is not None
        os.write(self.stdin, frame(message))

    def pump(self) -> None:
        if self.stdout is None:
            return
        while select.select([self.stdout], [], [], 0)[0]:
            try:
                chunk = os.read(self.stdout, 65536)
            except BlockingIOError:
                return
            if not chunk:
                return
            self.received += chunk

    def close_stdin(self) -> None:
        if self.stdin is not None:
            os.close(self.stdin)
            self.stdin = None

    def close_stdout(self) -> None:
        if self.stdout is not None:
            os.close(self.stdout)
            self.stdout = None


class SocketEnds:
    """One TCP connection on 127.0.0.1 for both ways (the server gets the same socket as stdin and
    stdout, so pygls's reader serves it)."""

    def __init__(self) -> None:
        with socket.create_server(("127.0.0.1", 0)) as listener:
            self.client = socket.create_connection(listener.getsockname())
            self.server, _ = listener.accept()
        self.client.setblocking(False)
        self.received = b""
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        self.client.setblocking(True)
        self.client.sendall(frame(message))
        self.client.setblocking(False)

    def pump(self) -> None:
        while not self.closed:
            try:
                chunk = self.client.recv(65536)
            except BlockingIOError:
                return
            if not chunk:
                return
            self.received += chunk

    def reset(self) -> None:
        """Close with a TCP reset (SO_LINGER 0), as when the editor's process dies."""
        self.client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.client.close()
        self.closed = True


def wait_for(pump: Callable[[], None], predicate: Callable[[], bool], limit: float) -> bool:
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            return False
        pump()
        time.sleep(0.05)
    return True


def children(marker: str, server: subprocess.Popen[bytes]) -> list[int]:
    return [pid for pid in running_with_marker(marker) if pid != server.pid]


def answered(received: bytes, request_id: int) -> bool:
    """Whether the whole messages in ``received`` hold the answer to ``request_id``."""
    while b"\r\n\r\n" in received:
        header, _, rest = received.partition(b"\r\n\r\n")
        length = next(
            int(v) for k, _, v in (h.partition(b":") for h in header.split(b"\r\n")) if k == b"Content-Length"
        )
        if len(rest) < length:
            return False
        message = json.loads(rest[:length])
        if message.get("id") == request_id and "method" not in message:
            return True
        received = rest[length:]
    return False


REASONS = {
    "stdout closed": b"broken pipe",
    "stdin closed": b"end of input",
    "socket reset": b"connection reset",
}
"""What the log line says (closing both ends: whichever the server meets first)."""
WAYS = ["stdout closed", "stdin closed", "both closed", "shutdown, then both closed", "socket reset"]


@pytest.mark.parametrize("way", WAYS)
def test_a_lost_client_ends_the_server_its_run_and_its_lint(tmp_path: Path, way: str) -> None:
    marker = uuid.uuid4().hex
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "LAIT_TEST_MARKER": marker,
    }
    log = tmp_path / "server.log"
    with ScriptedOpenAIServer() as llm, log.open("wb") as stderr:
        agent, flow, long_text = project(tmp_path, llm)
        llm.push(tool_calls(call("tool__slow", {}, id="c1")), text("never sent"))
        ends: Pipes | SocketEnds
        if way == "socket reset":
            sock = SocketEnds()
            server = subprocess.Popen(
                SERVER, stdin=sock.server, stdout=sock.server, stderr=stderr, env=env, cwd=tmp_path
            )
            sock.server.close()
            ends = sock
        else:
            server = subprocess.Popen(
                SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=tmp_path
            )
            ends = Pipes(server)
        try:
            ends.send(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "capabilities": {},
                        "rootUri": tmp_path.as_uri(),
                        "initializationOptions": {"debounce": 0, "approveTools": "never"},
                    },
                }
            )
            assert wait_for(ends.pump, lambda: answered(ends.received, 1), 60), ends.received[-500:]
            ends.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            run = {"uri": agent.as_uri(), "kind": "agent", "prompt": "wait", "runId": "r1"}
            ends.send({"jsonrpc": "2.0", "id": 2, "method": "lait/run", "params": run})
            assert wait_for(ends.pump, lambda: len(children(marker, server)) == 3, 60), (
                children(marker, server),
                log.read_text(errors="replace")[-2000:],
            )  # sh and its two sleeps
            started = children(marker, server)
            opened = {"uri": flow.as_uri(), "languageId": "yaml", "version": 1, "text": long_text}
            ends.send(
                {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": opened}}
            )
            # the client goes away
            if isinstance(ends, SocketEnds):
                ends.reset()
            elif way == "stdout closed":
                ends.close_stdout()  # the server still gets requests, and fails to answer them
                hover = {"textDocument": {"uri": flow.as_uri()}, "position": {"line": 3, "character": 8}}
                ends.send({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": hover})
            elif way == "stdin closed":
                ends.close_stdin()  # stdout is still read (pumped while waiting below)
            else:
                if way.startswith("shutdown"):
                    ends.send({"jsonrpc": "2.0", "id": 4, "method": "shutdown"})
                ends.close_stdin()
                ends.close_stdout()
            deadline = time.monotonic() + EXIT_LIMIT
            while server.poll() is None and time.monotonic() < deadline:
                ends.pump()
                time.sleep(0.05)
            assert server.poll() is not None, f"lait-ls still runs {EXIT_LIMIT} s after the client went away"
        finally:
            if server.poll() is None:
                server.kill()
            server.wait()
            for pid in children(marker, server):
                os.kill(pid, 9)
        stderr_text = log.read_bytes()
        assert b"Traceback" not in stderr_text, stderr_text.decode(errors="replace")
        assert stderr_text.count(LOST_LINE) == 1, stderr_text.decode(errors="replace")
        why = REASONS.get(way)
        assert why is None or LOST_LINE + b" (" + why + b"); exiting" in stderr_text, stderr_text
        # LSP's rule for exit: 0 after shutdown, else 1
        assert server.returncode == (0 if way.startswith("shutdown") else 1), stderr_text.decode(
            errors="replace"
        )
        # nothing it started runs on (the run's sh and sleeps: killed and reaped, or reaped by init)
        assert wait_for(lambda: None, lambda: children(marker, server) == [], 10), (
            started,
            children(marker, server),
        )
