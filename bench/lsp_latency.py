#!/usr/bin/env python3
"""Measure lait-ls latency over stdio, with yaml-language-server 2.0.0 as the peer.

Run from anywhere (it finds the repository from its own location)::

    python3 bench/lsp_latency.py [--sizes 100 1000 10000] [--edits 12] [--warmup 4] [--requests 20]
    python3 bench/lsp_latency.py --profile          # plus a cProfile pass of lait-ls's diagnostics path

What it does (details in bench/README.md):

1. Generates, deterministically from ``--seed``, a workflow of each size (exactly 100, 1,000 and 10,000
   lines by default) and checks with ``lait lint --no-config`` that it is clean except for LAIT506. It
   also writes a variant with three seeded errors: a misspelt step key and two values of the wrong type.
2. Starts both servers as subprocesses and talks to them with the small JSON-RPC client below
   (Content-Length framing over stdio). It answers the server's requests: ``workspace/configuration``
   (``{"debounce": 0}`` for lait-ls; the ``yaml`` settings that point ``*.yml`` at schemas/workflow.json,
   with the schema store off, for yaml-language-server), ``client/registerCapability`` and
   ``window/workDoneProgress/create``.
3. For each size, it opens the variant in each server and checks that both report all seeded errors.
   Then it sends incremental ``didChange`` edits that turn a wrong-type ``timeout`` on and off at
   different lines, and it times each edit until a ``publishDiagnostics`` arrives that shows the new
   state. The result is the median of ``--edits`` edits after ``--warmup`` edits.
4. At 1,000 lines it times lait-ls completion and hover requests (and yaml-language-server's, for
   context) at three positions: a key, an ``mcp:`` list, and ``{{ steps.`` in a prompt, and
   ``textDocument/semanticTokens/full`` for the whole document (jq and template tokens; the peer offers
   none). Each runs both on an unchanged document and as the first request after an edit (a new
   document version).
5. Prints a table and writes every sample as JSON to ``bench/.out/lsp_latency.json``.
6. With ``--workspace N`` (default 500): times ``workspace/diagnostic`` (pull mode, a fresh server each
   run: the first request, then a second with every result id) on bench/lint_vs_check_jsonschema.py's
   project of N workflows against ``lait lint`` of the same project (and ``lait lint --jobs 1``, one
   process like lait-ls), and checks all report the same
   number of findings.

yaml-language-server validates 200 ms after the last change. That delay is hard-coded
(``validationDelayMs``). The ratio uses raw latencies, which is what a user waits for. The table also
shows the peer's latency minus 200 ms, and the ratio on those numbers.

``--profile`` then runs lait-ls inside this script's process (``--serve-lait``) twice per size: with
``LAIT_PHASES=<file>`` it records wall-clock time per phase of the diagnostics, completion and hover
paths (see PHASES), and with ``LAIT_PROFILE=<file>`` it runs cProfile inside the entry points. Nothing
in lait_ls or lait_core is modified: module globals and class attributes are wrapped at start-up.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import itertools
import json
import os
import platform
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
WORKFLOW_SCHEMA = REPO / "schemas" / "workflow.json"
OUT_FILE = BENCH / ".out" / "lsp_latency.json"
YLS_VERSION = "2.0.0"
YLS_MAIN = BENCH / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
YLS_DEBOUNCE_MS = 200.0  # validationDelayMs in yaml-language-server/out/src/yamlSettings.js

DIAG_TARGET_MS = 30.0  # lait-ls median didChange -> diagnostics at 1,000 lines
RATIO_TARGET = 0.25  # lait-ls / yaml-language-server at 10,000 lines (raw latencies)
REQUEST_TARGET_MS = 20.0  # completion and hover medians at 1,000 lines
SEMANTIC_TOKENS_TARGET_MS = 20.0  # semanticTokens/full median at 1,000 lines
WORKSPACE_RATIO_TARGET = 1.0  # workspace/diagnostic on the lint bench project / `lait lint` of it
EXPECTED_CLEAN_CODES = frozenset({"LAIT506"})
WAIT_TIMEOUT_S = 60.0

JsonObj = dict[str, Any]

# ------------------------------------------------------------------------------------------------
# Workflow generation
# ------------------------------------------------------------------------------------------------

REPOS = ["lait", "pygls", "jqlang", "yaml-ls", "handlebars"]
TOPICS = ["the parser", "the CLI", "the release process", "error messages", "the docs", "performance"]
EN_LINES = [
    "Keep every issue number and quote error messages verbatim.",
    "Answer in at most five bullet points; no preamble.",
    "If something is unclear, say so instead of guessing.",
    "Prefer concrete file names and line numbers over general advice.",
    "Mention breaking changes first.",
    "Write for a maintainer who has not seen the thread.",
]
JA_LINES = [
    "以下の内容を日本語で三行以内に要約してください。",
    "専門用語はそのまま残し、推測はしないでください。",
    "重要な変更点を先に書いてください。",
    "丁寧な口調で、簡潔に答えてください。",
]
MCP_SERVERS = ["github", "filesystem", "fetch", "git"]
MODELS = ["gpt-4o-mini", "gpt-4.1", "claude-sonnet-4", "local-qwen"]


def header_lines(total: int) -> list[str]:
    return [
        "version: 2",
        f"name: bench-{total}",
        "description: Triage issues in batches, summarize them and route them to reviewers.",
        "inputs:",
        "  repo: string",
        "  issues:",
        "    type: array",
        "    items: {type: integer}",
        "  urgent:",
        "    type: boolean",
        "    default: false",
        "",
        "schemas:",
        "  summary:",
        "    type: object",
        "    properties:",
        "      kind: {type: string, enum: [bug, feature, question]}",
        "      summary: {type: string}",
        "      labels: {type: array, items: {type: string}}",
        "    required: [kind, summary]",
        "",
        "agents:",
        "  reviewer:",
        "    system: You review bug reports and point at the code that is most likely at fault.",
        "    temperature: 0.1",
        "  helper:",
        "    system: You answer questions about the project politely and briefly.",
        "",
        "default:",
        "  model: gpt-4o-mini",
        "  timeout: 120",
        "  retry: {max_attempts: 2, delay_seconds: 1}",
        "",
        "steps:",
    ]


class Gen:
    """Builds one block of steps (ids suffixed with the block number) with a seeded RNG."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def prose(self, indent: str, k: int) -> list[str]:
        pool = EN_LINES + JA_LINES if self.rng.random() < 0.4 else EN_LINES
        return [indent + line for line in self.rng.sample(pool, k)]

    def fetch(self, n: int) -> list[str]:
        return [
            f"  - id: fetch_{n}",
            f'    run: [gh, issue, view, "{{{{ inputs.repo }}}}-{n}", --json, "title,body,labels"]',
            f"    timeout: {self.rng.choice([30, 45, 60])}",
            "    retry: {max_attempts: 3, delay_seconds: 2}",
            "",
        ]

    def summarize(self, n: int) -> list[str]:
        r = self.rng
        servers = r.sample(MCP_SERVERS, r.randint(1, 3))
        return [
            f"  - id: summarize_{n}",
            f"    model: {r.choice(MODELS)}",
            f"    temperature: {r.choice([0.1, 0.2, 0.3])}",
            f"    mcp: [{', '.join(servers)}]",
            f"    timeout: {r.choice([90, 120, 180])}",
            "    prompt: |",
            f"      Summarize this issue from {{{{ inputs.repo }}}} about {r.choice(TOPICS)}.",
            *self.prose("      ", 2),
            "",
            f"      {{{{ steps.fetch_{n} }}}}",
            "      {{#if inputs.urgent}}",
            "      This is urgent: lead with the user impact.",
            "      {{/if}}",
            "    output_schema: summary",
            "",
        ]

    def labels(self, n: int) -> list[str]:
        return [
            f"  - id: labels_{n}",
            f"    jq: '[$steps.summarize_{n}.labels[]? | ascii_downcase] | unique'",
            "",
        ]

    def explain(self, n: int) -> list[str]:
        r = self.rng
        return [
            f"  - id: explain_{n}",
            f"    for_each: '$steps.labels_{n}'",
            f"    max_concurrency: {r.choice([2, 3, 4])}",
            "    steps:",
            "      - prompt: |",
            "          Explain the label {{ loop.item }} (number {{ loop.index }}) to a new contributor.",
            *self.prose("          ", 1),
            f"        max_tokens: {r.choice([300, 400, 600])}",
            "      - jq: '{label: $loop.item, text: .}'",
            "",
        ]

    def route(self, n: int) -> list[str]:
        return [
            f"  - id: route_{n}",
            "    switch:",
            f"      - when: '$steps.summarize_{n}.kind == \"bug\"'",
            "        steps:",
            "          - agent: reviewer",
            f"            input: '{{focus: $steps.summarize_{n}.summary}}'",
            f"      - when: '$steps.summarize_{n}.kind == \"question\"'",
            "        steps:",
            "          - agent: helper",
            "    else:",
            f"      - jq: '$steps.summarize_{n}.summary'",
            "",
        ]

    def checks(self, n: int) -> list[str]:
        return [
            f"  - id: checks_{n}",
            "    parallel:",
            "      tests:",
            f"        - run: [python3, -c, \"print('tests {n}: ok')\"]",
            "      lint:",
            f"        - run: [python3, -c, \"print('lint {n}: ok')\"]",
            "",
        ]

    def reply(self, n: int) -> list[str]:
        r = self.rng
        return [
            f"  - id: reply_{n}",
            f"    when: '$steps.summarize_{n}.kind != \"feature\"'",
            f"    timeout: {r.choice([60, 90])}",
            "    prompt: |",
            "      Draft a reply to the reporter. Classification: {{ json steps.summarize_" + f"{n} }}}}.",
            f"      Routing notes: {{{{ steps.route_{n} }}}}.",
            *self.prose("      ", 1),
            "",
        ]

    def write(self, n: int) -> list[str]:
        return [
            f'  - write: "reports/{{{{ inputs.repo }}}}-{n}.md"',
            f"    input: '$steps.reply_{n}'",
            "",
        ]

    def block(self, n: int) -> list[str]:
        """One issue's pipeline: every kind appears; optional parts vary with the seed."""
        out = self.fetch(n) + self.summarize(n) + self.labels(n) + self.explain(n) + self.route(n)
        if self.rng.random() < 0.5:
            out += self.checks(n)
        out += self.reply(n)
        if self.rng.random() < 0.6:
            out += self.write(n)
        return out


def filler(n: int, size: int) -> list[str]:
    """A small step of exactly ``size`` lines (2 or 3) to hit the requested line count."""
    if size == 2:
        return [f"  - id: tally_{n}", "    jq: '[$steps[] | select(. != null)] | length'"]
    return [f"  - id: tally_{n}", "    input: '$inputs.issues'", "    jq: 'map(tostring) | join(\", \")'"]


def generate(total: int, seed: int) -> str:
    """A clean workflow of exactly ``total`` lines (at least 80)."""
    rng = random.Random(f"{seed}:{total}")
    gen = Gen(rng)
    lines = header_lines(total)
    n = 0
    while True:
        block = gen.block(n)
        if len(lines) + len(block) > total - 2:  # leave room for the fillers
            break
        lines += block
        n += 1
    if n == 0:
        raise SystemExit(f"--sizes: {total} lines is too small for one block of steps")
    rest, k = total - len(lines), 0
    while rest:
        size = 3 if rest % 2 else 2
        lines += filler(k, size)
        rest -= size
        k += 1
    assert len(lines) == total
    return "\n".join(lines) + "\n"


@dataclass
class Seeded:
    line: int  # 0-based
    before: str
    after: str
    what: str


def seed_errors(text: str) -> tuple[str, list[Seeded]]:
    """The variant: a misspelt step key and two wrong types, near 1/4, 1/2 and 3/4 of the file."""
    lines = text.split("\n")
    plan: list[tuple[float, str, Callable[[str], str], str]] = [  # (where, line prefix, new line, what)
        (0.25, "    temperature: ", lambda ln: ln.replace("temperature", "temprature"), "unknown step key"),
        (0.5, "    max_concurrency: ", lambda ln: "    max_concurrency: three", "wrong type (string)"),
        (0.75, "        max_tokens: ", lambda ln: "        max_tokens: lots", "wrong type (string)"),
    ]
    out: list[Seeded] = []
    first_step = lines.index("steps:") + 1
    for frac, prefix, change, what in plan:
        target = int(len(lines) * frac)
        candidates = [i for i, ln in enumerate(lines) if ln.startswith(prefix) and i > first_step]
        if not candidates:
            raise SystemExit(f"generator: no line starts with {prefix!r}")
        i = min(candidates, key=lambda c: abs(c - target))
        before = lines[i]
        after = change(before)
        lines[i] = after
        out.append(Seeded(i, before, after, what))
    return "\n".join(lines), out


def toggle_lines(text: str, avoid: set[int], count: int) -> list[int]:
    """Lines ``    timeout: <int>`` spread over the file, used for the on/off edits."""
    lines = text.split("\n")
    cands = [
        i
        for i, ln in enumerate(lines)
        if ln.startswith("    timeout: ") and ln.split(": ")[1].isdigit() and i not in avoid
    ]
    if not cands:
        raise SystemExit("generator: no step timeout line to toggle")
    if len(cands) <= count:
        return cands
    step = len(cands) / count
    return [cands[int(k * step + step / 2)] for k in range(count)]


# ------------------------------------------------------------------------------------------------
# A small LSP client (JSON-RPC 2.0 with Content-Length framing over a subprocess's stdio)
# ------------------------------------------------------------------------------------------------


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


@dataclass
class DiagWaiter:
    uri: str
    predicate: Callable[[list[JsonObj]], bool]
    future: asyncio.Future[tuple[float, list[JsonObj]]]
    skipped: int = 0  # publishes for this uri that did not match


class LspClient:
    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        cwd: Path,
        configuration: Callable[[JsonObj], Any],
        init_options: Any = None,
        stderr_path: Path,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.argv = list(argv)
        self.cwd = cwd
        self.configuration = configuration
        self.init_options = init_options
        self.stderr_path = stderr_path
        self.env = env
        self.proc: asyncio.subprocess.Process | None = None
        self.next_id = itertools.count(1)
        self.pending: dict[int | str, asyncio.Future[JsonObj]] = {}
        self.waiters: list[DiagWaiter] = []
        self.server_requests: dict[str, int] = {}
        self.configured = asyncio.Event()
        self.capabilities: JsonObj = {}
        self.server_info: JsonObj = {}
        self.sync_kind = 2
        self.reader: asyncio.Task[None] | None = None
        self._stderr: io.BufferedWriter | None = None

    # -- transport --------------------------------------------------------------------------------
    async def start(self) -> None:
        self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
        self._stderr = open(self.stderr_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=self._stderr,
            cwd=self.cwd,
            env=self.env,
            limit=1 << 26,
        )
        self.reader = asyncio.get_running_loop().create_task(self._read_loop())

    async def _read_loop(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stdout = self.proc.stdout
        try:
            while True:
                head = await stdout.readuntil(b"\r\n\r\n")
                length = -1
                for raw in head.decode("ascii").split("\r\n"):
                    name, _, value = raw.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length < 0:
                    raise RuntimeError(f"{self.name}: message without Content-Length: {head!r}")
                body = await stdout.readexactly(length)
                received = time.perf_counter()
                self._dispatch(json.loads(body), received)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            for fut in self.pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError(f"{self.name} closed its output"))
            for w in self.waiters:
                if not w.future.done():
                    w.future.set_exception(ConnectionError(f"{self.name} closed its output"))

    async def _send(self, msg: JsonObj) -> float:
        assert self.proc is not None and self.proc.stdin is not None
        body = json.dumps(msg, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        sent = time.perf_counter()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        await self.proc.stdin.drain()
        return sent

    def _dispatch(self, msg: JsonObj, received: float) -> None:
        method = msg.get("method")
        if method is not None and "id" in msg:  # a request from the server
            self.server_requests[method] = self.server_requests.get(method, 0) + 1
            asyncio.get_running_loop().create_task(self._answer(msg))
        elif method == "textDocument/publishDiagnostics":
            params = msg["params"]
            for w in list(self.waiters):
                if w.uri != params["uri"] or w.future.done():
                    continue
                if w.predicate(params["diagnostics"]):
                    w.future.set_result((received, params["diagnostics"]))
                    self.waiters.remove(w)
                else:
                    w.skipped += 1
        elif method is None:  # a response
            fut = self.pending.pop(msg.get("id", -1), None)
            if fut is not None and not fut.done():
                fut.set_result({**msg, "_received": received})

    async def _answer(self, msg: JsonObj) -> None:
        method, params = msg["method"], msg.get("params") or {}
        result: Any = None
        if method == "workspace/configuration":
            result = [self.configuration(item) for item in params.get("items", [])]
            if any(item.get("section") in ("yaml", "lait") for item in params.get("items", [])):
                self.configured.set()
        elif method == "workspace/workspaceFolders":
            result = [{"uri": self.cwd.as_uri(), "name": self.cwd.name}]
        # client/registerCapability, client/unregisterCapability, window/workDoneProgress/create,
        # window/showMessageRequest and anything else: a null result.
        await self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    # -- messages -------------------------------------------------------------------------------
    async def request(self, method: str, params: Any, timeout: float = WAIT_TIMEOUT_S) -> tuple[Any, float]:
        """The result and the round trip in milliseconds."""
        rid = next(self.next_id)
        fut: asyncio.Future[JsonObj] = asyncio.get_running_loop().create_future()
        self.pending[rid] = fut
        sent = await self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        reply = await asyncio.wait_for(fut, timeout)
        if "error" in reply:
            raise RuntimeError(f"{self.name} {method}: {reply['error']}")
        return reply.get("result"), (reply["_received"] - sent) * 1000.0

    async def notify(self, method: str, params: Any) -> float:
        return await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def expect_diagnostics(self, uri: str, predicate: Callable[[list[JsonObj]], bool]) -> DiagWaiter:
        """Register before sending the change: matches only publishes that arrive from now on."""
        w = DiagWaiter(uri, predicate, asyncio.get_running_loop().create_future())
        self.waiters.append(w)
        return w

    async def wait(self, waiter: DiagWaiter) -> tuple[float, list[JsonObj]]:
        """The receive time and the diagnostics of the first publish that matched."""
        try:
            return await asyncio.wait_for(waiter.future, WAIT_TIMEOUT_S)
        except TimeoutError:
            raise SystemExit(
                f"{self.name}: no matching publishDiagnostics within {WAIT_TIMEOUT_S:.0f} s "
                f"({waiter.skipped} other publishes); see {self.stderr_path}"
            ) from None
        finally:
            if waiter in self.waiters:
                self.waiters.remove(waiter)

    async def initialize(self, root: Path) -> float:
        params = {
            "processId": os.getpid(),
            "clientInfo": {"name": "lait-bench", "version": "1"},
            "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": self.init_options,
            "capabilities": {
                "workspace": {
                    "configuration": True,
                    "workspaceFolders": True,
                    "didChangeConfiguration": {"dynamicRegistration": True},
                },
                "textDocument": {
                    "synchronization": {"dynamicRegistration": False, "didSave": True},
                    "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
                    "completion": {
                        "completionItem": {
                            "snippetSupport": True,
                            "documentationFormat": ["markdown", "plaintext"],
                        },
                        "contextSupport": True,
                    },
                    "hover": {"contentFormat": ["markdown", "plaintext"]},
                },
                "window": {"workDoneProgress": True},
            },
        }
        result, ms = await self.request("initialize", params)
        self.capabilities = result.get("capabilities", {})
        self.server_info = result.get("serverInfo") or {}
        sync = self.capabilities.get("textDocumentSync")
        self.sync_kind = sync.get("change", 1) if isinstance(sync, dict) else int(sync or 1)
        await self.notify("initialized", {})
        return ms

    async def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(Exception):
            await self.request("shutdown", None, timeout=10)
            await self.notify("exit", None)
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except TimeoutError:
            self.proc.terminate()
            try:
                await asyncio.wait_for(self.proc.wait(), 5)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, 5)
        if self._stderr is not None:
            self._stderr.close()


class OpenDoc:
    """The client's copy of an open document; edits produce LSP change events."""

    def __init__(self, client: LspClient, path: Path, text: str) -> None:
        self.client = client
        self.uri = path.as_uri()
        self.lines = text.split("\n")
        self.version = 1

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    async def open(self) -> float:
        item = {"uri": self.uri, "languageId": "yaml", "version": self.version, "text": self.text}
        return await self.client.notify("textDocument/didOpen", {"textDocument": item})

    async def set_line(self, line: int, new: str) -> float:
        """Replace one line's content (an incremental edit, or the full text for full-sync servers)."""
        old = self.lines[line]
        start = 0
        while start < min(len(old), len(new)) and old[start] == new[start]:
            start += 1
        self.lines[line] = new
        self.version += 1
        change: JsonObj
        if self.client.sync_kind == 2:
            change = {
                "range": {
                    "start": {"line": line, "character": utf16_len(old[:start])},
                    "end": {"line": line, "character": utf16_len(old)},
                },
                "text": new[start:],
            }
        else:
            change = {"text": self.text}
        params = {"textDocument": {"uri": self.uri, "version": self.version}, "contentChanges": [change]}
        return await self.client.notify("textDocument/didChange", params)

    async def close(self) -> None:
        await self.client.notify("textDocument/didClose", {"textDocument": {"uri": self.uri}})


# ------------------------------------------------------------------------------------------------
# The two servers
# ------------------------------------------------------------------------------------------------


def yaml_settings() -> JsonObj:
    return {
        "schemas": {WORKFLOW_SCHEMA.as_uri(): ["*.yml"]},
        "schemaStore": {"enable": False},
        "validate": True,
    }


def yls_configuration(item: JsonObj) -> Any:
    section = item.get("section")
    if section == "yaml":
        return yaml_settings()
    if section == "http":
        return {"proxy": "", "proxyStrictSSL": False}
    if section == "editor":
        return {"tabSize": 2, "insertSpaces": True}
    if section == "[yaml]":
        return {}
    return None


def lait_configuration(item: JsonObj) -> Any:
    return {"debounce": 0} if item.get("section") == "lait" else None


def ensure_peer() -> None:
    if YLS_MAIN.exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is needed to install yaml-language-server (bench/package.json)")
    lock = BENCH / "package-lock.json"
    cmd = [npm, "ci" if lock.exists() else "install", "--prefix", str(BENCH), "--no-audit", "--no-fund"]
    print("installing the peer:", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, cwd=BENCH)
    if not YLS_MAIN.exists():
        raise SystemExit(f"{YLS_MAIN} is still missing after npm")


def make_client(server: str, root: Path, logs: Path, *, lait_env: dict[str, str] | None = None) -> LspClient:
    """``lait_env`` (LAIT_PROFILE / LAIT_PHASES) runs lait-ls in this script's process (--serve-lait)."""
    if server == "lait-ls":
        argv = [sys.executable, "-m", "lait_ls.server"]
        if lait_env:
            argv = [sys.executable, str(Path(__file__).resolve()), "--serve-lait"]
        tag = "-".join(sorted(lait_env)) if lait_env else ""
        return LspClient(
            "lait-ls",
            argv,
            cwd=root,
            configuration=lait_configuration,
            init_options={"debounce": 0},
            stderr_path=logs / (f"lait-ls.{tag}.stderr" if tag else "lait-ls.stderr"),
            env={**os.environ, **(lait_env or {})},
        )
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is needed for yaml-language-server")
    return LspClient(
        "yaml-language-server",
        [node, str(YLS_MAIN), "--stdio"],
        cwd=root,
        configuration=yls_configuration,
        stderr_path=logs / "yaml-language-server.stderr",
    )


# ------------------------------------------------------------------------------------------------
# Measurements
# ------------------------------------------------------------------------------------------------


def error_lines(diags: Iterable[JsonObj]) -> set[int]:
    """Start lines of error diagnostics (severity 1). lait's LAIT506 warning on line 1 is ignored."""
    return {d["range"]["start"]["line"] for d in diags if d.get("severity", 1) == 1}


@dataclass
class SizeResult:
    lines: int
    bytes: int
    open_ms: float = 0.0
    open_diagnostics: int = 0
    seeded_messages: dict[int, list[str]] = field(default_factory=dict)
    toggle_messages: list[str] = field(default_factory=list)
    change_ms: list[float] = field(default_factory=list)
    warmup_ms: list[float] = field(default_factory=list)
    skipped_publishes: int = 0

    def summary(self) -> JsonObj:
        return {
            "lines": self.lines,
            "bytes": self.bytes,
            "open_ms": round(self.open_ms, 2),
            "open_diagnostics": self.open_diagnostics,
            "seeded_messages": {str(k + 1): v for k, v in self.seeded_messages.items()},
            "toggle_messages": self.toggle_messages,
            "change_median_ms": round(statistics.median(self.change_ms), 2),
            "change_min_ms": round(min(self.change_ms), 2),
            "change_max_ms": round(max(self.change_ms), 2),
            "change_ms": [round(x, 2) for x in self.change_ms],
            "warmup_ms": [round(x, 2) for x in self.warmup_ms],
            "non_matching_publishes": self.skipped_publishes,
        }


@dataclass
class Case:
    lines: int
    clean: str
    variant: str
    seeded: list[Seeded]
    toggles: list[int]
    path: Path


async def measure_diagnostics(
    client: LspClient, case: Case, edits: int, warmup: int, gap: float
) -> SizeResult:
    res = SizeResult(case.lines, len(case.variant.encode("utf-8")))
    base = {s.line for s in case.seeded}
    doc = OpenDoc(client, case.path, case.variant)

    waiter = client.expect_diagnostics(doc.uri, lambda d: base <= error_lines(d))
    sent = await doc.open()
    received, diags = await client.wait(waiter)
    res.open_ms = (received - sent) * 1000.0
    res.open_diagnostics = len(diags)
    for s in case.seeded:
        res.seeded_messages[s.line] = [d["message"] for d in diags if d["range"]["start"]["line"] == s.line]
    await asyncio.sleep(gap)

    for k in range(warmup + edits):
        line = case.toggles[(k // 2) % len(case.toggles)]
        turn_on = k % 2 == 0
        original = case.variant.split("\n")[line]
        new = original.split(": ")[0] + ": soon" if turn_on else original

        def pred(d: list[JsonObj], line: int = line, on: bool = turn_on) -> bool:
            lines = error_lines(d)
            return base <= lines and ((line in lines) == on)

        waiter = client.expect_diagnostics(doc.uri, pred)
        sent = await doc.set_line(line, new)
        received, diags = await client.wait(waiter)
        res.skipped_publishes += waiter.skipped
        ms = (received - sent) * 1000.0
        (res.warmup_ms if k < warmup else res.change_ms).append(ms)
        if turn_on and not res.toggle_messages:
            res.toggle_messages = [d["message"] for d in diags if d["range"]["start"]["line"] == line]
        await asyncio.sleep(gap)
    await doc.close()
    return res


def request_positions(text: str) -> dict[str, tuple[int, int]]:
    """(line, UTF-16 character) of a key, an ``mcp:`` list item and ``{{ steps.`` in a prompt."""
    lines = text.split("\n")
    mid = len(lines) // 2

    def find(pred: Callable[[str], bool]) -> int:
        for i in itertools.chain(range(mid, len(lines)), range(mid)):
            if pred(lines[i]):
                return i
        raise SystemExit("generator: no line for a request position")

    key = find(lambda s: s.startswith("    model: "))
    mcp = find(lambda s: s.startswith("    mcp: ["))
    ref = find(lambda s: s.startswith("      {{ steps.fetch_"))
    return {
        "key (`model` in a prompt step)": (key, 4),
        "mcp: [ list item": (mcp, utf16_len(lines[mcp][: lines[mcp].index("[") + 1])),
        "{{ steps. in a prompt": (ref, utf16_len(lines[ref][: lines[ref].index("steps.") + len("steps.")])),
    }


REQUEST_MODES = {
    "same text": "repeated on an unchanged document (per-version caches warm)",
    "after an edit": "each request follows an edit of the description line and its diagnostics",
}


def stats_of(samples: Sequence[float]) -> JsonObj:
    return {
        "median_ms": round(statistics.median(samples), 2),
        "min_ms": round(min(samples), 2),
        "max_ms": round(max(samples), 2),
        "samples_ms": [round(x, 2) for x in samples],
    }


async def measure_requests(
    client: LspClient,
    case: Case,
    count: int,
    warmup: int,
    gap: float,
    modes: Sequence[str] = tuple(REQUEST_MODES),
) -> JsonObj:
    """Completion and hover round trips at each position, in both REQUEST_MODES (n/a without the
    capability). "after an edit" waits for the edit's diagnostics first, so only the request is timed."""
    caps = client.capabilities
    features = {
        "completion": "completionProvider",
        "hover": "hoverProvider",
        "semanticTokens": "semanticTokensProvider",
    }
    out: JsonObj = {}
    doc = OpenDoc(client, case.path, case.clean)
    waiter = client.expect_diagnostics(doc.uri, lambda d: True)
    await doc.open()
    await client.wait(waiter)
    positions = request_positions(case.clean)
    desc_line = next(i for i, ln in enumerate(doc.lines) if ln.startswith("description: "))
    desc = doc.lines[desc_line]
    edits = itertools.count(1)
    for feature, cap in features.items():
        if not caps.get(cap):
            out[feature] = {"available": False}
            continue
        out[feature] = {"available": True}
        for mode in modes:
            per: JsonObj = {}
            everything: list[float] = []
            where = {"whole document": (0, 0)} if feature == "semanticTokens" else positions
            method = (
                "textDocument/semanticTokens/full"
                if feature == "semanticTokens"
                else f"textDocument/{feature}"
            )
            for label, (line, ch) in where.items():
                params: JsonObj = {
                    "textDocument": {"uri": doc.uri},
                    "position": {"line": line, "character": ch},
                }
                if feature == "completion":
                    params["context"] = {"triggerKind": 1}
                if feature == "semanticTokens":
                    del params["position"]
                samples: list[float] = []
                result: Any = None
                for k in range(warmup + count):
                    if mode == "after an edit":
                        waiter = client.expect_diagnostics(doc.uri, lambda d: True)
                        await doc.set_line(desc_line, f"{desc} (edit {next(edits)})")
                        await client.wait(waiter)
                        await asyncio.sleep(gap)
                    result, ms = await client.request(method, params)
                    if k >= warmup:
                        samples.append(ms)
                everything += samples
                per[label] = {
                    "line": line + 1,
                    "character": ch,
                    **stats_of(samples),
                    "result": describe_result(feature, result),
                }
            out[feature][mode] = {**stats_of(everything), "positions": per}
    await doc.close()
    return out


def describe_result(feature: str, result: Any) -> str:
    if result is None:
        return "null"
    if feature == "semanticTokens":
        return f"{len(result.get('data', [])) // 5} tokens"
    if feature == "completion":
        items = result.get("items", []) if isinstance(result, dict) else result
        labels = [i.get("label") for i in items[:5]]
        return f"{len(items)} items, first {labels}"
    contents = result.get("contents") if isinstance(result, dict) else None
    value = contents.get("value", "") if isinstance(contents, dict) else str(contents)
    return value.replace("\n", " ")[:80]


# ------------------------------------------------------------------------------------------------
# Setup checks, environment
# ------------------------------------------------------------------------------------------------


def lait_cli() -> list[str]:
    import sysconfig

    script = Path(sysconfig.get_path("scripts")) / "lait"
    return [str(script)] if script.exists() else [sys.executable, "-m", "lait_cli.main"]


PROJECT_CONFIG = """\
# Written by bench/lsp_latency.py: the MCP servers the generated workflows name, so that lait-ls
# checks the names and can complete and explain them. The packages name their versions, as LAIT113
# asks (the bench lints the project and expects it clean).
mcp_servers:
  github: {command: github-mcp-server, args: [stdio]}
  filesystem: {command: npx, args: [-y, "@modelcontextprotocol/server-filesystem@2025.8.21", "."]}
  fetch: {command: uvx, args: [mcp-server-fetch==2025.4.7]}
  git: {command: uvx, args: [mcp-server-git==2025.9.25, --repository, "."]}
"""


def lint_codes(path: Path, config: Path | None) -> list[str]:
    """``lait lint --format json`` with ``--no-config`` or ``--config <config>``: ``CODE@line`` items."""
    how = ["--config", str(config)] if config else ["--no-config"]
    proc = subprocess.run(
        [*lait_cli(), "lint", *how, "--format", "json", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        findings = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError as exc:
        raise SystemExit(f"lait lint printed no JSON for {path}: {proc.stderr}") from exc
    return [f"{f['code']}@{f['line']}" for f in findings]


def build_cases(root: Path, sizes: Sequence[int], seed: int, toggles: int) -> list[Case]:
    """The files, checked: clean with --no-config except LAIT506 and clean with the project's config;
    the variant's findings (either way) are exactly the seeded lines."""
    cases: list[Case] = []
    wf_dir = root / "workflows"
    wf_dir.mkdir(parents=True, exist_ok=True)
    config = root / "lait.config.yml"
    config.write_text(PROJECT_CONFIG, encoding="utf-8")
    for total in sizes:
        clean = generate(total, seed)
        clean_path = wf_dir / f"clean_{total}.yml"
        clean_path.write_text(clean, encoding="utf-8")
        variant, seeded = seed_errors(clean)
        path = wf_dir / f"wf_{total}.yml"
        path.write_text(variant, encoding="utf-8")
        for cfg in (None, config):
            bad = [c for c in lint_codes(clean_path, cfg) if c.split("@")[0] not in EXPECTED_CLEAN_CODES]
            if bad:
                raise SystemExit(f"generated {clean_path} is not clean ({cfg or '--no-config'}): {bad[:10]}")
            codes = [c for c in lint_codes(path, cfg) if c.split("@")[0] not in EXPECTED_CLEAN_CODES]
            if {int(c.split("@")[1]) - 1 for c in codes} != {s.line for s in seeded}:
                where = [s.line + 1 for s in seeded]
                raise SystemExit(f"{path}: lait lint ({cfg or '--no-config'}) found {codes}, seeded {where}")
        avoid = {s.line for s in seeded}
        cases.append(Case(total, clean, variant, seeded, toggle_lines(variant, avoid, toggles), path))
    return cases


def versions() -> JsonObj:
    def run(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout.strip()
        except OSError:
            return "?"

    from importlib.metadata import version

    pkg = json.loads((YLS_MAIN.parent.parent / "package.json").read_text(encoding="utf-8"))
    return {
        "python": platform.python_version(),
        "lait": version("lait"),
        "pygls": version("pygls"),
        "lsprotocol": version("lsprotocol"),
        "node": run(["node", "--version"]),
        "yaml-language-server": pkg.get("version"),
        "git_head": run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]),
        # lait-ls runs from the working tree: uncommitted server changes are part of what was measured
        "git_dirty_server_files": run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "lait_ls", "lait_core"]
        ).splitlines(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }


# ------------------------------------------------------------------------------------------------
# Orchestration and report
# ------------------------------------------------------------------------------------------------


async def run_server(
    server: str, root: Path, logs: Path, cases: Sequence[Case], args: argparse.Namespace
) -> JsonObj:
    client = make_client(server, root, logs)
    await client.start()
    try:
        init_ms = await client.initialize(root)
        if server == "yaml-language-server":
            await asyncio.wait_for(client.configured.wait(), WAIT_TIMEOUT_S)
            await asyncio.sleep(0.2)  # let it apply the settings it just pulled
        out: JsonObj = {
            "server_info": client.server_info,
            "initialize_ms": round(init_ms, 2),
            "sync_kind": client.sync_kind,
            "completion_provider": bool(client.capabilities.get("completionProvider")),
            "hover_provider": bool(client.capabilities.get("hoverProvider")),
            "sizes": {},
        }
        gap = args.gap_ms / 1000.0
        for case in cases:
            res = await measure_diagnostics(client, case, args.edits, args.warmup, gap)
            missing = [s.line + 1 for s in case.seeded if not res.seeded_messages[s.line]]
            if missing:
                raise SystemExit(f"{server} did not report the seeded errors on lines {missing}")
            out["sizes"][str(case.lines)] = res.summary()
            print(
                f"  {server:<21} {case.lines:>6} lines: open {res.open_ms:7.1f} ms, "
                f"change median {statistics.median(res.change_ms):7.1f} ms",
                file=sys.stderr,
            )
        req_case = next((c for c in cases if c.lines == args.request_size), None)
        if req_case is not None:
            out["requests"] = await measure_requests(client, req_case, args.requests, 3, gap)
        out["server_requests"] = client.server_requests
        return out
    finally:
        await client.stop()


def fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}"


def report(results: JsonObj, sizes: Sequence[int], request_size: int) -> list[str]:
    lait, yls = results["servers"]["lait-ls"], results["servers"]["yaml-language-server"]
    out = [
        "didChange -> publishDiagnostics, ms: median (min-max) of "
        f"{results['settings']['edits']} edits after {results['settings']['warmup']} warm-up edits",
        "",
        "| lines | lait-ls (debounce 0) | yaml-ls raw | yaml-ls - 200 ms | ratio raw | ratio adj. "
        "| open lait / yaml-ls |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    summary: JsonObj = {}
    for n in sizes:
        a, b = lait["sizes"][str(n)], yls["sizes"][str(n)]
        adj = b["change_median_ms"] - YLS_DEBOUNCE_MS
        ratio = a["change_median_ms"] / b["change_median_ms"]
        ratio_adj = a["change_median_ms"] / adj if adj > 0 else None
        summary[str(n)] = {
            "lait_median_ms": a["change_median_ms"],
            "yls_median_ms": b["change_median_ms"],
            "yls_minus_debounce_ms": round(adj, 2),
            "ratio_raw": round(ratio, 4),
            "ratio_debounce_adjusted": round(ratio_adj, 4) if ratio_adj is not None else None,
        }
        out.append(
            f"| {n:,} | {fmt(a['change_median_ms'])} ({fmt(a['change_min_ms'])}-{fmt(a['change_max_ms'])}) "
            f"| {fmt(b['change_median_ms'])} ({fmt(b['change_min_ms'])}-{fmt(b['change_max_ms'])}) "
            f"| {fmt(adj)} | {ratio:.3f} | {f'{ratio_adj:.3f}' if ratio_adj is not None else 'n/a'} "
            f"| {fmt(a['open_ms'])} / {fmt(b['open_ms'])} |"
        )
    results["summary"] = summary
    out += [
        "",
        "ratio raw = lait-ls median / yaml-ls median as measured (the target uses this one); "
        "ratio adj. = lait-ls / (yaml-ls - its hard-coded 200 ms validation debounce).",
        "",
        f"Requests at {request_size:,} lines, ms: median (min-max) per position; "
        f"{results['settings']['requests_per_position']} requests per position and mode",
        "",
        "| request | position | lait-ls, same text | lait-ls, after an edit "
        "| yaml-ls, same text | yaml-ls, after an edit |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for feature in ("completion", "hover", "semanticTokens"):
        la = lait.get("requests", {}).get(feature, {"available": False})
        ya = yls.get("requests", {}).get(feature, {"available": False})
        first = la if la.get("available") else ya
        labels = list(first["same text"]["positions"]) if first.get("available") else []

        def cell(r: JsonObj, mode: str, label: str | None) -> str:
            if not r.get("available"):
                return "n/a"
            p = r[mode]["positions"][label] if label else r[mode]
            return f"{fmt(p['median_ms'])} ({fmt(p['min_ms'])}-{fmt(p['max_ms'])})"

        for label in [*labels, None]:
            cells = " | ".join(cell(r, m, label) for r in (la, ya) for m in REQUEST_MODES)
            out.append(f"| {feature} | {label or '**all positions**'} | {cells} |")
    out += [
        "",
        f"same text: {REQUEST_MODES['same text']}; after an edit: {REQUEST_MODES['after an edit']}. "
        "n/a: the server does not offer the request (no provider in its initialize result).",
    ]
    out += ["", "Targets:"]
    checks: list[tuple[str, float | None, float, bool | None]] = []
    if str(request_size) in lait["sizes"]:
        m = lait["sizes"][str(request_size)]["change_median_ms"]
        checks.append((f"lait-ls diagnostics median at {request_size:,} lines (ms)", m, DIAG_TARGET_MS, None))
    big = str(max(sizes))
    big_ratio = lait["sizes"][big]["change_median_ms"] / yls["sizes"][big]["change_median_ms"]
    checks.append((f"ratio raw at {int(big):,} lines", big_ratio, RATIO_TARGET, None))
    for feature in ("completion", "hover", "semanticTokens"):
        r = lait.get("requests", {}).get(feature, {})
        for mode in REQUEST_MODES:
            value = r[mode]["median_ms"] if r.get("available") else None
            what = f"lait-ls {feature} median at {request_size:,} lines, {mode} (ms)"
            limit = SEMANTIC_TOKENS_TARGET_MS if feature == "semanticTokens" else REQUEST_TARGET_MS
            checks.append((what, value, limit, None))
    targets = []
    for label, value, limit, _ in checks:
        verdict = "n/a" if value is None else ("PASS" if value <= limit else "MISS")
        targets.append({"what": label, "value": value, "target": limit, "verdict": verdict})
        out.append(
            f"- {label}: {fmt(value) if value is None or value >= 1 else f'{value:.3f}'} <= {limit} -> {verdict}"
        )
    results["targets"] = targets
    return out


def phase_rows(
    raw: dict[str, list[list[float]]], phases: Iterable[Phase], buckets: Iterable[int]
) -> list[JsonObj]:
    """Per phase: calls and the median of the per-bucket total, over the given didChange buckets."""
    wanted = list(buckets)
    rows: list[JsonObj] = []
    for phase in phases:
        per: dict[int, list[float]] = {n: [] for n in wanted}
        for n, ms in raw.get(phase.label, []):
            if int(n) in per:
                per[int(n)].append(ms)
        calls = sum(len(v) for v in per.values())
        if calls and per:
            total = statistics.median(sum(v) for v in per.values())
            rows.append(
                {"phase": phase.label, "calls_per": round(calls / len(per), 2), "median_ms": round(total, 2)}
            )
    return rows


def print_rows(title: str, unit: str, rows: Sequence[JsonObj]) -> None:
    print(title)
    print(f"| phase (nested: a row includes the rows it calls) | calls per {unit} | median ms per {unit} |")
    print("|---|---:|---:|")
    for r in rows:
        print(f"| {r['phase']} | {r['calls_per']:g} | {r['median_ms']:.2f} |")


def print_profile(path: Path, title: str, top: int) -> None:
    buf = io.StringIO()
    try:
        stats = pstats.Stats(str(path), stream=buf)
    except TypeError:  # an empty profile (the entry points were never called)
        return
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    print(f"\n=== {title} ({path}) ===")
    print(buf.getvalue())


async def profile_pass(root: Path, logs: Path, cases: Sequence[Case], args: argparse.Namespace) -> JsonObj:
    """lait-ls in-process (--serve-lait) for the same edits (and, at --request-size, completion and hover
    after an edit): first wall-clock phases (LAIT_PHASES, little overhead), then cProfile inside the
    entry points (LAIT_PROFILE; it inflates call-heavy Python code, so read it for proportions)."""
    out: JsonObj = {}
    gap = args.gap_ms / 1000.0
    for case in cases:
        phase_file = logs / f"lait-ls.{case.lines}.phases.json"
        prof_file = logs / f"lait-ls.{case.lines}.prof"
        runs: dict[str, SizeResult] = {}
        requests: dict[str, JsonObj] = {}
        for var, target in (("LAIT_PHASES", phase_file), ("LAIT_PROFILE", prof_file)):
            target.unlink(missing_ok=True)
            client = make_client("lait-ls", root, logs, lait_env={var: str(target)})
            await client.start()
            try:
                await client.initialize(root)
                runs[var] = await measure_diagnostics(client, case, args.edits, args.warmup, gap)
                if case.lines == args.request_size:
                    requests[var] = await measure_requests(
                        client, case, args.requests, 3, gap, modes=("after an edit",)
                    )
            finally:
                await client.stop()
            if not target.exists():
                raise SystemExit(f"the in-process server wrote no {target}")

        observed = statistics.median(runs["LAIT_PHASES"].change_ms)
        raw: dict[str, list[list[float]]] = json.loads(phase_file.read_text(encoding="utf-8"))
        edits = range(args.warmup + 1, args.warmup + args.edits + 1)  # the timed didChange numbers
        rows = phase_rows(raw, (p for p in PHASES if p.path == "diagnostics"), edits)
        print_rows(
            f"\n=== lait-ls diagnostics phases at {case.lines:,} lines (in-process server, no profiler; "
            f"client-observed median in this run {observed:.1f} ms) ===\n",
            "edit",
            rows,
        )
        entry: JsonObj = {"observed_median_ms": round(observed, 2), "phases": rows}
        req = requests.get("LAIT_PHASES", {})
        # After the diagnostics edits, every "after an edit" request has its own didChange bucket.
        later = sorted(
            {int(n) for samples in raw.values() for n, _ in samples if n > args.warmup + args.edits}
        )
        for feature, entry_label in (
            ("completion", "lait-ls: completion: compute"),
            ("hover", "lait-ls: hover: hover_at"),
        ):
            if not req.get(feature, {}).get("available"):
                continue
            buckets = [n for n in later if any(int(m) == n for m, _ in raw.get(entry_label, []))]
            buckets = buckets[3 * len(request_positions(case.clean)) :] or buckets  # skip the warm-up
            req_rows = phase_rows(raw, (p for p in PHASES if p.path == "requests"), buckets)
            median = req[feature]["after an edit"]["median_ms"]
            print_rows(
                f"\n=== lait-ls {feature} after an edit, {case.lines:,} lines (client-observed median "
                f"{median:.1f} ms) ===\n",
                "request",
                req_rows,
            )
            entry[f"{feature}_after_edit"] = {"observed_median_ms": median, "phases": req_rows}

        under = statistics.median(runs["LAIT_PROFILE"].change_ms)
        print_profile(
            prof_file,
            f"cProfile of lait-ls's diagnostics path, {case.lines:,} lines (median under the profiler "
            f"{under:.1f} ms per edit)",
            args.profile_top,
        )
        req_prof = Path(str(prof_file) + ".requests.prof")
        if req_prof.exists():
            print_profile(
                req_prof, "cProfile of lait-ls's completion and hover after an edit", args.profile_top
            )
        out[str(case.lines)] = {
            **entry,
            "profile_file": str(prof_file),
            "median_under_profiler_ms": round(under, 2),
        }
    return out


async def main_async(args: argparse.Namespace) -> int:
    ensure_peer()
    OUT_FILE.parent.mkdir(parents=True, exist_ok=True)
    logs = OUT_FILE.parent / "lsp_latency_logs"
    logs.mkdir(exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="lait-lsp-bench-"))
    try:
        root = tmp / "project"
        cases = build_cases(root, args.sizes, args.seed, args.toggles)
        results: JsonObj = {
            "versions": versions(),
            "settings": {
                "sizes": args.sizes,
                "seed": args.seed,
                "edits": args.edits,
                "warmup": args.warmup,
                "gap_ms": args.gap_ms,
                "requests_per_position": args.requests,
                "request_size": args.request_size,
                "lait_init_options": {"debounce": 0},
                "yaml_settings": yaml_settings(),
                "yls_debounce_ms": YLS_DEBOUNCE_MS,
            },
            "cases": {
                str(c.lines): {
                    "seeded": [{"line": s.line + 1, "before": s.before, "after": s.after} for s in c.seeded],
                    "toggle_lines": [t + 1 for t in c.toggles],
                }
                for c in cases
            },
            "load_before": os.getloadavg(),
            "servers": {},
        }
        for server in () if args.workspace_only else ("lait-ls", "yaml-language-server"):
            print(f"measuring {server} ...", file=sys.stderr)
            results["servers"][server] = await run_server(server, root, logs, cases, args)
        results["load_after"] = os.getloadavg()
        if not args.workspace_only:
            print("\n".join(report(results, args.sizes, args.request_size)))
        print(
            f"\nload average before/after: {results['load_before'][0]:.2f} / {results['load_after'][0]:.2f} "
            f"({os.cpu_count()} CPUs); JSON: {OUT_FILE}"
        )
        if args.workspace:
            print(f"measuring workspace/diagnostic on {args.workspace} workflows ...", file=sys.stderr)
            ws = await measure_workspace(tmp, logs, args.workspace, args.workspace_runs, args.seed)
            results["workspace"] = ws
            verdict = "PASS" if ws["ratio_cold"] <= WORKSPACE_RATIO_TARGET else "MISS"
            print(
                f"\nworkspace/diagnostic on the lint bench project ({ws['files']} files, {ws['findings']} findings): "
                f"cold {fmt(ws['workspace_diagnostic_cold']['median_ms'])} ms, warm "
                f"{fmt(ws['workspace_diagnostic_warm']['median_ms'])} ms (no change), "
                f"{fmt(ws['workspace_diagnostic_one_agent_changed']['median_ms'])} ms (one agent changed: "
                f"{ws['full_reports_after_one_change']} full reports); lait lint {fmt(ws['lait_lint']['median_ms'])} ms, "
                f"lait lint --jobs 1 {fmt(ws['lait_lint_jobs_1']['median_ms'])} ms ({os.cpu_count()} CPUs)"
                f"\n- ratio warm / lait lint: {ws['ratio_warm']:.3f}"
                f"\n- ratio cold / lait lint --jobs 1 (one process each): {ws['ratio_cold_jobs_1']:.3f}"
                f"\n- ratio cold / lait lint: {ws['ratio_cold']:.3f} <= {WORKSPACE_RATIO_TARGET} -> {verdict}"
            )
        OUT_FILE.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if args.profile:
            prof_cases = [c for c in cases if c.lines in (args.profile_sizes or [max(args.sizes)])]
            results["profile"] = await profile_pass(root, logs, prof_cases, args)
        OUT_FILE.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    finally:
        if args.keep:
            print(f"kept the generated files in {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


async def measure_workspace(tmp: Path, logs: Path, n: int, runs: int, seed: int) -> JsonObj:
    """``workspace/diagnostic`` (pull mode) on the project of bench/lint_vs_check_jsonschema.py with
    ``n`` workflows, against ``lait lint <project>`` on the same files (both search for a config and
    find none; the global config is isolated). Each run of lait-ls is a fresh server: the first
    request after ``initialize`` (cold), a second one (warm, every file unchanged: answered from the
    per-file cache) and a third after one agent file changed on disk (it and its callers re-checked)."""
    sys.path.insert(0, str(BENCH))
    import lint_vs_check_jsonschema as corpus_bench

    root = tmp / f"workspace_{n}"
    corpus = corpus_bench.generate_corpus(root, n, seed)
    project = corpus.project
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "no-xdg-config")}
    files = len(corpus.workflows) + len(corpus.agents)
    lint_ms: list[float] = []
    lint_one_ms: list[float] = []  # `lait lint --jobs 1`: one process, like lait-ls's in-process lint
    findings = 0
    for _ in range(runs):
        for jobs, samples in ((None, lint_ms), ("1", lint_one_ms)):
            started = time.perf_counter()
            proc = subprocess.run(
                [*lait_cli(), "lint", "--format", "json", *(["--jobs", jobs] if jobs else []), str(project)],
                capture_output=True,
                text=True,
                env=env,
                check=False,
            )
            samples.append((time.perf_counter() - started) * 1000.0)
            count = len(json.loads(proc.stdout or "[]"))
            if jobs is not None and count != findings:
                raise SystemExit(f"lait lint --jobs {jobs} found {count} problems, lait lint {findings}")
            findings = count
    cold: list[float] = []
    warm: list[float] = []
    one_change: list[float] = []
    full_after_change: list[int] = []
    reported = 0
    for k in range(runs):
        client = LspClient(
            "lait-ls",
            [sys.executable, "-m", "lait_ls.server"],
            cwd=project,
            configuration=lait_configuration,
            init_options={"debounce": 0, "diagnostics": "pull"},
            stderr_path=logs / f"lait-ls.workspace.{k}.stderr",
            env=env,
        )
        await client.start()
        try:
            await client.initialize(project)
            result, ms = await client.request("workspace/diagnostic", {"previousResultIds": []}, timeout=600)
            cold.append(ms)
            items = result.get("items", [])
            reported = sum(len(i.get("items", [])) for i in items)
            previous = [{"uri": i["uri"], "value": i["resultId"]} for i in items if i.get("resultId")]
            _result, ms = await client.request(
                "workspace/diagnostic", {"previousResultIds": previous}, timeout=600
            )
            warm.append(ms)
            # one agent changes on disk (an unknown frontmatter key: a new finding there and in the
            # workflows that use it): they are linted again, the rest come from the cache
            agent = corpus.agents[k % len(corpus.agents)]
            text = agent.read_text(encoding="utf-8")
            agent.write_text(text.replace("---\n", f"---\nbench_edit_{k}: 1\n", 1), encoding="utf-8")
            result, ms = await client.request(
                "workspace/diagnostic", {"previousResultIds": previous}, timeout=600
            )
            one_change.append(ms)
            changed_items = result.get("items", [])
            full_after_change.append(sum(1 for i in changed_items if i.get("kind") == "full"))
            agent.write_text(text, encoding="utf-8")  # the next run starts from the same files
            if not full_after_change[-1]:
                raise SystemExit("after one agent changed, no file was reported in full")
        finally:
            await client.stop()
    if reported != findings:
        raise SystemExit(f"workspace/diagnostic reported {reported} problems, lait lint {findings}")
    return {
        "workflows": len(corpus.workflows),
        "files": files,
        "findings": findings,
        "lait_lint": stats_of(lint_ms),
        "lait_lint_jobs_1": stats_of(lint_one_ms),
        "workspace_diagnostic_cold": stats_of(cold),
        "workspace_diagnostic_warm": stats_of(warm),
        "workspace_diagnostic_one_agent_changed": stats_of(one_change),
        "full_reports_after_one_change": full_after_change,
        "ratio_warm": round(statistics.median(warm) / statistics.median(lint_ms), 4),
        "ratio_cold": round(statistics.median(cold) / statistics.median(lint_ms), 4),
        "ratio_cold_jobs_1": round(statistics.median(cold) / statistics.median(lint_one_ms), 4),
    }


@dataclass(frozen=True)
class Phase:
    """A function --serve-lait wraps: ``module.obj.attr`` (obj "" = the module itself)."""

    label: str
    module: str
    obj: str
    attr: str
    path: str  # "diagnostics" (bucketed per didChange) or "requests" (per call)
    entry: bool = False  # an entry point: cProfile is on inside it under LAIT_PROFILE


PHASES: list[Phase] = [
    Phase(
        "pygls: handle didChange (sync part)",
        "pygls.protocol.json_rpc",
        "JsonRPCProtocol",
        "handle_message",
        "diagnostics",
    ),
    Phase(
        "pygls: apply the incremental edit",
        "pygls.workspace.workspace",
        "Workspace",
        "update_text_document",
        "diagnostics",
    ),
    Phase(
        "lait-ls: didChange handler (_changed)",
        "lait_ls.features.diagnostics",
        "",
        "_changed",
        "diagnostics",
        True,
    ),
    Phase(
        "lait-ls: kind_of (lait-file detection)",
        "lait_ls.language_server",
        "LaitServer",
        "kind_of",
        "diagnostics",
    ),
    Phase(
        "lait-ls: publish (compute + send)",
        "lait_ls.features.diagnostics",
        "",
        "publish",
        "diagnostics",
        True,
    ),
    Phase("lait-ls: compute", "lait_ls.features.diagnostics", "", "compute", "diagnostics"),
    Phase("lait_core: Linter.lint_text", "lait_core.lint.engine", "Linter", "lint_text", "diagnostics"),
    Phase("lait_core: parse_workflow", "lait_core.lint.engine", "", "parse_workflow", "diagnostics"),
    Phase(
        "lait_core: parse_yaml (in parse_workflow)",
        "lait_core.documents.workflow_file",
        "",
        "parse_yaml",
        "diagnostics",
    ),
    Phase("lait_core: WorkflowChecks.run", "lait_core.lint.engine", "WorkflowChecks", "run", "diagnostics"),
    Phase("lait-ls: to_lsp (all diagnostics)", "lait_ls.features.diagnostics", "", "to_lsp", "diagnostics"),
    Phase(
        "pygls: send publishDiagnostics",
        "lait_ls.language_server",
        "LaitServer",
        "text_document_publish_diagnostics",
        "diagnostics",
    ),
    # Completion and hover are being written: missing modules or names are skipped.
    Phase("lait-ls: hover: hover_at", "lait_ls.features.hover", "", "hover_at", "requests", True),
    Phase("lait-ls: completion: compute", "lait_ls.features.completion", "", "compute", "requests", True),
    Phase(
        "lait_core: completion prepare (per version)",
        "lait_ls.features.completion",
        "",
        "prepare",
        "requests",
    ),
    Phase("lait_core: completion complete", "lait_ls.features.completion", "", "complete", "requests"),
    Phase(
        "lait_core: Project.index (per document text)",
        "lait_core.language.symbols",
        "Project",
        "index",
        "requests",
    ),
    Phase(
        "lait_core: build_index (text changed)", "lait_core.language.symbols", "", "build_index", "requests"
    ),
    Phase(
        "lait_core: Project.index_path (files read)",
        "lait_core.language.symbols",
        "Project",
        "index_path",
        "requests",
    ),
    Phase(
        "lait_core: Project._walk (directory scan)",
        "lait_core.language.symbols",
        "Project",
        "_walk",
        "requests",
    ),
]


def serve_lait() -> None:
    """lait-ls in this process. LAIT_PHASES=<file>: wall-clock time per phase (see PHASES) as JSON.
    LAIT_PROFILE=<file>: cProfile inside the entry points of the diagnostics path (didChange handling
    and publish), written to <file>; of hover/completion to <file>.requests.prof."""
    import importlib

    from lait_ls import server

    prof_target, phase_target = os.environ.get("LAIT_PROFILE"), os.environ.get("LAIT_PHASES")
    profs = {"diagnostics": cProfile.Profile(), "requests": cProfile.Profile()}
    phases: dict[str, list[tuple[int, float]]] = {}  # label -> [(didChange number, ms)]
    counter = [0]  # didOpen = 0, then +1 per didChange or didClose: the samples' bucket

    def wrap(fn: Callable[..., Any], phase: Phase) -> Callable[..., Any]:
        samples = phases.setdefault(phase.label, [])
        prof = profs[phase.path] if prof_target and phase.entry else None
        is_dispatch = phase.attr == "handle_message"

        def wrapper(*a: Any, **kw: Any) -> Any:
            if is_dispatch:
                method = getattr(a[1], "method", None)
                if method in ("textDocument/didChange", "textDocument/didClose"):
                    counter[0] += 1
                if method != "textDocument/didChange":
                    return fn(*a, **kw)
            if prof is not None:
                prof.enable()
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                samples.append((counter[0], (time.perf_counter() - t) * 1000.0))
                if prof is not None:
                    prof.disable()

        return wrapper

    # lait-ls's handlers and lait_core look these names up at call time (module globals or class
    # attributes), so replacing them here takes effect. Under cProfile only the entry points are
    # wrapped, so that the wrappers do not show up in the profile.
    for phase in PHASES:
        if not (phase_target or (prof_target and phase.entry)):
            continue
        try:
            module = importlib.import_module(phase.module)
            owner = getattr(module, phase.obj) if phase.obj else module
            original = getattr(owner, phase.attr)
        except (ImportError, AttributeError):
            continue
        setattr(owner, phase.attr, wrap(original, phase))
    try:
        server.main()
    finally:
        if prof_target:
            profs["diagnostics"].dump_stats(prof_target)
            profs["requests"].dump_stats(prof_target + ".requests.prof")
        if phase_target:
            Path(phase_target).write_text(json.dumps(phases), encoding="utf-8")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--sizes", type=int, nargs="+", default=[100, 1_000, 10_000], help="workflow lengths")
    p.add_argument("--edits", type=int, default=12, help="timed didChange edits per size and server")
    p.add_argument("--warmup", type=int, default=4, help="untimed edits first")
    p.add_argument("--toggles", type=int, default=8, help="lines the on/off edits cycle through")
    p.add_argument("--gap-ms", type=float, default=50.0, help="idle time between edits")
    p.add_argument("--requests", type=int, default=20, help="completion/hover requests per position")
    p.add_argument(
        "--request-size", type=int, default=1_000, help="size for completion/hover and the 30 ms target"
    )
    p.add_argument("--seed", type=int, default=20240601)
    p.add_argument(
        "--workspace", type=int, default=500, help="workflows of the workspace/diagnostic project (0: skip)"
    )
    p.add_argument("--workspace-runs", type=int, default=3, help="fresh servers (and lait lint runs) timed")
    p.add_argument("--workspace-only", action="store_true", help="only the workspace/diagnostic measurement")
    p.add_argument("--keep", action="store_true", help="keep the generated files")
    p.add_argument("--profile", action="store_true", help="then profile lait-ls's diagnostics path")
    p.add_argument("--profile-sizes", type=int, nargs="+", help="sizes to profile (default: the largest)")
    p.add_argument("--profile-top", type=int, default=25, help="rows per profile listing")
    args = p.parse_args(argv)
    if args.edits < 1 or args.requests < 1:
        p.error("--edits and --requests must be at least 1")
    return args


def main() -> int:
    if sys.argv[1:2] == ["--serve-lait"]:
        serve_lait()
        return 0
    return asyncio.run(main_async(parse_args()))


if __name__ == "__main__":
    sys.exit(main())
