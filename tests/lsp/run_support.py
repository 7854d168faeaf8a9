"""Helpers for the editor-run tests: a pytest-lsp client that answers lait's dialogs from a script,
a project (config, shell tool, eliciting MCP server) wired to the scripted model server, and
process checks."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from lait_ls.protocol import dict_converter
from tests.peers.openai_server import ScriptedOpenAIServer

SERVER = [sys.executable, "-m", "lait_ls.server"]
ROOT = Path(__file__).resolve().parents[2]
HANG = "hang"
"""A scripted answer that never comes (the test cancels the run meanwhile)."""


class RunClient(LanguageClient):
    """Records every lait/* dialog and run event; answers dialogs from ``script[method]``."""

    def __init__(self) -> None:
        super().__init__(converter_factory=dict_converter)
        self.script: dict[str, deque[Any]] = {}
        self.dialogs: list[tuple[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.init_result: lsp.InitializeResult | None = None
        self.shut_down = False
        """The test sent shutdown itself."""
        self.withdrawn = 0
        """Dialogs the server cancelled ($/cancelRequest) while they were open."""
        self.delay = 0.0
        """Seconds each dialog stays open before it is answered."""
        self.shown: list[lsp.ShowDocumentParams] = []
        """``window/showDocument`` requests (answered with ``on_show_document``, then success)."""
        self.on_show_document: Any = None
        self.open_now = 0
        self.peak = 0
        """The most dialogs ever open at the same time."""

    def answer(self, method: str, *answers: Any) -> None:
        self.script.setdefault(method, deque()).extend(answers)

    async def reply(self, method: str, params: Any) -> Any:
        self.dialogs.append((method, params))
        self.open_now += 1
        self.peak = max(self.peak, self.open_now)
        try:
            return await self._answer(method, params)
        finally:
            self.open_now -= 1

    async def _answer(self, method: str, params: Any) -> Any:
        if self.delay:
            await asyncio.sleep(self.delay)
        queue = self.script.get(method)
        if not queue:
            raise AssertionError(f"unexpected {method}: {params}")
        value = queue.popleft()
        if value == HANG:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                self.withdrawn += 1
                raise
        return value

    def events_of(self, run_id: str) -> list[dict[str, Any]]:
        return [e["event"] for e in self.events if e["runId"] == run_id]


def make_client() -> RunClient:
    client = RunClient()
    defaults = {m: f for m, f in DEFAULT_CLIENT_FEATURES.items() if m != lsp.WINDOW_SHOW_DOCUMENT}
    register_lsp_features(client, defaults)

    def answering(method: str) -> Any:
        async def handler(params: Any) -> Any:
            return await client.reply(method, params)

        return handler

    for method in ("lait/approveToolCall", "lait/elicit", "lait/ask"):
        client.feature(method)(answering(method))

    @client.feature(lsp.WINDOW_SHOW_MESSAGE_REQUEST)
    async def show_message_request(params: lsp.ShowMessageRequestParams) -> lsp.MessageActionItem | None:
        title = await client.reply(lsp.WINDOW_SHOW_MESSAGE_REQUEST, params)
        return None if title is None else lsp.MessageActionItem(title=title)

    @client.feature(lsp.WINDOW_SHOW_DOCUMENT)
    async def show_document(params: lsp.ShowDocumentParams) -> lsp.ShowDocumentResult:
        client.shown.append(params)
        if client.on_show_document is not None:
            await client.on_show_document(params)
        return lsp.ShowDocumentResult(success=True)

    @client.feature("lait/runEvent")
    def run_event(params: Any) -> None:
        client.events.append(params)

    return client


@contextlib.asynccontextmanager
async def run_client(
    tmp_path: Path,
    *,
    lait: bool = True,
    approve: str | None = "always",
    progress: bool = True,
    init: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    log: Path | None = None,
    show_document: bool = False,
) -> AsyncIterator[RunClient]:
    """``approve=None``: no ``approveTools`` setting at all (the server's default); ``init``: more
    initialization options; ``env``: more variables in the server's environment; ``log``: a file
    the server's stderr (its log) goes to; ``show_document``: declare ``window.showDocument``."""
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),  # editor runs append to the history there
        "PYTHONPATH": str(ROOT),
        **(env or {}),
    }
    command = SERVER
    if log is not None:
        boot = "import os, sys; os.dup2(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_APPEND), 2); "
        command = [sys.executable, "-c", boot + "from lait_ls.server import main; main()", str(log)]
    config = ClientServerConfig(server_command=command, server_env=env, client_factory=make_client)
    client = await config.start()
    assert isinstance(client, RunClient)
    experimental = {"lait": {"version": 1, "requests": ["lait/approveToolCall", "lait/elicit", "lait/ask"]}}
    client.init_result = await client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(
                experimental=experimental if lait else None,
                window=lsp.WindowClientCapabilities(
                    work_done_progress=progress,
                    show_message=lsp.ShowMessageRequestClientCapabilities(),
                    show_document=lsp.ShowDocumentClientCapabilities(support=True) if show_document else None,
                ),
            ),
            root_uri=tmp_path.as_uri(),
            initialization_options={
                "debounce": 0,
                **({"approveTools": approve} if approve else {}),
                **(init or {}),
            },
        )
    )
    try:
        yield client
    finally:
        if not client.shut_down:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.shutdown_session(), 10)
        await client.stop()


def write_project(root: Path, llm: ScriptedOpenAIServer, *, pid_file: Path | None = None) -> None:
    """lait.config.yml: the scripted model, a shell tool ``shout`` and the eliciting MCP server
    ``notes`` (elicitation allowed)."""
    (root / "sleepy.py").write_text(SLEEPY, encoding="utf-8")
    notes_env = f"\n    env: {{LAIT_TEST_PID_FILE: '{pid_file}'}}" if pid_file else ""
    (root / "lait.config.yml").write_text(
        f"""base_url: {llm.url}
default:
  model: test-model
models:
  test-model:
    - provider: {{base_url: "{llm.url}"}}
      model_id: scripted
mcp_servers:
  notes:
    command: {sys.executable}
    args: [-m, tests.peers.mcp_elicit_server]
    cwd: {ROOT}
    allow_elicitation: true{notes_env}
tools:
  shout:
    description: Print a text in capitals.
    command: [{sys.executable}, -c, "import sys; print(sys.argv[1].upper())", "{{{{ input.text }}}}"]
    parameters:
      type: object
      properties:
        text: {{type: string}}
      required: [text]
  sleepy:
    description: Start a child process and sleep.
    command: [{sys.executable}, {root / "sleepy.py"}, "{pid_file or ""}"]
    timeout: 120
""",
        encoding="utf-8",
    )


SLEEPY = """import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
if sys.argv[1]:
    with open(sys.argv[1], "a") as f:
        f.write(f"{os.getpid()}\\n{child.pid}\\n")
time.sleep(120)
"""


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


async def wait_until(predicate: Any, timeout: float = 10.0) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True
