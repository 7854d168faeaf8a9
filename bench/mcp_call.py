#!/usr/bin/env python3
"""Benchmark: sequential MCP ``tools/call`` through lait's client against the bare ``mcp`` SDK.

Both clients talk to the same server program, @modelcontextprotocol/server-everything (pinned in
``tests/peers/npm``), in the same process and the same run, and call its ``get-sum`` tool
``--calls`` times in a row (default 200):

* **lait**: ``McpPool(...).source("everything").call(tool, arguments_json, ctx)`` -- the path a
  model's tool call takes: ``allowed_tools`` check, argument parsing, the connection's owner task,
  result rendering.
* **bare**: ``mcp.ClientSession.call_tool("get-sum", {...})`` over the SDK's own transport
  (``stdio_client`` / ``streamable_http_client``), taking ``content[0].text``.

Over stdio each client has its own server process (the same command); over HTTP both talk to one
server on 127.0.0.1 (each with its own MCP session). Connection, initialize and tools/list happen
before the clock starts; ``--warmup`` untimed calls follow. Then ``--runs`` trials alternate which
client goes first. Every result is checked ("The sum of i and 1 is i+1."). The script reports the
median and minimum wall time per trial, CPU time of this process (``time.process_time``), and the
ratio lait / bare of the medians. Target: **ratio <= 1.1**; the exit status is 1 when it is missed.

    python3 bench/mcp_call.py                      # stdio and HTTP, 200 calls, 7 runs
    python3 bench/mcp_call.py --transport stdio --calls 500 --runs 11

The JSON goes to ``bench/.out/mcp_call.json`` (gitignored).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

NPM_DIR = REPO / "tests" / "peers" / "npm"
EVERYTHING_JS = NPM_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
LOOPBACK = NPM_DIR / "loopback.mjs"
OUT = REPO / "bench" / ".out" / "mcp_call.json"
TARGET = 1.1

Trial = Callable[[int], Awaitable[None]]


def ensure_peer() -> None:
    if not EVERYTHING_JS.is_file():
        print(f"installing the npm peer: npm ci --prefix {NPM_DIR}", file=sys.stderr)
        subprocess.run(
            ["npm", "ci", "--prefix", str(NPM_DIR), "--no-audit", "--no-fund", "--loglevel=error"], check=True
        )


def expected(i: int) -> str:
    return f"The sum of {i} and 1 is {i + 1}."


# -- the HTTP server -----------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_http_server(log: TextIO) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        ["node", "--import", LOOPBACK.as_uri(), str(EVERYTHING_JS), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server-everything (HTTP) exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc, f"http://127.0.0.1:{port}/mcp"
        time.sleep(0.05)
    stop(proc)
    raise SystemExit("server-everything (HTTP) did not start listening within 30 s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=5)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


# -- the two clients -------------------------------------------------------------------------------
async def open_lait(stack: AsyncExitStack, entry: dict[str, Any], log: TextIO) -> Trial:
    from lait_core.documents.document_models import McpServerConfig
    from lait_core.engine.run.interaction import HeadlessInteraction
    from lait_core.engine.tools.base import CallContext
    from lait_core.engine.tools.mcp_tools import McpPool

    pool = McpPool({"everything": McpServerConfig.model_validate(entry)}, base_dir=REPO, stderr=log)
    stack.push_async_callback(pool.aclose)
    source = pool.source("everything")
    tool = next(t for t in await source.list_tools() if t.name == "get-sum")
    ctx = CallContext(HeadlessInteraction("allow"), call_id="bench")

    async def trial(n: int) -> None:
        for i in range(n):
            result = await source.call(tool, json.dumps({"a": i, "b": 1}), ctx)
            if result.text != expected(i):
                raise SystemExit(f"lait: unexpected result {result.text!r}")

    return trial


async def open_bare(stack: AsyncExitStack, entry: dict[str, Any], log: TextIO) -> Trial:
    import mcp.types as types
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from mcp.client.session import ClientRequestContext

    if "url" in entry:
        from mcp.client.streamable_http import streamable_http_client

        streams = await stack.enter_async_context(streamable_http_client(entry["url"]))
        read, write = streams[0], streams[1]
    else:
        params = StdioServerParameters(command=entry["command"], args=entry["args"])
        read, write = await stack.enter_async_context(stdio_client(params, errlog=log))

    async def decline(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")  # advertises elicitation, as lait's client does

    session = await stack.enter_async_context(ClientSession(read, write, elicitation_callback=decline))
    await session.initialize()
    await session.list_tools()

    async def trial(n: int) -> None:
        for i in range(n):
            result = await session.call_tool("get-sum", {"a": i, "b": 1})
            text = getattr(result.content[0], "text", None)
            if text != expected(i):
                raise SystemExit(f"bare: unexpected result {text!r}")

    return trial


# -- measuring -------------------------------------------------------------------------------------
@dataclass
class Series:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        return {
            "median_s": statistics.median(self.wall),
            "min_s": min(self.wall),
            "cpu_median_s": statistics.median(self.cpu),
        }


async def measure(kind: str, entry: dict[str, Any], args: argparse.Namespace, log: TextIO) -> dict[str, Any]:
    async with AsyncExitStack() as stack:
        clients = {
            "bare": await open_bare(stack, entry, log),
            "lait": await open_lait(stack, entry, log),
        }
        for run in clients.values():
            await run(args.warmup)
        series = {name: Series() for name in clients}
        for r in range(args.runs):
            order = ["lait", "bare"] if r % 2 == 0 else ["bare", "lait"]
            for name in order:
                cpu0, t0 = time.process_time(), time.perf_counter()
                await clients[name](args.calls)
                series[name].wall.append(time.perf_counter() - t0)
                series[name].cpu.append(time.process_time() - cpu0)
    lait, bare = series["lait"].summary(), series["bare"].summary()
    return {
        "transport": kind,
        "calls": args.calls,
        "runs": args.runs,
        "lait": {**lait, "wall_s": series["lait"].wall, "cpu_s": series["lait"].cpu},
        "bare": {**bare, "wall_s": series["bare"].wall, "cpu_s": series["bare"].cpu},
        "ratio": lait["median_s"] / bare["median_s"],
        "cpu_ratio": lait["cpu_median_s"] / bare["cpu_median_s"],
    }


def table(results: list[dict[str, Any]]) -> str:
    rows = [
        "| transport | calls | lait median (min) | bare median (min) | per call lait / bare | CPU lait / bare "
        "| **ratio** |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lait, bare, n = r["lait"], r["bare"], r["calls"]
        rows.append(
            f"| {r['transport']} | {n} | {lait['median_s'] * 1e3:.1f} ms ({lait['min_s'] * 1e3:.1f}) "
            f"| {bare['median_s'] * 1e3:.1f} ms ({bare['min_s'] * 1e3:.1f}) "
            f"| {lait['median_s'] / n * 1e3:.3f} / {bare['median_s'] / n * 1e3:.3f} ms "
            f"| {lait['cpu_median_s'] * 1e3:.1f} / {bare['cpu_median_s'] * 1e3:.1f} ms "
            f"| **{r['ratio']:.3f}** |"
        )
    return "\n".join(rows)


def versions() -> dict[str, str]:
    from importlib.metadata import version

    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    return {"python": platform.python_version(), "mcp": version("mcp"), "node": node}


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    results = []
    with open(os.devnull, "w") as log:
        for kind in args.transport:
            if kind == "stdio":
                entry = {"command": "node", "args": [str(EVERYTHING_JS), "stdio"]}
                results.append(await measure(kind, entry, args, log))
            else:
                proc, url = start_http_server(log)
                try:
                    results.append(await measure(kind, {"url": url}, args, log))
                finally:
                    stop(proc)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=200, help="tools/call per trial (default 200)")
    parser.add_argument("--runs", type=int, default=7, help="timed trials per client (default 7)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed calls per client first (default 20)")
    parser.add_argument("--transport", nargs="+", choices=["stdio", "http"], default=["stdio", "http"])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    ensure_peer()
    load_before = os.getloadavg()[0]
    results = asyncio.run(main_async(args))
    load_after = os.getloadavg()[0]
    print(table(results))
    print(f"\nload average (1 min): {load_before:.2f} -> {load_after:.2f}; target ratio <= {TARGET}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "results": results,
        "target": TARGET,
        "versions": versions(),
        "cpus": os.cpu_count(),
        "load_before": load_before,
        "load_after": load_after,
    }
    args.out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0 if all(r["ratio"] <= TARGET for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
