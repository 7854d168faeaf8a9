#!/usr/bin/env python3
"""Measure lait's cold start against ``python -c pass`` (issue 17 acceptance).

Run from anywhere (it finds the repository from its own location)::

    python3 bench/startup.py [--runs 15] [--warmup 2]

Every trial starts a fresh interpreter (``sys.executable``), the way the ``lait`` console script
does, so the numbers include interpreter start-up and imports. Measured, interleaved in rounds so
that load on the machine hits each the same:

- ``python -c pass``: the floor (interpreter start-up alone);
- ``lait --version`` (target: <= 100 ms);
- ``lait --help`` and ``lait lint`` of the example workflow (for context);
- a chat's first request: ``lait --base-url URL --model m hi`` against a tiny HTTP server in this
  process that notes when the request's first byte arrives; the time from just before the process
  is spawned to that moment is "first request leaves lait" (target: <= 250 ms).

Reported: the median and the minimum of each, and each median minus and divided by the floor's.
Results: a table on stdout and ``bench/.out/startup.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

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
    """An HTTP/1.0 server on 127.0.0.1 that records when each connection's first byte arrives."""

    def __init__(self) -> None:
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
                conn.sendall(
                    b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                    + str(len(REPLY)).encode()
                    + b"\r\n\r\n"
                    + REPLY
                )

    def close(self) -> None:
        self.sock.close()


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0,):
        raise SystemExit(f"{argv}: exit {done.returncode}: {done.stderr.decode(errors='replace')}")
    return elapsed


def first_request(server: FirstByteServer, env: dict[str, str], cwd: Path) -> float:
    before = len(server.arrivals)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "lait_cli", "--no-config", "--base-url", server.url, "--model", "m", "hi"],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    if done.returncode != 0 or len(server.arrivals) != before + 1:
        raise SystemExit(f"chat failed: exit {done.returncode}: {done.stderr.decode(errors='replace')}")
    return server.arrivals[-1] - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()

    env = {k: v for k, v in os.environ.items() if not k.startswith(("LAIT_", "OPENAI_", "LLM_"))}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cwd = REPO / "examples"
    server = FirstByteServer()
    lait = [sys.executable, "-m", "lait_cli"]  # the console script's entry (lait_cli.entry)
    trials: dict[str, Callable[[], float]] = {
        "python -c pass": lambda: timed([sys.executable, "-c", "pass"], env, cwd),
        "lait --version": lambda: timed([*lait, "--version"], env, cwd),
        "lait --help": lambda: timed([*lait, "--help"], env, cwd),
        "lait lint workflows/offline.yml": lambda: timed([*lait, "lint", "workflows/offline.yml"], env, cwd),
        "chat: first request leaves lait": lambda: first_request(server, env, cwd),
    }
    samples: dict[str, list[float]] = {name: [] for name in trials}
    try:
        for round_ in range(args.warmup + args.runs):
            for name, trial in trials.items():
                value = trial()
                if round_ >= args.warmup:
                    samples[name].append(value)
    finally:
        server.close()

    floor = statistics.median(samples["python -c pass"])
    targets = {"lait --version": 0.100, "chat: first request leaves lait": 0.250}
    rows = []
    print(f"{'':34} {'median':>9} {'min':>9} {'- floor':>9} {'/ floor':>8}  target")
    for name, values in samples.items():
        median = statistics.median(values)
        target = targets.get(name)
        verdict = (
            "" if target is None else f"<= {target * 1000:.0f} ms: {'met' if median <= target else 'missed'}"
        )
        print(
            f"{name:34} {median * 1000:7.1f}ms {min(values) * 1000:7.1f}ms "
            f"{(median - floor) * 1000:7.1f}ms {median / floor:7.2f}x  {verdict}"
        )
        rows.append(
            {
                "name": name,
                "median_ms": median * 1000,
                "min_ms": min(values) * 1000,
                "minus_floor_ms": (median - floor) * 1000,
                "ratio_to_floor": median / floor,
                "target_ms": None if target is None else target * 1000,
            }
        )
    OUT_FILE.parent.mkdir(parents=True, exist_ok=True)
    OUT_FILE.write_text(
        json.dumps(
            {
                "python": sys.version,
                "machine": platform.machine(),
                "cpus": os.cpu_count(),
                "load": os.getloadavg(),
                "runs": args.runs,
                "results": rows,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
