"""A scripted OpenAI-compatible server for tests (real HTTP on 127.0.0.1, standard library only).

No model runs on the test machines, so this server replays a queue of scripted replies to
``POST .../chat/completions`` and records every request (method, path, headers, parsed body) so a
test can assert the exact bodies lait sent.

A script item is a JSON object; every key is optional:

``message``
    ``{"content", "reasoning", "reasoning_content", "tool_calls": [{"id", "name", "arguments"}]}``.
    ``arguments`` is sent verbatim when it is a string (so malformed JSON can be scripted), as
    compact JSON otherwise. Answered as a ``chat.completion`` object, or -- when the request has
    ``"stream": true`` -- as an SSE stream generated from the same message.
``usage``
    ``{"prompt_tokens", "completion_tokens", "total_tokens"}``; in streams it is sent in a final
    ``choices: []`` chunk when the request asked for ``stream_options.include_usage`` (or when
    ``stream_usage`` is true).
``status``, ``headers``
    HTTP status (default 200) and extra response headers (e.g. ``{"Retry-After": "0"}``). A status
    of 400 or more with no ``body`` answers ``{"error": {"message": <error>}}``.
``error``
    The error message for a non-2xx status (default ``"scripted error"``).
``body``
    A raw body (any JSON value, or a string sent as is) instead of one built from ``message``.
``delay``
    Seconds to wait before answering (slow responses, timeouts).
``close``
    Close the connection without sending any response.
``sse``
    Raw stream events instead of generated ones: a dict is sent as ``data: <json>``, a string as
    ``data: <string>`` (broken JSON, ``[DONE]``...). ``done`` (default true) appends
    ``data: [DONE]``. An empty list with ``done: false`` is an empty stream body.
``stream_style``
    For generated streams: ``"repeat"`` (default; ``id``/``name`` in every tool-call chunk, as
    llama-cpp-python does) or ``"first"`` (only in a call's first chunk, as OpenAI does).
``chunk_size``
    Characters per content/argument fragment in generated streams (default 4).
``interleave``
    Generated streams put fragments of different tool calls into the same chunks.
``chunk_delay``
    Seconds between stream chunks.
``truncate``
    For streams: close the connection after this many events, without ``[DONE]``.

Command line (manual use)::

    python -m tests.peers.openai_server --script script.json --port 8089 [--log requests.jsonl]

``script.json`` holds a list of items (or ``{"responses": [...]}``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TextIO

Item = dict[str, Any]


# -- script builders ---------------------------------------------------------------------------
def text(content: str, **extra: Any) -> Item:
    """A plain answer."""
    return {"message": {"content": content}, **extra}


def call(name: str, arguments: Any = None, id: str | None = None) -> dict[str, Any]:
    """One tool call; ``arguments`` as a string is sent verbatim (malformed JSON allowed)."""
    entry: dict[str, Any] = {"name": name, "arguments": {} if arguments is None else arguments}
    if id is not None:
        entry["id"] = id
    return entry


def tool_calls(*calls: dict[str, Any], content: str | None = None, **extra: Any) -> Item:
    """A reply with one or more (parallel) tool calls; ids default to ``call_<n>``."""
    numbered = [{"id": f"call_{i}", **c} for i, c in enumerate(calls)]
    message: dict[str, Any] = {"tool_calls": numbered}
    if content is not None:
        message["content"] = content
    return {"message": message, **extra}


def error(
    status: int, message: str = "scripted error", retry_after: float | None = None, **extra: Any
) -> Item:
    item: Item = {"status": status, "error": message, **extra}
    if retry_after is not None:
        item.setdefault("headers", {})["Retry-After"] = f"{retry_after:g}"
    return item


def empty_stream(**extra: Any) -> Item:
    """HTTP 200 with an empty body (llama-cpp-python's answer to stream + tool_choice auto)."""
    return {"sse": [], "done": False, **extra}


def drop(**extra: Any) -> Item:
    """Close the connection without answering."""
    return {"close": True, **extra}


# -- recording ---------------------------------------------------------------------------------
@dataclass(slots=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    """The parsed JSON body (or the raw text when it is not JSON; None for GET)."""


@dataclass
class _State:
    script: deque[Item] = field(default_factory=deque)
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    models: list[str] = field(default_factory=lambda: ["scripted-model"])
    log: TextIO | None = None
    counter: int = 0
    routes: list[tuple[str, deque[Item]]] = field(default_factory=list)
    """Replies kept for requests whose last message contains a text (see ``route``)."""
    api_key: str | None = None
    """When set, a request without ``Authorization: Bearer <api_key>`` is answered 401."""


class ScriptedOpenAIServer:
    """The server; use as a context manager (``with ScriptedOpenAIServer() as server``)."""

    def __init__(
        self,
        script: Iterable[Item] = (),
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        models: Iterable[str] | None = None,
        api_key: str | None = None,
    ) -> None:
        self._state = _State(script=deque(script), api_key=api_key)
        if models is not None:
            self._state.models = list(models)
        state = self._state

        class Handler(_Handler):
            shared = state

        self._httpd = ThreadingHTTPServer((host, port), Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False  # a handler still sleeping in a scripted delay is abandoned
        self._thread: threading.Thread | None = None

    # lifecycle
    def start(self) -> ScriptedOpenAIServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.02,), name="openai-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # script and records
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The base URL (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *items: Item) -> None:
        with self._state.lock:
            self._state.script.extend(items)

    def route(self, text: str, *items: Item) -> None:
        """Answer requests whose last message's content contains ``text`` with ``items`` (in order),
        before the main script: concurrent requests (``lait eval``) then get replies that do not
        depend on their arrival order. The first matching route with replies left wins."""
        with self._state.lock:
            self._state.routes.append((text, deque(items)))

    def clear(self) -> None:
        """Drop the replies not sent yet (a request that aborted left them unused)."""
        with self._state.lock:
            self._state.script.clear()

    @property
    def remaining(self) -> int:
        with self._state.lock:
            return len(self._state.script)

    @property
    def requests(self) -> list[Recorded]:
        """Every chat-completions request received so far, in arrival order."""
        with self._state.lock:
            return [r for r in self._state.requests if r.path.endswith("/chat/completions")]

    @property
    def bodies(self) -> list[Any]:
        return [r.body for r in self.requests]

    def wait_for_requests(self, count: int, timeout: float = 30.0) -> list[Recorded]:
        """The chat-completions requests, once at least ``count`` have arrived: a request that a
        client wrote and never waited to have answered (sent ahead by a process that then exited)
        may still be on its way through the handler thread."""
        self._wait(lambda: len(self.requests) >= count, f"{count} requests to arrive", timeout)
        return self.requests

    def wait_for_replies(self, count: int, timeout: float = 30.0) -> None:
        """Wait until ``count`` chat-completions requests have taken their scripted reply. Requests
        on different connections take the replies in whichever order their handler threads get
        there: a test that needs one answered first (a request sent ahead) waits for it."""

        def taken() -> bool:
            with self._state.lock:
                return self._state.counter >= count

        self._wait(taken, f"{count} replies to be taken", timeout)

    @staticmethod
    def _wait(done: Callable[[], bool], what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
            time.sleep(0.005)

    @property
    def all_requests(self) -> list[Recorded]:
        with self._state.lock:
            return list(self._state.requests)


def _last_content(body: Any) -> str | None:
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return None
    content = messages[-1].get("content")
    return content if isinstance(content, str) else json.dumps(content)


class _Handler(BaseHTTPRequestHandler):
    shared: _State
    protocol_version = "HTTP/1.0"  # one request per connection; streams end by closing

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # GET /models
    def _unauthorized(self) -> bool:
        key = self.shared.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return False
        self._send_json(401, {"error": {"message": "invalid api key"}})
        return True

    def do_GET(self) -> None:
        self._record(None)
        if self._unauthorized():
            return
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "owned_by": "scripted"} for m in self.shared.models]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": {"message": f"no such path {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw
        self._record(body)
        if self._unauthorized():
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no such path {self.path}"}})
            return
        last = _last_content(body)
        with self.shared.lock:
            routed = next((q for t, q in self.shared.routes if q and last is not None and t in last), None)
            script = routed if routed is not None else self.shared.script
            item = script.popleft() if script else None
            self.shared.counter += 1
            number = self.shared.counter
        if item is None:
            self._send_json(400, {"error": {"message": "scripted server: no scripted response left"}})
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(item, body if isinstance(body, dict) else {}, number)

    def _record(self, body: Any) -> None:
        entry = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        with self.shared.lock:
            self.shared.requests.append(entry)
            if self.shared.log is not None:
                self.shared.log.write(
                    json.dumps({"method": entry.method, "path": entry.path, "body": entry.body}) + "\n"
                )
                self.shared.log.flush()

    def _answer(self, item: Item, request: dict[str, Any], number: int) -> None:
        delay = float(item.get("delay", 0))
        if delay:
            time.sleep(delay)
        if item.get("close"):
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        status = int(item.get("status", 200))
        headers: dict[str, str] = {str(k): str(v) for k, v in item.get("headers", {}).items()}
        if "body" in item:
            body = item["body"]
            payload = body if isinstance(body, str) else json.dumps(body)
            self._send_raw(status, payload.encode(), headers, "application/json")
            return
        if status >= 400:
            message = item.get("error", "scripted error")
            self._send_json(
                status, {"error": {"message": message, "type": "scripted", "code": None}}, headers
            )
            return
        wants_stream = request.get("stream") is True
        if "sse" in item or wants_stream:
            self._stream(item, request, number, status, headers)
            return
        self._send_json(status, _completion(item, request, number), headers)

    # -- responses
    def _send_json(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(value).encode(), headers or {}, "application/json")

    def _send_raw(self, status: int, data: bytes, headers: dict[str, str], ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _stream(
        self, item: Item, request: dict[str, Any], number: int, status: int, headers: dict[str, str]
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        events: list[str]
        if "sse" in item:
            events = [json.dumps(e) if isinstance(e, dict) else str(e) for e in item["sse"]]
        else:
            events = [json.dumps(c) for c in _chunks(item, request, number)]
        if item.get("done", True) and "truncate" not in item:
            events.append("[DONE]")
        if "truncate" in item:
            events = events[: int(item["truncate"])]
        pause = float(item.get("chunk_delay", 0))
        for event in events:
            self.wfile.write(f"data: {event}\n\n".encode())
            self.wfile.flush()
            if pause:
                time.sleep(pause)
        self.close_connection = True


def _arguments_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, separators=(",", ":"))


def _completion(item: Item, request: dict[str, Any], number: int) -> dict[str, Any]:
    message = dict(item.get("message", {}))
    out: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    for key in ("reasoning", "reasoning_content"):
        if key in message:
            out[key] = message[key]
    calls = message.get("tool_calls") or []
    if calls:
        out["tool_calls"] = [
            {
                "id": c.get("id"),
                "type": "function",
                "function": {"name": c.get("name"), "arguments": _arguments_text(c.get("arguments", {}))},
            }
            for c in calls
        ]
    result: dict[str, Any] = {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted-model"),
        "choices": [
            {
                "index": 0,
                "message": out,
                "finish_reason": item.get("finish_reason", "tool_calls" if calls else "stop"),
            }
        ],
    }
    if "usage" in item:
        result["usage"] = item["usage"]
    return result


def _pieces(value: str, size: int) -> list[str]:
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]


def _chunks(item: Item, request: dict[str, Any], number: int) -> Iterator[dict[str, Any]]:
    message = item.get("message", {})
    size = max(1, int(item.get("chunk_size", 4)))
    repeat = item.get("stream_style", "repeat") == "repeat"
    base = {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": request.get("model", "scripted-model"),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    for key in ("reasoning", "reasoning_content"):
        if message.get(key):
            for piece in _pieces(message[key], size):
                yield chunk({key: piece})
    if message.get("content"):
        for piece in _pieces(message["content"], size):
            yield chunk({"content": piece})
    calls = message.get("tool_calls") or []
    fragments: list[list[dict[str, Any]]] = []
    for index, c in enumerate(calls):
        pieces = _pieces(_arguments_text(c.get("arguments", {})), size)
        frags = []
        for n, piece in enumerate(pieces):
            frag: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if repeat or n == 0:
                frag["id"] = c.get("id")
                frag["type"] = "function"
                frag["function"]["name"] = c.get("name")
            frags.append(frag)
        fragments.append(frags)
    if item.get("interleave"):
        longest = max((len(f) for f in fragments), default=0)
        for n in range(longest):
            yield chunk({"tool_calls": [f[n] for f in fragments if n < len(f)]})
    else:
        for frags in fragments:
            for frag in frags:
                delta: dict[str, Any] = {"tool_calls": [frag]}
                if repeat:  # llama-cpp-python also repeats a legacy function_call field
                    delta["function_call"] = {"name": frag["function"]["name"], "arguments": ""}
                yield chunk(delta)
    yield chunk({}, item.get("finish_reason", "tool_calls" if calls else "stop"))
    include = bool((request.get("stream_options") or {}).get("include_usage"))
    if "usage" in item and (include or item.get("stream_usage")):
        yield {**base, "choices": [], "usage": item["usage"]}


def start_process(script: list[Item], folder: Path) -> tuple[subprocess.Popen[str], str]:
    """The server in a process of its own (benchmarks: it does not compete with the measured client
    for the GIL), answering ``script``; the process and its base URL. The caller ends the process."""
    path = folder / "script.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.peers.openai_server", "--script", str(path), "--port", "0"],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    banner = proc.stdout.readline()
    if not banner.startswith("listening on "):
        proc.kill()
        proc.wait()
        raise SystemExit(f"the scripted server did not start: {banner!r}")
    return proc, banner.split()[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible server for manual tests.")
    parser.add_argument("--script", required=True, help="JSON file: a list of script items")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--log", help="append every request as a JSON line to this file")
    args = parser.parse_args(argv)
    with open(args.script, encoding="utf-8") as f:
        loaded = json.load(f)
    script = loaded["responses"] if isinstance(loaded, dict) else loaded
    server = ScriptedOpenAIServer(script, host=args.host, port=args.port)
    if args.log:
        server._state.log = open(args.log, "a", encoding="utf-8")  # noqa: SIM115
    print(f"listening on http://{args.host}:{server.port}/v1 ({len(script)} scripted responses)", flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
