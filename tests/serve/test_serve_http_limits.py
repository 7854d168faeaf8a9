"""`lait serve --mcp --http` under hostile clients: a bounded header block (refused before any
token check could be reached, so it never buffers megabytes), a cap on open connections, one
session never replaying another's stream (event ids are random and per session), a non-loopback
address refused without a token, and a client that drops its stream mid-call not leaving the run
(or its `sleep 300`) going."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

import httpx

from tests.serve.conftest import HttpServer, serve_env, start_http
from tests.serve.test_serve_lifecycle import sleepers, wait_for

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def _address(url: str) -> tuple[str, int]:
    hostport = url.split("//", 1)[1].split("/", 1)[0]
    host, port = hostport.rsplit(":", 1)
    return host, int(port)


def _read_until_closed(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_oversized_header_block_is_refused_before_the_token(
    project: Path, tmp_path: Path, marker: str
) -> None:
    canary = "canary-hdr-51c0e7"
    server = start_http(
        project, serve_env(tmp_path, marker, SERVE_TOKEN=canary), "--token-env", "SERVE_TOKEN"
    )
    try:
        with socket.create_connection(_address(server.url), timeout=20) as sock:
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * (64 * 1024))
            answer = _read_until_closed(sock)  # the server answers and closes; it does not wait
        assert answer.startswith(b"HTTP/1.1 400")
        # a normal request still works
        ok = httpx.post(
            server.url,
            json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
            headers={**HEADERS, "authorization": f"Bearer {canary}"},
            timeout=30,
        )
        assert ok.status_code == 200
    finally:
        stderr = server.stop()
    assert canary not in stderr


def test_connections_beyond_the_cap_are_closed(http_server: HttpServer) -> None:
    from lait_core.serve.transports import MAX_CONNECTIONS

    address = _address(http_server.url)
    held = [socket.create_connection(address, timeout=20) for _ in range(MAX_CONNECTIONS)]
    try:
        # every held connection is accepted (each answers a request line fully sent later)
        with socket.create_connection(address, timeout=20) as extra:
            extra.sendall(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try:
                refused = _read_until_closed(extra) == b""
            except ConnectionResetError:
                refused = True
        assert refused
    finally:
        for sock in held:
            sock.close()
    # once they are gone the server serves again
    wait_for(
        lambda: (
            httpx.post(
                http_server.url,
                json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
                headers=HEADERS,
                timeout=30,
            ).status_code
            == 200
        ),
        "the server to accept connections again",
    )


def _session(http: httpx.Client, url: str) -> dict[str, str]:
    first = http.post(
        url, headers=HEADERS, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}
    )
    session = {"mcp-session-id": first.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    http.post(
        url, headers={**HEADERS, **session}, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
    )
    return session


def _event_ids(sse: str) -> list[str]:
    return [line[3:].strip() for line in sse.splitlines() if line.startswith("id:")]


def test_a_session_cannot_replay_another_sessions_stream(http_server: HttpServer) -> None:
    secret = "canary-stream-93af10"
    with httpx.Client(timeout=30) as http:
        alice = _session(http, http_server.url)
        call = {"name": "workflow__echo", "arguments": {"input": secret}}
        answer = http.post(
            http_server.url,
            headers={**HEADERS, **alice},
            json={"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call},
        )
        assert secret in answer.text
        ids = _event_ids(answer.text)
        assert ids and all(len(i) >= 16 and not i.isdigit() for i in ids)  # unguessable
        bob = _session(http, http_server.url)
        with http.stream(
            "GET", http_server.url, headers={**HEADERS, **bob, "last-event-id": ids[0]}, timeout=5
        ) as replay:
            seen = b""
            try:
                for chunk in replay.iter_bytes():
                    seen += chunk
            except httpx.ReadTimeout:
                pass
        assert secret.encode() not in seen
        # alice herself can resume her own stream
        with http.stream(
            "GET", http_server.url, headers={**HEADERS, **alice, "last-event-id": ids[0]}, timeout=5
        ) as replay:
            mine = b""
            try:
                for chunk in replay.iter_bytes():
                    mine += chunk
                    if secret.encode() in mine:
                        break
            except httpx.ReadTimeout:
                pass
        assert secret.encode() in mine


def test_non_loopback_address_needs_a_token(project: Path, tmp_path: Path, marker: str) -> None:
    env = serve_env(tmp_path, marker)
    done = subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "serve", "--mcp", "--http", "0.0.0.0:0"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert "--token-env" in done.stderr and "--insecure-no-token" in done.stderr
    assert "Traceback" not in done.stderr
    server = start_http(project, env, "--insecure-no-token")  # loopback: accepted, no warning
    assert "has no token" not in server.stop()


def test_dropped_stream_cancels_the_run_and_reaps_it(http_server: HttpServer, marker: str) -> None:
    with httpx.Client(timeout=60) as http:
        session = _session(http, http_server.url)
        body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "workflow__slow"}}
        body["params"]["arguments"] = {"input": "x"}  # type: ignore[index]
        opened = threading.Event()

        def stream() -> None:
            with (
                httpx.Client(timeout=60) as own,
                own.stream("POST", http_server.url, headers={**HEADERS, **session}, json=body) as r,
            ):
                opened.set()
                wait_for(lambda: sleepers(marker), "the run's child process")
                r.close()  # the client goes away mid-call without ending its session

        worker = threading.Thread(target=stream, daemon=True)
        worker.start()
        worker.join(60)
        assert opened.is_set()
        wait_for(lambda: not sleepers(marker), "the dropped run's child to be reaped", timeout=40)
        # the session and the server carry on
        again = http.post(
            http_server.url,
            headers={**HEADERS, **session},
            json={
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "workflow__echo", "arguments": {"input": "still here"}},
            },
        )
        assert json.dumps({"got": "still here"}, separators=(",", ":")).replace('"', '\\"') in again.text


def test_sessions_beyond_the_cap_are_refused_until_one_ends(http_server: HttpServer) -> None:
    from lait_core.serve.transports import MAX_SESSIONS

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}
    with httpx.Client(timeout=30) as http:
        opened = []
        for _ in range(MAX_SESSIONS):
            answer = http.post(http_server.url, headers=HEADERS, json=init)
            assert answer.status_code == 200
            opened.append(answer.headers["mcp-session-id"])
        refused = http.post(http_server.url, headers=HEADERS, json=init)
        assert refused.status_code == 503
        ended = http.delete(
            http_server.url, headers={"mcp-session-id": opened[0], "mcp-protocol-version": "2025-11-25"}
        )
        assert ended.status_code == 200
        assert http.post(http_server.url, headers=HEADERS, json=init).status_code == 200


def test_a_trickling_header_block_is_cut_off(http_server: HttpServer) -> None:
    """A client that never finishes its header block is disconnected after HEADER_SECONDS, so a
    few such clients cannot hold every connection slot."""
    with socket.create_connection(_address(http_server.url), timeout=60) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        try:
            closed = _read_until_closed(sock) == b""
        except ConnectionResetError:
            closed = True
    assert closed


def test_a_spoofed_loopback_host_gets_nothing_from_an_all_interfaces_bind(
    project: Path, tmp_path: Path, marker: str
) -> None:
    """Bound to every interface (``0.0.0.0``, reached here over loopback), a request claiming
    ``Host: 127.0.0.1`` passes the Host check, which only defends browsers against DNS rebinding: it is
    the token that keeps it out. Without the token: 401 and no session; with it: served."""
    canary = "lait-canary-" + marker[:12]
    server = start_http(
        project,
        serve_env(tmp_path, marker, SERVE_TOKEN=canary),
        "--http",
        "0.0.0.0:0",
        "--token-env",
        "SERVE_TOKEN",
    )
    try:
        port = _address(server.url)[1]
        url = f"http://127.0.0.1:{port}/mcp"
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}
        spoofed = {**HEADERS, "host": f"127.0.0.1:{port}"}
        with httpx.Client(timeout=30) as http:
            refused = http.post(url, headers=spoofed, json=body)
            assert refused.status_code == 401
            assert "mcp-session-id" not in refused.headers
            served = http.post(url, headers={**spoofed, "authorization": f"Bearer {canary}"}, json=body)
            assert served.status_code == 200, served.text
            assert served.headers.get("mcp-session-id")
    finally:
        log = server.stop()
    assert canary not in log
