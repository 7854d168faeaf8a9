"""A served run ends with its request: `notifications/cancelled`, a client that goes away
(stdin closed; HTTP session ended) or SIGTERM cancel it, and no process is left -- neither the
server nor what the run started (`sleep 300` here)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import mcp_types as types
from mcp.client import Client

from tests.processes import running_with_marker
from tests.serve.conftest import HttpServer, serve_env


def sleepers(marker: str) -> list[int]:
    found = []
    for pid in running_with_marker(marker):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0] == b"sleep":
            found.append(pid)
    return found


def wait_for(check: object, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def async_wait_for(check: object, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def test_cancelled_request_cancels_the_run(http_server: HttpServer, marker: str) -> None:
    for mode in ("legacy", "auto"):
        async with Client(http_server.url, mode=mode) as client:  # type: ignore[arg-type]
            call = asyncio.ensure_future(client.call_tool("workflow__slow", {"input": "x"}))
            await async_wait_for(lambda: sleepers(marker), "the run's child process")
            call.cancel()
            await asyncio.gather(call, return_exceptions=True)
            await async_wait_for(lambda: not sleepers(marker), "the child to be reaped")
            # the server carries on
            result = await client.call_tool("workflow__echo", {"input": "still here"})
            assert json.loads(result.content[0].text) == {"got": "still here"}  # type: ignore[union-attr]


def _line(message: dict[str, object]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def test_stdio_client_gone_mid_call_leaves_nothing(project: Path, tmp_path: Path, marker: str) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "serve", "--mcp"],
        cwd=project,
        env=serve_env(tmp_path, marker),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    process.stdin.write(_line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
    process.stdin.write(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    call = {"name": "workflow__slow", "arguments": {"input": "x"}}
    process.stdin.write(_line({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}))
    process.stdin.flush()
    reply = json.loads(process.stdout.readline())
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "lait"
    wait_for(lambda: sleepers(marker), "the run's child process")
    # the client goes away mid-call: nobody writes stdin or reads stdout any more (a client that
    # only closes stdin still gets its answers: the next tests)
    process.stdin.close()
    process.stdout.close()
    assert process.wait(30) == 0
    stderr = process.stderr.read().decode() if process.stderr else ""
    assert "Traceback" not in stderr
    assert running_with_marker(marker) == []


def _serve_piped(
    project: Path, env: dict[str, str], messages: list[dict[str, object]], *args: str
) -> tuple[list[dict[str, object]], int, str]:
    """Write every message to a real `lait serve --mcp` and close its stdin at once, before the
    server has read anything (the `printf ... | lait serve --mcp` case); return what it wrote."""
    process = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "serve", "--mcp", *args],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = process.communicate(b"".join(_line(m) for m in messages), timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    return [json.loads(line) for line in out.splitlines()], process.returncode, err.decode()


def _answers(output: list[dict[str, object]]) -> dict[object, list[dict[str, object]]]:
    found: dict[object, list[dict[str, object]]] = {}
    for message in output:
        if "method" not in message:
            found.setdefault(message["id"], []).append(message)
    return found


def test_stdio_requests_read_before_stdin_ends_are_answered(
    project: Path, tmp_path: Path, marker: str
) -> None:
    """Every request written before stdin's end gets its answer, runs finished; a run that asks
    the person fails at once (its elicitation can never be answered); then the server exits 0."""
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "t", "version": "1"},
    }
    messages: list[dict[str, object]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "workflow__echo", "arguments": {"input": "hi"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "workflow__ship", "arguments": {"input": "v1"}},
        },
        {"jsonrpc": "2.0", "id": 5, "method": "ping"},
    ]
    output, code, stderr = _serve_piped(project, serve_env(tmp_path, marker), messages)
    answers = _answers(output)
    assert sorted(answers, key=str) == [1, 2, 3, 4, 5], output
    assert all(len(a) == 1 for a in answers.values()), output
    assert answers[1][0]["result"]["serverInfo"]["name"] == "lait"  # type: ignore[index]
    listed = [t["name"] for t in answers[2][0]["result"]["tools"]]  # type: ignore[index]
    assert "workflow__echo" in listed and "workflow__ship" in listed
    echo = answers[3][0]["result"]
    assert echo["isError"] is False and json.loads(echo["content"][0]["text"]) == {"got": "hi"}  # type: ignore[index]
    ship = answers[4][0]["result"]
    assert ship["isError"] is True  # type: ignore[index]
    assert "stdin is closed, so the client can no longer answer" in ship["content"][0]["text"]  # type: ignore[index]
    assert answers[5][0] == {"jsonrpc": "2.0", "id": 5, "result": {}}
    assert code == 0, stderr
    assert "Traceback" not in stderr
    assert running_with_marker(marker) == []


def test_stdio_run_still_going_after_the_drain_is_cancelled_with_an_error(
    project: Path, tmp_path: Path, marker: str
) -> None:
    """A run that outlasts --drain-timeout after stdin's end is cancelled (its `sleep 300` reaped)
    and its request gets a JSON-RPC error saying why; the server exits 0."""
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    messages: list[dict[str, object]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "workflow__slow", "arguments": {"input": "x"}},
        },
    ]
    output, code, stderr = _serve_piped(
        project, serve_env(tmp_path, marker), messages, "--drain-timeout", "0.5"
    )
    answers = _answers(output)
    assert sorted(answers, key=str) == [1, 2], output
    error = answers[2][0]["error"]
    assert error["code"] == types.CONNECTION_CLOSED  # type: ignore[index]
    assert error["message"].startswith("lait serve: stdin closed and the call was still running 0.5 s later")  # type: ignore[index]
    assert code == 0, stderr
    assert "Traceback" not in stderr
    assert running_with_marker(marker) == []


def test_sigterm_mid_call_leaves_nothing(http_server: HttpServer, marker: str) -> None:
    async def start_call() -> None:
        async with Client(http_server.url, mode="legacy") as client:
            call = asyncio.ensure_future(client.call_tool("workflow__slow", {"input": "x"}))
            await async_wait_for(lambda: sleepers(marker), "the run's child process")
            os.kill(http_server.process.pid, signal.SIGTERM)
            await asyncio.gather(call, return_exceptions=True)

    asyncio.run(start_call())
    assert http_server.process.wait(30) == 0
    assert "Traceback" not in http_server.stderr
    wait_for(lambda: running_with_marker(marker) == [], "every process to end", 15)


async def test_parked_run_is_cancelled_when_the_server_stops(http_server: HttpServer, marker: str) -> None:
    async def never(context: object, params: object) -> types.ElicitResult:
        raise AssertionError("not reached")

    async with Client(http_server.url, elicitation_callback=never) as client:
        first = await client.session.call_tool("workflow__ship", {"input": "a"}, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
    http_server.process.terminate()
    assert http_server.process.wait(30) == 0
    assert "Traceback" not in http_server.stderr


def test_stdio_frame_limit(project: Path, tmp_path: Path, marker: str) -> None:
    """A line over 16 MiB is dropped (with a note on stderr; the SDK answers no unparsable line);
    the server carries on."""
    process = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "serve", "--mcp"],
        cwd=project,
        env=serve_env(tmp_path, marker),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    process.stdin.write(_line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
    process.stdin.write(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    big = {"name": "workflow__echo", "arguments": {"input": "x" * (17 * 1024 * 1024)}}
    process.stdin.write(_line({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": big}))
    process.stdin.write(_line({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
    process.stdin.flush()
    replies = [json.loads(process.stdout.readline()) for _ in range(2)]
    assert replies[0]["id"] == 1
    assert replies[1] == {"jsonrpc": "2.0", "id": 3, "result": {}}
    process.stdin.close()
    assert process.wait(30) == 0
    stderr = process.stderr.read().decode() if process.stderr else ""
    assert "dropped a message larger than 16777216 bytes" in stderr


def test_http_session_ended_mid_call_cancels_the_run(http_server: HttpServer, marker: str) -> None:
    """The client ending its session (DELETE, what SDK clients do on close) cancels its runs at
    once (a dropped stream gets a short grace to be resumed: test_serve_http_limits.py)."""
    import threading

    import httpx

    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    with httpx.Client(timeout=60) as http:
        first = http.post(
            http_server.url,
            headers=headers,
            json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        )
        session = {"mcp-session-id": first.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        http.post(
            http_server.url,
            headers={**headers, **session},
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        )
        call = {"name": "workflow__slow", "arguments": {"input": "x"}}
        body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}

        def stream() -> None:
            try:
                with httpx.stream(
                    "POST", http_server.url, headers={**headers, **session}, json=body, timeout=60
                ) as r:
                    for _ in r.iter_lines():
                        pass
            except httpx.HTTPError:
                pass

        worker = threading.Thread(target=stream, daemon=True)
        worker.start()
        wait_for(lambda: sleepers(marker), "the run's child process")
        assert http.delete(http_server.url, headers=session).status_code == 200
        wait_for(lambda: not sleepers(marker), "the child to be reaped")
        worker.join(30)
