"""`lait serve --mcp --http`: loopback binding, DNS-rebinding protection, `--allowed-host`, the
bearer token of `--token-env` (a canary: it never shows in output), any request path, the body
limit, and several concurrent client sessions each answered by its own person."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.run.interaction import ElicitationResult
from lait_core.engine.tools.mcp_tools import McpPool
from tests.serve.conftest import LIMITS, Driver, HttpServer, Person, serve_env, start_http

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def _post(url: str, *, headers: dict[str, str] | None = None, body: bytes | None = None) -> httpx.Response:
    data = body if body is not None else json.dumps(INIT).encode()
    return httpx.post(url, content=data, headers={**HEADERS, **(headers or {})}, timeout=30)


def test_host_origin_path_and_body_limit(http_server: HttpServer) -> None:
    url = http_server.url
    assert url.startswith("http://127.0.0.1:")
    port = url.split(":")[2].split("/")[0]
    assert _post(url).status_code == 200
    assert _post(url.replace("/mcp", "/anything/else")).status_code == 200  # the path is ignored
    assert _post(url, headers={"host": f"localhost:{port}"}).status_code == 200
    assert _post(url, headers={"host": f"evil.example:{port}"}).status_code == 421
    assert _post(url, headers={"origin": "http://evil.example"}).status_code == 403
    assert _post(url, headers={"origin": f"http://localhost:{port}"}).status_code == 200
    assert _post(url, body=b" " * (16 * 1024 * 1024 + 10)).status_code == 413


def test_allowed_host_and_token(project: Path, tmp_path: Path, marker: str) -> None:
    canary = "canary-7f3e9b2c41d8a6"
    env = serve_env(tmp_path, marker, SERVE_TOKEN=canary)
    server = start_http(project, env, "--allowed-host", "lait.test", "--token-env", "SERVE_TOKEN")
    try:
        url = server.url
        port = url.split(":")[2].split("/")[0]
        good = {"authorization": f"Bearer {canary}"}
        missing = _post(url)
        assert missing.status_code == 401
        assert canary not in missing.text
        assert _post(url, headers={"authorization": "Bearer wrong"}).status_code == 401
        assert _post(url, headers={"authorization": f"bearer {canary}x"}).status_code == 401
        assert _post(url, headers=good).status_code == 200
        assert _post(url, headers={**good, "host": f"lait.test:{port}"}).status_code == 200
        assert _post(url, headers={**good, "host": f"other.test:{port}"}).status_code == 421
    finally:
        stderr = server.stop()
    assert canary not in stderr


async def test_concurrent_sessions_each_reach_their_own_person(
    http_server: HttpServer, project: Path
) -> None:
    drivers = [
        Driver(
            McpPool(
                {"lait": McpServerConfig(url=http_server.url, allow_elicitation=True)},
                base_dir=project,
                limits=LIMITS,
            )
        )
        for _ in range(3)
    ]
    try:
        people = [Person(ElicitationResult("accept", {"answer": a})) for a in ("yes", "no", "yes")]
        results = await asyncio.gather(
            *(d.call("workflow__ship", {"input": f"p{i}"}, people[i]) for i, d in enumerate(drivers))
        )
        assert [json.loads(r.text)["answer"] for r in results] == ["yes", "no", "yes"]
        assert [p.asked[0].message for p in people] == ["Ship p0?", "Ship p1?", "Ship p2?"]
    finally:
        for d in drivers:
            await d.pool.aclose()
