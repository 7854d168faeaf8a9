#!/usr/bin/env python3
"""Measure the tool loop's overhead per round and its parallel tool execution.

Run from anywhere (it finds the repository from its own location)::

    python3 bench/tool_loop.py [--rounds 50] [--runs 7] [--warmup 2] [--cli-runs 3] [--crowd 500]

1. **Overhead per round.** One trial is ``--rounds`` model responses that each call a trivial shell
   tool (``echo {{ input.word }}``), then a final text answer. lait runs it in-process through the
   same engine path as ``lait --tool echo`` (``resolve_model`` -> ``ModelCaller`` -> ``ToolSet`` ->
   ``run_tool_loop`` with the CLI's ``ChatTerminal``). The baseline does the same HTTP exchanges
   with raw ``httpx`` (same bodies, same growing history) and runs the same ``echo`` with
   ``asyncio.create_subprocess_exec``. Overhead per round = (lait - baseline) / rounds. Target:
   <= 2 ms. The same trial through the CLI (``python -m lait_cli.main``) is timed for context: it
   adds interpreter start-up and imports once per invocation.
   The same pair of trials then runs again with ``--crowd`` (500) extra idle processes on the host:
   reaping a tool's process group must not cost more when the host runs more processes. Target:
   <= 0.5 ms per round in both rows.
2. **Parallel tool calls.** One model response calls ``sleep 1`` eight times, then a text answer.
   Wall time of the loop (in-process), of the CLI and of a raw baseline. Target: <= 1.3 s.

Both clients talk to the scripted OpenAI-compatible server (``tests/peers/openai_server.py``) run as
a separate process, so it does not compete with the measured client for the GIL. The script for
every trial is generated up front and the trials run in exactly that order (lait and the baseline
alternate which goes first). Results: a table on stdout and ``bench/.out/tool_loop.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from lait_cli.support.terminal import ChatTerminal  # noqa: E402
from lait_core.documents.document_models import Config  # noqa: E402
from lait_core.engine.llm.chat_types import user_message  # noqa: E402
from lait_core.engine.llm.client import ChatClient, ModelCaller  # noqa: E402
from lait_core.engine.llm.model_resolution import resolve_model  # noqa: E402
from lait_core.engine.run.tool_loop import LoopOptions, run_tool_loop  # noqa: E402
from lait_core.engine.tools.base import ToolSet  # noqa: E402
from lait_core.engine.tools.shell import ShellToolSource  # noqa: E402
from tests.peers.openai_server import call, start_process, text, tool_calls  # noqa: E402

OUT_FILE = REPO / "bench" / ".out" / "tool_loop.json"
MODEL = "bench-model"
PARALLEL = 8
ROUND_TARGET_MS = 0.5
PARALLEL_TARGET_S = 1.3
ECHO_TOOL: dict[str, Any] = {
    "description": "Echo a word.",
    "command": ["echo", "{{ input.word }}"],
    "parameters": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
}
NAP_TOOL: dict[str, Any] = {"description": "Sleep one second.", "command": ["sleep", "1"]}
Item = dict[str, Any]


def rounds_script(rounds: int) -> list[Item]:
    return [tool_calls(call("tool__echo", {"word": f"w{i}"})) for i in range(rounds)] + [text("done")]


def parallel_script() -> list[Item]:
    return [tool_calls(*(call("tool__nap") for _ in range(PARALLEL))), text("rested")]


# -- the two clients -------------------------------------------------------------------------------
def bench_config(url: str) -> Config:
    return Config.model_validate({"base_url": url, "tools": {"echo": ECHO_TOOL, "nap": NAP_TOOL}})


async def lait_trial(config: Config, tool: str, max_rounds: int) -> tuple[float, float]:
    """One run of the engine as ``lait --tool <tool>`` runs it; only the loop is timed."""
    sink = io.StringIO()
    terminal = ChatTerminal(stdout=sink, stderr=sink)
    resolved = resolve_model(MODEL, config)
    async with ChatClient() as client:
        caller = ModelCaller(resolved, client, interaction=terminal)
        toolset = await ToolSet.assemble([ShellToolSource([tool], config.tools)])
        try:
            start, cpu = time.perf_counter(), time.process_time()
            result = await run_tool_loop(
                caller, [user_message("go")], toolset, terminal, LoopOptions(max_tool_rounds=max_rounds)
            )
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        finally:
            await toolset.aclose()
    assert result.response.content in ("done", "rested"), result.response
    return elapsed, cpu


async def _raw_tool(argv: list[str]) -> str:
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    return out.decode().removesuffix("\n")


def _tool_definition(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    parameters = spec.get("parameters", {"type": "object", "properties": {}})
    function = {"name": f"tool__{name}", "description": spec["description"], "parameters": parameters}
    return {"type": "function", "function": function}


async def raw_trial(url: str, tool: str) -> tuple[float, float]:
    """The same HTTP exchanges with raw httpx, and the same commands with a bare subprocess."""
    spec = ECHO_TOOL if tool == "echo" else NAP_TOOL
    definition = _tool_definition(tool, spec)
    async with httpx.AsyncClient(timeout=300.0) as client:
        start, cpu = time.perf_counter(), time.process_time()
        messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
        while True:
            body = {
                "model": MODEL,
                "messages": messages,
                "stream": False,
                "tools": [definition],
                "tool_choice": "auto",
            }
            response = await client.post(
                f"{url}/chat/completions",
                content=json.dumps(body).encode(),
                headers={"Authorization": "Bearer lm-studio", "Content-Type": "application/json"},
            )
            response.raise_for_status()
            message = response.json()["choices"][0]["message"]
            calls = message.get("tool_calls") or []
            if not calls:
                break
            messages.append(
                {"role": "assistant", "content": message.get("content") or "", "tool_calls": calls}
            )
            argvs = []
            for c in calls:
                args = json.loads(c["function"]["arguments"] or "{}")
                argvs.append(["echo", args["word"]] if tool == "echo" else ["sleep", "1"])
            results = await asyncio.gather(*(_raw_tool(argv) for argv in argvs))
            messages.extend(
                {"role": "tool", "tool_call_id": c["id"], "content": r}
                for c, r in zip(calls, results, strict=True)
            )
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert message["content"] in ("done", "rested"), message
    return elapsed, cpu


def cli_trial(url: str, work: Path, tool: str) -> tuple[float, float]:
    """``lait --tool <tool> go`` as a subprocess (start-up and imports included)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LLM_", "LAIT_"))}
    argv = [sys.executable, "-m", "lait_cli.main", "--base-url", url, "--model", MODEL, "--tool", tool, "go"]
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if done.returncode != 0 or done.stdout.decode() not in ("done\n", "rested\n"):
        raise SystemExit(f"lait failed ({done.returncode}): {done.stderr.decode()}")
    return elapsed, cpu


# -- the plan ----------------------------------------------------------------------------------------
@dataclass
class Trial:
    kind: str  # lait | raw | cli
    part: str  # rounds | crowded | parallel
    timed: bool
    script: list[Item]
    seconds: float = 0.0
    cpu: float = 0.0
    """In-process trials: this process's CPU time (not the tools' or the server's); CLI trials: the
    lait process's (and its tools')."""


@dataclass
class Plan:
    trials: list[Trial] = field(default_factory=list)

    def add(self, kind: str, part: str, timed: bool, script: list[Item]) -> None:
        self.trials.append(Trial(kind, part, timed, script))

    def samples(self, kind: str, part: str, cpu: bool = False) -> list[float]:
        return [
            t.cpu if cpu else t.seconds for t in self.trials if t.kind == kind and t.part == part and t.timed
        ]


def make_plan(rounds: int, runs: int, warmup: int, cli_runs: int, parallel_runs: int, crowd: int) -> Plan:
    plan = Plan()
    for part in ("rounds", "crowded") if crowd else ("rounds",):
        for i in range(warmup + runs):
            order = ("lait", "raw") if i % 2 == 0 else ("raw", "lait")
            for kind in order:
                plan.add(kind, part, i >= warmup, rounds_script(rounds))
    for i in range(cli_runs + 1):
        plan.add("cli", "rounds", i >= 1, rounds_script(rounds))
    for i in range(parallel_runs + 1):
        for kind in ("lait", "raw", "cli"):
            plan.add(kind, "parallel", i >= 1, parallel_script())
    return plan


class Crowd:
    """``size`` idle processes (``sleep``) that make the host's process table that much longer."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        while len(self.procs) < self.size:
            self.procs.append(subprocess.Popen(["sleep", "3600"], stdin=subprocess.DEVNULL))

    def stop(self) -> None:
        for proc in self.procs:
            proc.kill()
        for proc in self.procs:
            proc.wait()
        self.procs.clear()


def host_processes() -> int:
    return sum(name.isdigit() for name in os.listdir("/proc")) if os.path.isdir("/proc") else 0


async def run_plan(plan: Plan, url: str, work: Path, rounds: int, crowd: Crowd) -> dict[str, int]:
    """Run every trial in order; returns the host's process count seen by each part."""
    config = bench_config(url)
    runners: dict[tuple[str, str], Callable[[], Awaitable[tuple[float, float]]]] = {
        ("lait", "rounds"): lambda: lait_trial(config, "echo", rounds + 1),
        ("raw", "rounds"): lambda: raw_trial(url, "echo"),
        ("lait", "crowded"): lambda: lait_trial(config, "echo", rounds + 1),
        ("raw", "crowded"): lambda: raw_trial(url, "echo"),
        ("lait", "parallel"): lambda: lait_trial(config, "nap", 2),
        ("raw", "parallel"): lambda: raw_trial(url, "nap"),
    }
    seen: dict[str, int] = {}
    try:
        for trial in plan.trials:
            if trial.part == "crowded":
                crowd.start()
            else:
                crowd.stop()
            seen.setdefault(trial.part, host_processes())
            if trial.kind == "cli":
                tool = "echo" if trial.part == "rounds" else "nap"
                trial.seconds, trial.cpu = await asyncio.to_thread(cli_trial, url, work, tool)
            else:
                trial.seconds, trial.cpu = await runners[(trial.kind, trial.part)]()
    finally:
        crowd.stop()
    return seen


# -- report ------------------------------------------------------------------------------------------
def _ms(value: float) -> str:
    return f"{value * 1000:.2f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=50, help="tool rounds per trial")
    parser.add_argument("--runs", type=int, default=9, help="timed in-process trials of each client")
    parser.add_argument("--warmup", type=int, default=2, help="untimed in-process trials of each client")
    parser.add_argument("--cli-runs", type=int, default=3, help="timed CLI trials (after one untimed)")
    parser.add_argument("--parallel-runs", type=int, default=3, help="timed trials of the 8 x sleep 1 test")
    parser.add_argument(
        "--crowd", type=int, default=500, help="extra idle processes for the crowded rows (0: no such rows)"
    )
    parser.add_argument("--out", type=Path, default=OUT_FILE, help="where to write the JSON results")
    args = parser.parse_args(argv)
    if min(args.rounds, args.runs, args.cli_runs, args.parallel_runs) < 1 or min(args.warmup, args.crowd) < 0:
        parser.error("--rounds, --runs, --cli-runs and --parallel-runs must be positive")

    plan = make_plan(args.rounds, args.runs, args.warmup, args.cli_runs, args.parallel_runs, args.crowd)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="lait-bench-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        (work / "lait.config.yml").write_text(
            json.dumps(
                {
                    "default": {"max_tool_rounds": args.rounds + 1},
                    "tools": {"echo": ECHO_TOOL, "nap": NAP_TOOL},
                }
            ),
            encoding="utf-8",
        )
        server, url = start_process([item for t in plan.trials for item in t.script], Path(tmp))
        try:
            seen = asyncio.run(run_plan(plan, url, work, args.rounds, Crowd(args.crowd)))
        finally:
            server.terminate()
            server.wait(10)
    load_after = os.getloadavg()

    n = args.rounds
    lait_s, raw_s = plan.samples("lait", "rounds"), plan.samples("raw", "rounds")
    per_round = [(a - b) / n for a, b in zip(lait_s, raw_s, strict=True)]
    lait_cpu, raw_cpu = plan.samples("lait", "rounds", cpu=True), plan.samples("raw", "rounds", cpu=True)
    cpu_per_round = [(a - b) / n for a, b in zip(lait_cpu, raw_cpu, strict=True)]
    cli_s = plan.samples("cli", "rounds")
    crowded = [
        (a - b) / n
        for a, b in zip(plan.samples("lait", "crowded"), plan.samples("raw", "crowded"), strict=True)
    ]
    par = {kind: plan.samples(kind, "parallel") for kind in ("lait", "raw", "cli")}
    overhead = statistics.median(per_round)
    parallel_wall = statistics.median(par["lait"])

    print(
        f"cpus: {os.cpu_count()}, python {platform.python_version()}, {n} tool rounds per trial, "
        f"{args.runs} timed runs; load average {load_before[0]:.2f} -> {load_after[0]:.2f}; "
        f"processes on the host: {seen.get('rounds', 0)}, crowded rows {seen.get('crowded', 0)}"
    )
    print()
    print("| measurement | median | min |")
    print("|---|---:|---:|")
    rows = [
        (f"lait loop, {n} rounds (in-process)", statistics.median(lait_s), min(lait_s)),
        (f"raw httpx + subprocess, {n} rounds", statistics.median(raw_s), min(raw_s)),
        ("lait per round", statistics.median(lait_s) / n, min(lait_s) / n),
        ("raw per round", statistics.median(raw_s) / n, min(raw_s) / n),
        ("**overhead per round** (lait - raw)", overhead, min(per_round)),
        ("CPU per round, lait (this process)", statistics.median(lait_cpu) / n, min(lait_cpu) / n),
        ("CPU per round, raw (this process)", statistics.median(raw_cpu) / n, min(raw_cpu) / n),
        ("CPU overhead per round (lait - raw)", statistics.median(cpu_per_round), min(cpu_per_round)),
        (f"lait CLI, {n} rounds (start-up included)", statistics.median(cli_s), min(cli_s)),
    ]
    if crowded:
        label = f"**overhead per round, {args.crowd} extra idle processes** (lait - raw)"
        rows.append((label, statistics.median(crowded), min(crowded)))
    for label, med, low in rows:
        print(f"| {label} | {_ms(med)} | {_ms(low)} |")
    for kind, label in (("lait", "lait loop"), ("raw", "raw baseline"), ("cli", "lait CLI")):
        print(
            f"| {PARALLEL} x `sleep 1` in one response: {label} | {statistics.median(par[kind]):.3f} s | "
            f"{min(par[kind]):.3f} s |"
        )
    print()
    crowded_overhead = statistics.median(crowded) if crowded else overhead
    round_ok = max(overhead, crowded_overhead) <= ROUND_TARGET_MS / 1000
    parallel_ok = parallel_wall <= PARALLEL_TARGET_S
    print(
        f"overhead per round {_ms(overhead)}, with {args.crowd} extra processes {_ms(crowded_overhead)} "
        f"(target <= {ROUND_TARGET_MS:g} ms): {'PASS' if round_ok else 'FAIL'}"
    )
    print(
        f"{PARALLEL} parallel 1-second tool calls {parallel_wall:.3f} s (target <= {PARALLEL_TARGET_S:g} s): "
        f"{'PASS' if parallel_ok else 'FAIL'}"
    )

    result = {
        "rounds": n,
        "runs": args.runs,
        "warmup": args.warmup,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "httpx": httpx.__version__,
        "load_average": {"before": load_before, "after": load_after},
        "per_round_overhead_s": {"median": overhead, "min": min(per_round), "samples": per_round},
        "crowd": args.crowd,
        "host_processes": seen,
        "crowded_per_round_overhead_s": {"median": crowded_overhead, "samples": crowded},
        "cpu_per_round_overhead_s": {"median": statistics.median(cpu_per_round), "samples": cpu_per_round},
        "lait_loop_s": lait_s,
        "lait_loop_cpu_s": lait_cpu,
        "raw_cpu_s": raw_cpu,
        "raw_s": raw_s,
        "cli_s": cli_s,
        "parallel_s": par,
        "targets": {"per_round_overhead_ms": ROUND_TARGET_MS, "parallel_s": PARALLEL_TARGET_S},
        "pass": {"per_round_overhead": round_ok, "parallel": parallel_ok},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0 if round_ok and parallel_ok else 1


if __name__ == "__main__":
    sys.exit(main())
