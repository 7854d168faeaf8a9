#!/usr/bin/env python3
"""What keeping records costs (issue 13).

Run from anywhere (it finds the repository from its own location)::

    python3 bench/records.py [--items 200] [--runs 5] [--events 20000] [--calls 200]

1. **Per trace event**: recording one ``chat`` event (span start, attributes, append) and writing
   it to the JSONL file, in microseconds, over ``--events`` events.
2. **A 200-item for_each**: a workflow whose ``for_each`` runs a ``prompt`` step per item against
   the scripted model server, run in-process exactly as ``lait run`` runs it (``RunSession`` ->
   ``run_workflow``), with and without ``--trace-file`` (the trace recorder plus writing the file).
   Runs alternate; the medians' ratio, the fastest runs' ratio and the tracing work itself (part 1's
   cost times the number of events, against the fastest untraced run) are printed. Target: tracing
   <= 5% slower. On a loaded machine the run-to-run spread exceeds 5%; the last figure does not
   depend on it.
3. **A cache hit against a scripted model call**: ``--calls`` requests through the same sender
   ``lait --cache`` uses, first answered live by the scripted server (which fills the cache), then
   from ``.lait/cache/``; the medians per call and their ratio.

The scripted OpenAI-compatible server (``tests/peers/openai_server.py``) runs as a separate process
so it does not compete with the measured client for the GIL. Results: a table on stdout and
``bench/.out/records.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import io
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lait_cli.support.terminal import ChatTerminal  # noqa: E402
from lait_core.documents.document_models import Config  # noqa: E402
from lait_core.engine.llm.chat_types import ChatRequest, user_message  # noqa: E402
from lait_core.engine.llm.client import ChatClient, ModelCaller  # noqa: E402
from lait_core.engine.llm.model_resolution import resolve_model  # noqa: E402
from lait_core.engine.records.response_cache import ResponseCache  # noqa: E402
from lait_core.engine.records.sender import RecordsSender, RunRecords  # noqa: E402
from lait_core.engine.records.trace_events import TraceRecorder  # noqa: E402
from lait_core.engine.run.run_session import RunSession  # noqa: E402
from lait_core.engine.workflow import run_workflow  # noqa: E402
from tests.peers.openai_server import start_process, text  # noqa: E402

OUT_FILE = REPO / "bench" / ".out" / "records.json"
MODEL = "bench-model"
TARGET_RATIO = 1.05
USAGE = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}


def per_event(events: int, tmp: Path) -> dict[str, float]:
    recorder = TraceRecorder()
    start = time.perf_counter()
    for i in range(events):
        span = recorder.span()
        span.done(
            "chat",
            f"step-{i % 50} (prompt)",
            {
                "gen_ai.request.model": MODEL,
                "lait.source": "live",
                "lait.request.key": "0" * 64,
                "gen_ai.usage.input_tokens": 12,
                "gen_ai.usage.output_tokens": 3,
            },
        )
    record = time.perf_counter() - start
    start = time.perf_counter()
    recorder.write(tmp / "events.jsonl")
    write = time.perf_counter() - start
    return {"record_us": record / events * 1e6, "write_us": write / events * 1e6}


async def for_each_run(config: Config, workflow: Path, tmp: Path, traced: bool) -> float:
    sink = io.StringIO()
    terminal = ChatTerminal(stdout=sink, stderr=sink)
    records = RunRecords(trace=TraceRecorder()) if traced else None
    start = time.perf_counter()
    async with RunSession.open(config, tmp, terminal, records=records) as session:
        result = await run_workflow(session, workflow, prompt="go")
    if records is not None and records.trace is not None:
        records.trace.write(tmp / "trace.jsonl")
    elapsed = time.perf_counter() - start
    assert isinstance(result.value, list) and len(result.value) > 0
    return elapsed


async def cache_calls(config: Config, tmp: Path, calls: int) -> tuple[list[float], list[float]]:
    sink = io.StringIO()
    terminal = ChatTerminal(stdout=sink, stderr=sink)
    model = resolve_model(MODEL, config)
    cache_dir = tmp / "cache"
    live: list[float] = []
    hits: list[float] = []
    async with ChatClient() as client:
        caller = ModelCaller(model, client, interaction=terminal)
        sender = RecordsSender(caller, caller, RunRecords(cache=ResponseCache(cache_dir)))
        for phase, out in (("live", live), ("hit", hits)):
            for i in range(calls):
                request = ChatRequest([user_message(f"question {i}")])
                start = time.perf_counter()
                response = await sender.complete(request)
                out.append(time.perf_counter() - start)
                assert response.content == f"answer {i}", (phase, response)
    return live, hits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--items", type=int, default=200, help="for_each items (model calls) per run")
    parser.add_argument("--runs", type=int, default=5, help="timed runs with and without the trace")
    parser.add_argument("--events", type=int, default=20000, help="events for the per-event cost")
    parser.add_argument("--calls", type=int, default=200, help="requests for the cache comparison")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="lait-bench-records-") as name:
        tmp = Path(name)
        event_cost = per_event(args.events, tmp)
        runs = args.runs + 1  # the first pair warms up
        script = [text(f"item {i}", usage=USAGE) for i in range(runs * 2 * args.items)]
        script += [text(f"answer {i}", usage=USAGE) for i in range(args.calls)]
        proc, url = start_process(script, tmp)
        try:
            config = Config.model_validate({"base_url": url, "default": {"model": MODEL}})
            workflow = tmp / "wf.yml"
            workflow.write_text(
                f"steps:\n  - for_each: '[range({args.items})]'\n    steps:\n"
                "      - prompt: 'item {{ input }}'\n",
                encoding="utf-8",
            )
            plain: list[float] = []
            traced: list[float] = []
            for i in range(runs):
                order = (False, True) if i % 2 == 0 else (True, False)
                for with_trace in order:
                    seconds = asyncio.run(for_each_run(config, workflow, tmp, with_trace))
                    if i > 0:
                        (traced if with_trace else plain).append(seconds)
            live, hits = asyncio.run(cache_calls(config, tmp, args.calls))
        finally:
            proc.kill()
            proc.wait()

    ratio = statistics.median(traced) / statistics.median(plain)
    min_ratio = min(traced) / min(plain)
    # the tracing work itself, from part 1: one chat event per item, recorded and written
    direct = args.items * (event_cost["record_us"] + event_cost["write_us"]) / 1e6 / min(plain)
    live_ms, hit_ms = statistics.median(live) * 1000, statistics.median(hits) * 1000
    results = {
        "when": dt.datetime.now(dt.UTC).isoformat(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "per_event": event_cost,
        "for_each": {
            "items": args.items,
            "runs": args.runs,
            "plain_s": plain,
            "traced_s": traced,
            "median_ratio": ratio,
            "min_ratio": min_ratio,
            "direct_overhead": direct,
            "target_ratio": TARGET_RATIO,
        },
        "cache": {"calls": args.calls, "live_ms_median": live_ms, "hit_ms_median": hit_ms},
    }
    OUT_FILE.parent.mkdir(parents=True, exist_ok=True)
    OUT_FILE.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(
        f"trace event: record {event_cost['record_us']:.2f} us, write {event_cost['write_us']:.2f} us (per event)"
    )
    print(
        f"for_each over {args.items} items: without trace {statistics.median(plain):.3f} s, "
        f"with --trace-file {statistics.median(traced):.3f} s (median of {args.runs}); "
        f"ratio {ratio:.3f} (target <= {TARGET_RATIO}) {'OK' if ratio <= TARGET_RATIO else 'OVER'}; "
        f"fastest runs: ratio {min_ratio:.3f}; the tracing work itself (part 1 x {args.items} events): "
        f"{direct:.2%} of the fastest untraced run"
    )
    print(
        f"model call: live (scripted server) {live_ms:.2f} ms, cache hit {hit_ms:.2f} ms (medians of "
        f"{args.calls}); a hit costs {hit_ms / live_ms:.1%} of a live call"
    )
    print(f"written: {OUT_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
