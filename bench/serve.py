#!/usr/bin/env python3
"""Benchmark: the overhead of a workflow call served by ``lait serve --mcp`` against running the
same workflow in-process.

The workflow is one ``stop: true`` step (no model, no jq, no child process), so what is
measured is lait's own path. In the same run, alternating which side goes first, ``--runs`` trials of ``--calls``
sequential calls each:

* **in-process**: ``run_workflow`` in a fresh ``RunSession`` per call (what each served call does
  inside the server).
* **served**: lait's own MCP client (``McpPool``, the path a model's tool call takes) calling
  ``workflow__echo`` on a ``lait serve --mcp`` child over stdio (and, with ``--transport http``
  or ``both``, over streamable HTTP on 127.0.0.1), negotiated at 2026-07-28. Connection and
  ``tools/list`` happen before the clock starts; ``--warmup`` untimed calls follow.

Over stdio a third side gives the floor: the same client calling a bare low-level ``mcp`` SDK
server whose one tool echoes its input (what any Python MCP server costs per call on this
machine). Every result is checked. Prints the median time per call of each side, the overhead
(served - in-process) per call and lait serve's own share (overhead - floor); target: **overhead
<= 5 ms per call over stdio** (exit status 1 when it is missed). The JSON goes to ``bench/.out/serve.json`` (gitignored).

    python3 bench/serve.py                         # stdio, 200 calls, 7 runs
    python3 bench/serve.py --transport both --calls 100 --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

OUT = REPO / "bench" / ".out" / "serve.json"
TARGET_MS = 5.0
WORKFLOW = "description: Echo\nsteps:\n  - stop: true\n"
FLOOR_SERVER = """
import anyio, mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

async def tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="workflow__echo", input_schema={"type": "object"})])

async def call(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text=params.arguments["input"])])

server = Server("floor", on_list_tools=tools, on_call_tool=call)

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""


def project(root: Path) -> Path:
    (root / "lait.config.yml").write_text("workflows:\n  echo: echo.yml\n", encoding="utf-8")
    (root / "echo.yml").write_text(WORKFLOW, encoding="utf-8")
    return root


async def in_process(root: Path, calls: int) -> float:
    from lait_core.documents.config_file import ConfigMode, load_config
    from lait_core.engine.llm.client import ChatClient
    from lait_core.engine.run.interaction import HeadlessInteraction
    from lait_core.engine.run.run_session import RunSession
    from lait_core.engine.workflow import run_workflow

    config = load_config(ConfigMode.EXPLICIT, explicit=root / "lait.config.yml").config
    client = ChatClient()
    try:
        start = time.perf_counter()
        for i in range(calls):
            async with RunSession.open(
                config, root, HeadlessInteraction(record=False), client=client
            ) as session:
                result = await run_workflow(session, root / "echo.yml", prompt=f"p{i}")
            assert result.value == f"p{i}", result.value
        return time.perf_counter() - start
    finally:
        await client.aclose()


class Served:
    def __init__(self, root: Path, transport: str) -> None:
        self.root = root
        self.transport = transport
        self.process: subprocess.Popen[bytes] | None = None
        self.pool: Any = None
        self.tool: Any = None

    async def open(self) -> None:
        from lait_core.documents.document_models import McpServerConfig
        from lait_core.engine.tools.mcp_tools import McpPool

        env = {**os.environ, "PYTHONPATH": str(REPO)}
        if self.transport == "floor":
            (self.root / "floor.py").write_text(FLOOR_SERVER, encoding="utf-8")
            config = McpServerConfig(command=sys.executable, args=[str(self.root / "floor.py")])
        elif self.transport == "stdio":
            config = McpServerConfig(
                command=sys.executable,
                args=["-m", "lait_cli.main", "serve", "--mcp"],
                cwd=str(self.root),
                env={"PYTHONPATH": str(REPO)},
            )
        else:
            err = self.root / "serve.err"
            with err.open("wb") as fh:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "lait_cli.main", "serve", "--mcp", "--http", "127.0.0.1:0"],
                    cwd=self.root,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=fh,
                )
            url = None
            for _ in range(600):
                for line in err.read_text().splitlines():
                    if "ready at " in line:
                        url = line.split("ready at ", 1)[1].split(" ", 1)[0]
                if url:
                    break
                await asyncio.sleep(0.05)
            assert url, err.read_text()
            config = McpServerConfig(url=url)
        self.pool = McpPool({"lait": config}, base_dir=self.root)
        (self.tool,) = [t for t in await self.pool.source("lait").list_tools() if t.name == "workflow__echo"]

    async def calls(self, count: int) -> float:
        from lait_core.engine.run.interaction import HeadlessInteraction
        from lait_core.engine.tools.base import CallContext

        source = self.pool.source("lait")
        ctx = CallContext(HeadlessInteraction(record=False), "bench")
        start = time.perf_counter()
        for i in range(count):
            result = await source.call(self.tool, json.dumps({"input": f"p{i}"}), ctx)
            assert not result.is_error and result.text == f"p{i}", result
        return time.perf_counter() - start

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.aclose()
        if self.process is not None:
            self.process.terminate()
            self.process.wait(20)


async def bench(transport: str, calls: int, runs: int, warmup: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp))
        served = Served(root, transport)
        floor = Served(root, "floor") if transport == "stdio" else None
        await served.open()
        try:
            if floor is not None:
                await floor.open()
                await floor.calls(warmup)
            await served.calls(warmup)
            await in_process(root, warmup)
            local: list[float] = []
            remote: list[float] = []
            bare: list[float] = []
            for run in range(runs):
                sides = ["in", "served", "floor"] if floor is not None else ["in", "served"]
                for name in sides if run % 2 == 0 else reversed(sides):
                    if name == "in":
                        local.append(await in_process(root, calls) / calls)
                    elif name == "served":
                        remote.append(await served.calls(calls) / calls)
                    elif floor is not None:
                        bare.append(await floor.calls(calls) / calls)
        finally:
            await served.close()
            if floor is not None:
                await floor.close()
    in_ms = statistics.median(local) * 1000
    served_ms = statistics.median(remote) * 1000
    floor_ms = statistics.median(bare) * 1000 if bare else None
    return {
        "sdk_floor_ms_per_call": round(floor_ms, 3) if floor_ms is not None else None,
        "lait_share_ms_per_call": round(served_ms - in_ms - floor_ms, 3) if floor_ms is not None else None,
        "transport": transport,
        "calls": calls,
        "runs": runs,
        "in_process_ms_per_call": round(in_ms, 3),
        "served_ms_per_call": round(served_ms, 3),
        "overhead_ms_per_call": round(served_ms - in_ms, 3),
        "ratio": round(served_ms / in_ms, 2) if in_ms else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--transport", choices=["stdio", "http", "both"], default="stdio")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    transports = ["stdio", "http"] if args.transport == "both" else [args.transport]
    results = [asyncio.run(bench(t, args.calls, args.runs, args.warmup)) for t in transports]
    for r in results:
        print(
            f"{r['transport']:>5}: in-process {r['in_process_ms_per_call']:.2f} ms/call, served "
            f"{r['served_ms_per_call']:.2f} ms/call, overhead {r['overhead_ms_per_call']:.2f} ms/call "
            f"(x{r['ratio']})"
        )
        if r["sdk_floor_ms_per_call"] is not None:
            print(
                f"       a bare SDK server (one echo tool, same client and transport): "
                f"{r['sdk_floor_ms_per_call']:.2f} ms/call; lait serve's own share: "
                f"{r['lait_share_ms_per_call']:.2f} ms/call"
            )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    machine = {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()}
    OUT.write_text(json.dumps({"machine": machine, "results": results}, indent=2) + "\n", encoding="utf-8")
    stdio = next((r for r in results if r["transport"] == "stdio"), None)
    if stdio is not None and stdio["overhead_ms_per_call"] > TARGET_MS:
        print(f"target missed: overhead over stdio > {TARGET_MS} ms per call", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
