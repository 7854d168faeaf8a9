#!/usr/bin/env python3
"""Measure lait's cold start against ``python -c pass`` (targets: docs/performance.md).

Run from anywhere (it finds the repository from its own location)::

    python3 bench/startup.py [--runs 15] [--warmup 2] [--before DIR] [--no-bytecode-cache]

Every trial starts a fresh interpreter (``sys.executable``), the way the ``lait`` console script
does, so the numbers include interpreter start-up and imports. Measured, interleaved in rounds so
that load on the machine hits each the same:

- ``python -c pass``: the floor (interpreter start-up alone);
- ``ruff check`` of one file, the peer of ``lait lint`` of one file (a linter that is a native binary);
- ``lait --version`` (target: <= 100 ms);
- ``lait --help``, ``lait lint`` of the example workflow and of an empty directory (for context);
- a chat's first request: ``lait --no-config --base-url URL --model m hi`` against a tiny HTTP
  server in this process that notes when the request's first byte arrives; the time from just before
  the process is spawned to that moment is "first request leaves lait" (target: <= 250 ms). The
  request is sent ahead at start-up (lait_cli.support.send_ahead); the same chat is also timed to its exit
  ("answered and exited": the server answers at once, so this is lait's own whole cost) and with
  ``LAIT_SEND_AHEAD=0`` (the first request sent by the engine, after every import). "chat in
  examples/" is the same chat reading the example project's config (sent ahead from that config:
  lait_core.engine.llm.ahead_config). The rows
  marked "1 s server" time the chat to its exit against a second server that answers one second
  after the request arrives: what a model's latency does to each path.

Bytecode: an installed lait has its modules compiled (pip writes the ``.pyc`` files), so by default
the trials run with ``PYTHONPYCACHEPREFIX=bench/.out/pycache`` (and without
``PYTHONDONTWRITEBYTECODE``): the warm-up rounds fill that cache, no ``__pycache__`` lands in the
checkout. ``--no-bytecode-cache`` keeps the environment's setting instead (with
``PYTHONDONTWRITEBYTECODE=1``, every start compiles lait's modules from source).

``--before DIR``: also time the lait of another checkout (e.g. ``git worktree add /tmp/before
HEAD~3``), interleaved with this one in the same rounds, rows marked "(before)"; a second table
gives each row's median divided by its "(before)" row's.

Reported per row: the median and the minimum wall time, the median minus and divided by the
floor's, and the median CPU time (user + system) of the process, which load disturbs less than wall
time (for the chat row, the whole process: the request, the answer and the exit too). Results: a
table on stdout and ``bench/.out/startup.json`` (with the load average before and after).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT_FILE = REPO / "bench" / ".out" / "startup.json"
REPLY = json.dumps(
    {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    }
).encode()


class FirstByteServer:
    """An HTTP/1.0 server on 127.0.0.1 that records when each connection's first byte arrives and
    answers ``delay`` seconds after the request has arrived (a model's latency)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.arrivals: list[float] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = conn.recv(65536)
                self.arrivals.append(time.perf_counter())
                while b"\r\n\r\n" not in data:
                    more = conn.recv(65536)
                    if not more:
                        break
                    data += more
                head, _, body = data.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                while len(body) < length:
                    more = conn.recv(65536)
                    if not more:
                        break
                    body += more
                if self.delay:
                    time.sleep(self.delay)
                conn.sendall(
                    b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                    + str(len(REPLY)).encode()
                    + b"\r\n\r\n"
                    + REPLY
                )

    def close(self) -> None:
        self.sock.close()


Sample = tuple[float, float]
"""(wall seconds, CPU seconds of the process)."""


def spawn(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Run ``argv`` to its end: (start, end, its CPU seconds); exits when it fails. The trials run
    one at a time, so the growth of the reaped children's CPU time is this child's."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True)
    end = time.perf_counter()
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}: {done.stderr.decode(errors='replace')}")
    return start, end, (now.ru_utime + now.ru_stime) - (used.ru_utime + used.ru_stime)


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> Sample:
    start, end, cpu = spawn(argv, env, cwd)
    return end - start, cpu


def first_request(
    server: FirstByteServer,
    python: list[str],
    env: dict[str, str],
    cwd: Path,
    *,
    whole: bool = False,
    config: bool = False,
) -> Sample:
    """When the chat's first request arrives at ``server``, or (``whole``) when the process has
    printed the answer and exited; with ``config``, the chat reads the project's config in ``cwd``."""
    before = len(server.arrivals)
    argv = [*python, *([] if config else ["--no-config"]), "--base-url", server.url, "--model", "m", "hi"]
    start, end, cpu = spawn(argv, env, cwd)
    if len(server.arrivals) != before + 1:
        raise SystemExit("chat failed: no request arrived")
    return (end if whole else server.arrivals[-1]) - start, cpu


def _env(tree: Path, bytecode_cache: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LAIT_", "OPENAI_", "LLM_"))}
    env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["XDG_CACHE_HOME"] = str(OUT_FILE.parent / "xdg-cache")  # whatever a tree caches stays here
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(OUT_FILE.parent / "pycache")
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--before", type=Path, help="also time the lait of this checkout, interleaved")
    parser.add_argument(
        "--no-bytecode-cache", action="store_true", help="keep the environment's bytecode setting"
    )
    args = parser.parse_args()

    cwd = REPO / "examples"
    empty = OUT_FILE.parent / "empty"
    empty.mkdir(parents=True, exist_ok=True)
    server = FirstByteServer()
    slow = FirstByteServer(delay=1.0)
    lait = [sys.executable, "-m", "lait_cli"]  # the console script's entry (lait_cli.entry)
    trees = [("", REPO)] + ([(" (before)", args.before.resolve())] if args.before else [])
    floor_env = _env(REPO, not args.no_bytecode_cache)
    trials: dict[str, Callable[[], Sample]] = {
        "python -c pass": partial(timed, [sys.executable, "-c", "pass"], floor_env, cwd),
    }
    ruff = shutil.which("ruff", path=sysconfig.get_path("scripts")) or shutil.which("ruff")
    if ruff:  # the peer for one file's lint: a linter that is a native binary
        trials["peer: ruff check one file"] = partial(
            timed, [ruff, "check", "--no-cache", "--isolated", "servers/notes_server.py"], floor_env, cwd
        )
    for mark, tree in trees:
        env = _env(tree, not args.no_bytecode_cache)
        trials |= {
            f"lait --version{mark}": partial(timed, [*lait, "--version"], env, cwd),
            f"lait --help{mark}": partial(timed, [*lait, "--help"], env, cwd),
            f"lait lint workflows/offline.yml{mark}": partial(
                timed, [*lait, "lint", "workflows/offline.yml"], env, cwd
            ),
            f"lait lint <empty dir>{mark}": partial(timed, [*lait, "lint", str(empty)], env, cwd),
            f"chat: first request leaves lait{mark}": partial(first_request, server, lait, env, cwd),
            f"chat: answered and exited{mark}": partial(first_request, server, lait, env, cwd, whole=True),
            f"chat, LAIT_SEND_AHEAD=0: first request{mark}": partial(
                first_request, server, lait, {**env, "LAIT_SEND_AHEAD": "0"}, cwd
            ),
            f"chat in examples/ (its config): first request{mark}": partial(
                first_request, server, lait, env, cwd, config=True
            ),
            f"chat in examples/: answered and exited{mark}": partial(
                first_request, server, lait, env, cwd, whole=True, config=True
            ),
            f"chat, 1 s server: answered and exited{mark}": partial(
                first_request, slow, lait, env, cwd, whole=True
            ),
            f"chat, 1 s server, LAIT_SEND_AHEAD=0: exited{mark}": partial(
                first_request, slow, lait, {**env, "LAIT_SEND_AHEAD": "0"}, cwd, whole=True
            ),
            f"chat in examples/, 1 s server: exited{mark}": partial(
                first_request, slow, lait, env, cwd, whole=True, config=True
            ),
        }
    load_before = os.getloadavg()
    samples: dict[str, list[Sample]] = {name: [] for name in trials}
    try:
        for round_ in range(args.warmup + args.runs):
            for name, trial in trials.items():
                value = trial()
                if round_ >= args.warmup:
                    samples[name].append(value)
    finally:
        server.close()
        slow.close()
    load_after = os.getloadavg()

    floor = statistics.median(w for w, _ in samples["python -c pass"])
    targets = {"lait --version": 0.100, "chat: first request leaves lait": 0.250}
    rows: list[dict[str, Any]] = []
    print(f"load average {load_before[0]:.1f} -> {load_after[0]:.1f}")
    print(f"{'':45} {'median':>9} {'min':>9} {'- floor':>9} {'/ floor':>8} {'CPU':>9}  target")
    for name, values in samples.items():
        walls = [w for w, _ in values]
        median = statistics.median(walls)
        cpu = statistics.median(c for _, c in values)
        target = targets.get(name)
        verdict = (
            "" if target is None else f"<= {target * 1000:.0f} ms: {'met' if median <= target else 'missed'}"
        )
        print(
            f"{name:45} {median * 1000:7.1f}ms {min(walls) * 1000:7.1f}ms "
            f"{(median - floor) * 1000:7.1f}ms {median / floor:7.2f}x {cpu * 1000:7.1f}ms  {verdict}"
        )
        rows.append(
            {
                "name": name,
                "median_ms": median * 1000,
                "min_ms": min(walls) * 1000,
                "minus_floor_ms": (median - floor) * 1000,
                "ratio_to_floor": median / floor,
                "cpu_median_ms": cpu * 1000,
                "target_ms": None if target is None else target * 1000,
            }
        )
    medians = {row["name"]: (row["median_ms"], row["cpu_median_ms"]) for row in rows}
    if args.before:
        print(f"\n{'this tree / before (medians)':45} {'wall':>9} {'CPU':>9}")
        for name, (wall, cpu) in medians.items():
            before = medians.get(f"{name} (before)")
            if before:
                print(f"{name:45} {wall / before[0]:8.2f}x {cpu / before[1]:8.2f}x")
    OUT_FILE.parent.mkdir(parents=True, exist_ok=True)
    OUT_FILE.write_text(
        json.dumps(
            {
                "python": sys.version,
                "machine": platform.machine(),
                "cpus": os.cpu_count(),
                "load_before": load_before,
                "load_after": load_after,
                "bytecode_cache": not args.no_bytecode_cache,
                "before": str(args.before) if args.before else None,
                "runs": args.runs,
                "results": rows,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
