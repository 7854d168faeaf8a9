"""Running workflows and agents from the editor: the ``lait/run`` request and ``lait/status``.

Each run is the handler task of its ``lait/run`` request, so ``$/cancelRequest`` (or cancelling its
work-done progress) cancels it: the tool loop kills its tool process trees, and leaving
:meth:`RunSession.open` closes the MCP servers and the HTTP client. Several runs may be in flight;
their dialogs are serialised by the server's one :class:`~lait_ls.interaction.DialogState`.

The run reports through ``lait/runEvent`` (``runStarted``, the engine's events, ``runFinished``) and,
when the client supports it, standard work-done progress (``$/progress`` begin / report / end).
A user error ends the run with ``status: "failed"`` and ``error: "lait: <message>"``, never with a
traceback; cancellation ends the request with ``RequestCancelled`` (-32800).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from lait_core import __version__
from lait_ls import protocol
from lait_ls.interaction import DialogState, EditorInteraction, client_speaks_lait

if TYPE_CHECKING:
    from lait_core.documents.document_models import Config
    from lait_core.engine.llm.chat_types import Usage
    from lait_core.engine.run.interaction import Event
    from lait_core.engine.run.run_session import RunSession
    from lait_ls.server import LaitServer
from lait_ls.run_common import RunFailed, load_run_config, notify

log = logging.getLogger("lait-ls")

STATUS = "lait/status"


UNTRUSTED = (
    "running is disabled in Restricted Mode (the workspace is not trusted): a run starts the "
    "workspace's tools, MCP servers and run: steps; a dry run, which starts nothing, is allowed"
)


def configure_trust(ls: LaitServer, options: Any) -> None:
    """``trusted: false`` in the initialization options (also under a "lait" key): dry runs only."""
    if isinstance(options, dict):
        lait = options.get("lait", options)
        if isinstance(lait, dict) and isinstance(lait.get("trusted"), bool):
            state_of(ls).trusted = lait["trusted"]


@dataclass
class RunState:
    """Per server: the dialog lock and grants, the runs in flight, the approval setting."""

    dialogs: DialogState = field(default_factory=DialogState)
    active: dict[str, asyncio.Task[Any]] = field(default_factory=dict)
    approve_tools: str = "always"
    trusted: bool = True
    """False when the client said so at initialize (``trusted: false``, VS Code's Restricted Mode):
    only dry runs, which start nothing. Never changed by workspace/didChangeConfiguration, whose
    settings a workspace can write."""
    shut_down: bool = False
    """The client sent ``shutdown`` (``exit`` then ends with status 0, else 1)."""
    children: dict[str, set[int]] = field(default_factory=dict)
    """Per run in flight: the pids (process-group leaders) of every child it spawned -- tool
    processes and MCP servers -- for killing them when the server itself is terminated."""


def state_of(ls: LaitServer) -> RunState:
    state = getattr(ls, "lait_runs", None)
    if not isinstance(state, RunState):
        state = RunState()
        ls.lait_runs = state  # type: ignore[attr-defined]
    return state


# -- progress ----------------------------------------------------------------------------------
class RunProgress:
    """Work-done progress of one run (a no-op without a token)."""

    def __init__(self, ls: LaitServer, token: str | int | None, task: asyncio.Task[Any] | None) -> None:
        self.ls = ls
        self.token = token
        self.task = task

    @classmethod
    async def start(
        cls, ls: LaitServer, token: str | int | None, run_id: str, title: str, task: asyncio.Task[Any] | None
    ) -> RunProgress:
        if token is None and _client_supports_progress(ls):
            token = f"lait-run-{run_id}"
            try:
                await ls.work_done_progress.create_async(token)
            except Exception as exc:  # the client refused: run without progress
                log.info("window/workDoneProgress/create failed: %s", exc)
                token = None
        progress = cls(ls, token, task)
        if token is not None:
            ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(title=title, cancellable=True))
            cancelled = ls.work_done_progress.tokens.get(token)
            if cancelled is not None and task is not None:
                loop = asyncio.get_running_loop()
                cancelled.add_done_callback(lambda f: loop.call_soon_threadsafe(progress._cancel, f))
        return progress

    def _cancel(self, future: Any) -> None:
        if future.cancelled() and self.task is not None and not self.task.done():
            self.task.cancel()

    def on_event(self, event: Event, payload: Mapping[str, Any]) -> None:
        if self.token is None:
            return
        message = _progress_message(payload)
        if message is not None:
            self.ls.work_done_progress.report(self.token, lsp.WorkDoneProgressReport(message=message))

    def end(self, message: str) -> None:
        if self.token is None:
            return
        from lait_core.support.redact import redact

        self.ls.work_done_progress.end(self.token, lsp.WorkDoneProgressEnd(message=redact(message)))
        self.ls.work_done_progress.tokens.pop(self.token, None)


def _client_supports_progress(ls: LaitServer) -> bool:
    try:
        window = ls.client_capabilities.window
    except AttributeError:
        return False
    return bool(window is not None and window.work_done_progress)


def _progress_message(payload: Mapping[str, Any]) -> str | None:
    kind = payload.get("type")
    if kind == "stepStarted":
        return f"{payload.get('prefix') or ''}[{payload.get('n')}] {payload.get('label')}"
    if kind == "toolCall":
        return f"tool {payload.get('name')}"
    return None


# -- the run -----------------------------------------------------------------------------------
async def execute(
    ls: LaitServer, params: protocol.RunParams, work_done_token: str | int | None
) -> dict[str, Any]:
    """Run ``params`` to the end and return the ``lait/run`` result (cancellation propagates)."""
    state = state_of(ls)
    run_id = params.run_id or f"run-{uuid.uuid4().hex[:12]}"
    path = ls.path_of(params.uri)
    kind = params.kind or _kind_of(path)
    if run_id in state.active:
        from pygls.exceptions import JsonRpcInvalidParams

        raise JsonRpcInvalidParams(f"runId '{run_id}' is already running")
    task = asyncio.current_task()
    if task is not None:  # before the first await: a second request with this runId is refused
        state.active[run_id] = task
    title = f"lait: {'dry run' if params.dry_run else 'run'} {path.name if path else params.uri}"
    try:
        progress = await RunProgress.start(ls, work_done_token, run_id, title, task)
    except BaseException:
        state.active.pop(run_id, None)
        raise
    interaction = EditorInteraction(
        ls, run_id, state.dialogs, lait_client=client_speaks_lait(ls), on_event=progress.on_event
    )
    started = time.monotonic()
    notify(ls, run_id, {"type": "runStarted", "uri": params.uri, "kind": kind, **_names(path, kind)})
    status, output, error = "failed", "", None
    try:
        if path is None:
            raise RunFailed(f"cannot run '{params.uri}': not a file URI")
        if not path.is_file():
            raise RunFailed(f"cannot run '{path}': no such file (save it first)")
        if _unsaved(ls, params.uri, path):
            notify(ls, run_id, {"type": "warning", "message": UNSAVED.format(name=path.name)})
        output = await _run(ls, state, interaction, path, kind, params)
        status = "ok"
    except asyncio.CancelledError:
        status, error = "cancelled", "cancelled"
        raise
    except Exception as exc:
        from lait_core.support.redact import redact

        error = redact(f"lait: {_message(exc)}")
        if not _is_user_error(exc):
            log.exception("run %s failed", run_id)
    finally:
        seconds = round(time.monotonic() - started, 3)
        finished: dict[str, Any] = {"type": "runFinished", "status": status, "seconds": seconds}
        if status == "ok":
            finished["output"] = output
        if error is not None and status != "cancelled":
            finished["error"] = error
        notify(ls, run_id, finished)
        progress.end(status if error is None or status == "cancelled" else f"failed: {error}")
        state.active.pop(run_id, None)
        state.children.pop(run_id, None)
    from lait_core.support.redact import mask_secrets

    return protocol.run_result(run_id, status, mask_secrets(output), error)


def _kind_of(path: Path | None) -> str:
    """A run's kind from its file: ``.md`` an agent; YAML a test, eval or workflow file by content."""
    if path is None:
        return "workflow"
    if path.suffix.lower() == ".md":
        return "agent"
    from lait_core.lint.discovery import yaml_kind
    from lait_core.syntax.bounded_read import read_head

    try:
        head = read_head(path, 64 * 1024).decode("utf-8", errors="replace")
    except OSError:
        return "workflow"
    return yaml_kind(path, head).value


UNSAVED = "'{name}' has unsaved changes in the editor: running the saved file"


def _unsaved(ls: LaitServer, uri: str, path: Path) -> bool:
    """Is ``uri`` open in the editor with a text other than the file's (a run reads the file)?"""
    if uri not in ls.open_uris:
        return False
    from lait_core.syntax.bounded_read import read_bounded

    try:
        saved = read_bounded(path).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return ls.text_of(uri).replace("\r\n", "\n") != saved.replace("\r\n", "\n")


def _names(path: Path | None, kind: str) -> dict[str, Any]:
    if path is None or not path.is_file():
        return {}
    from lait_core.language.run_targets import run_target
    from lait_core.lint.discovery import FileKind
    from lait_core.syntax.bounded_read import read_bounded

    try:
        text = read_bounded(path).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    target = run_target(FileKind.AGENT if kind == "agent" else FileKind.WORKFLOW, text)
    return {"name": target.name} if target is not None and target.name else {}


async def _run(
    ls: LaitServer,
    state: RunState,
    interaction: EditorInteraction,
    path: Path,
    kind: str,
    params: protocol.RunParams,
) -> str:
    from lait_core.engine.run.run_session import RunSession

    if not state.trusted and not params.dry_run:
        raise RunFailed(UNTRUSTED)
    if kind in ("test", "eval"):
        if params.dry_run:
            raise RunFailed(
                f"a dry run needs a workflow file, not {'a' if kind == 'test' else 'an'} {kind} file"
            )
        from lait_ls.run_tests import run_test_or_eval

        return await run_test_or_eval(ls, state, interaction, path, kind, params)
    config, config_dir = load_run_config(path)
    environ = run_environment(config_dir, read_env=ls.read_env)
    if params.dry_run:
        if kind != "workflow":
            raise RunFailed("a dry run needs a workflow file")
        return await _dry_run(config, path, params, environ)
    from lait_core.engine.records.record_options import RecordsRequest, finish_records, open_records

    spawned = state.children.setdefault(interaction.run_id, set())
    request = RecordsRequest(
        record=_under(config_dir, params.record),
        replay=_under(config_dir, params.replay),
        trace_file=_under(config_dir, params.trace_file),
        cache=params.cache,
        history=params.history,
        cache_dir=config_dir,
        record_command="lait/run with 'record'",
    )
    try:
        records = open_records(config, request)
    except ValueError as exc:
        raise RunFailed(str(exc)) from None
    async with RunSession.open(
        config,
        config_dir,
        interaction,
        approve_tools=state.approve_tools == "always",
        on_spawn=spawned.add,
        environ=environ,
        denial_text=EDITOR_DENIAL,
        records=records,
    ) as session:
        if kind == "agent":
            text, prompt, model, usage = await _run_agent(session, path, params)
        else:
            text, prompt, usage = await _run_workflow(session, path, interaction.run_id, params)
            model = None
    for warning in finish_records(config, request, records, kind, model, prompt, text, usage):
        notify(ls, interaction.run_id, {"type": "warning", "message": warning})
    return text


def _under(folder: Path, value: str | None) -> Path | None:
    if value is None:
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else folder / path


def run_environment(config_dir: Path, *, read_env: bool) -> dict[str, str] | None:
    """The environment of an editor run: the server's own, plus the variables of the ``.env`` beside
    the project's lait.config.yml (the run file's folder without one) that it does not set -- what
    the CLI gets from ``./.env`` when started in the project. None (inherit) with ``noEnv``."""
    import os

    from lait_core.documents.dotenv import DotenvError, with_dotenv

    if not read_env:
        return None
    try:
        return with_dotenv(config_dir, os.environ)
    except DotenvError as exc:
        raise RunFailed(str(exc)) from None


EDITOR_DENIAL = "denied by the user in the editor"
"""The tool result the model gets for a call the person denied in an editor dialog."""


async def _run_agent(
    session: RunSession, path: Path, params: protocol.RunParams
) -> tuple[str, str, str | None, Usage]:
    from lait_core.engine.run.agent_run import load_agent, parse_input, run_agent

    prompt = params.prompt if params.prompt is not None else ""
    agent = load_agent(
        str(path),
        config=session.config,
        config_dir=session.config_dir,
        base_dir=path.parent,
        files_first=True,
        cache=session.cache,
    )
    from lait_core.engine.records.labels import labelled

    with labelled(agent.label):
        reply = await run_agent(
            session, agent, parse_input(prompt), user_text=prompt, stream=True, include_usage=True
        )
    return reply.text, prompt, agent.settings.model or session.config.default.model, reply.usage


async def _run_workflow(
    session: RunSession, path: Path, run_id: str, params: protocol.RunParams
) -> tuple[str, str, Usage]:
    from lait_core.engine.workflow import run_workflow

    with invalid_top_file(path):
        result = await run_workflow(
            session, path, prompt=params.prompt, inputs=input_texts(params.inputs), run_id=run_id
        )
    return result.text, params.prompt or "", result.usage


@contextlib.contextmanager
def invalid_top_file(path: Path) -> Iterator[None]:
    """The run's own workflow does not validate: fail with its saved findings as `lait run` prints
    and counts them (a child that does not validate keeps the engine's message)."""
    from lait_core.engine.workflow.workflow_errors import WorkflowLoadError

    try:
        yield
    except WorkflowLoadError as exc:
        if exc.unreadable or exc.path != str(path):
            raise
        from lait_core.lint.invalid_workflow import invalid_workflow_text

        raise RunFailed(invalid_workflow_text(path, list(exc.diagnostics))) from None


async def _dry_run(
    config: Config, path: Path, params: protocol.RunParams, environ: Mapping[str, str] | None
) -> str:
    """The plan text, exactly as ``lait run --dry-run`` prints it (nothing is started)."""
    from lait_core.engine.run.dry_run import dry_run
    from lait_core.engine.workflow.loader import load_document

    with invalid_top_file(path):
        doc = load_document(None, path)
    return dry_run(doc, path, config, params.prompt, input_texts(params.inputs), environ)


def input_texts(inputs: Mapping[str, Any]) -> dict[str, str]:
    """Typed JSON values as ``--input KEY=VALUE`` texts: strings verbatim, anything else as JSON."""
    import json

    return {k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in inputs.items()}


def _message(exc: BaseException) -> str:
    text = str(exc).strip()
    if text.startswith("lait: "):
        text = text[len("lait: ") :]
    return text or type(exc).__name__


def _is_user_error(exc: BaseException) -> bool:
    from lait_core.engine.llm.chat_types import EngineError

    return isinstance(exc, RunFailed | EngineError)


def kill_children(state: RunState) -> None:
    """SIGKILL the process group of every child of every run in flight, and every group the process
    spawned and has not reaped yet (no waiting, no asyncio)."""
    from lait_core.engine.processes.spawn import kill_group, kill_live_groups

    for pids in list(state.children.values()):
        for pid in list(pids):
            kill_group(pid)
    kill_live_groups()


def install_signal_handlers(ls: LaitServer) -> None:
    """On SIGTERM / SIGHUP (an editor stopping its server, a closed terminal) and SIGINT (Ctrl-C
    where `lait ls` was started by hand) the children of the runs in flight die with the server
    instead of being orphaned; then the signal does its default. (SIGINT used to raise
    KeyboardInterrupt inside pygls, whose shutdown then waited forever for its stdin reader.)"""
    import os
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def terminate(signum: int, frame: object) -> None:
        kill_children(state_of(ls))
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        with contextlib.suppress(ValueError, OSError):  # not supported here
            signal.signal(signum, terminate)


async def cancel_all(ls: LaitServer, timeout: float = 10.0) -> None:
    tasks = [t for t in state_of(ls).active.values() if not t.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=timeout)


# -- lait/status -------------------------------------------------------------------------------
def status(ls: LaitServer, params: Any) -> dict[str, Any]:
    uri = params.get("uri") if isinstance(params, Mapping) else None
    path = ls.path_of(uri) if isinstance(uri, str) else None
    start = path.parent if path is not None else _workspace_root(ls)
    from lait_core.documents.config_file import find_project_config

    found = find_project_config(start) if start is not None else None
    config_error = None
    if found is not None:
        try:
            load_run_config(found)
        except RunFailed as exc:
            config_error = f"lait: {exc}"
    return {"version": __version__, "configFile": str(found) if found else None, "configError": config_error}


def _workspace_root(ls: LaitServer) -> Path | None:
    try:
        root = ls.workspace.root_path
    except Exception:
        return None
    return Path(root) if root else Path.cwd()


# -- registration ------------------------------------------------------------------------------
def register(server: LaitServer) -> None:
    install_signal_handlers(server)

    @server.feature(protocol.RUN)
    async def lait_run(ls: LaitServer, params: Any) -> dict[str, Any]:
        from pygls.exceptions import JsonRpcInvalidParams

        try:
            run = protocol.RunParams.parse(params)
        except protocol.ProtocolError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        token = params.get("workDoneToken") if isinstance(params, Mapping) else None
        return await execute(ls, run, token if isinstance(token, str | int) else None)

    @server.feature(lsp.SHUTDOWN)
    async def shutdown(ls: LaitServer, params: Any) -> None:
        """Runs in flight are cancelled and *finished* (tool processes killed, MCP servers closed)
        before the shutdown is answered: the editor may exit right after it."""
        state = state_of(ls)
        state.shut_down = True
        await cancel_all(ls)
        kill_children(state)  # whatever did not wind down within cancel_all's limit

    @server.feature(lsp.EXIT)
    def exit_now(ls: LaitServer, params: Any) -> None:
        """``exit`` (with or without ``shutdown`` first): kill every child group at once and leave.

        pygls would close the output and raise ``SystemExit`` inside the event loop; runs still in
        flight would then report to a closed stream while they wind down, and each failed write
        is itself reported the same way, so the server neither exits nor answers. Nothing is left
        to finish after ``shutdown``, and without one the editor wants the server gone now."""
        import os
        import sys

        state = state_of(ls)
        kill_children(state)
        for stream in (sys.stderr, sys.stdout):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(0 if state.shut_down else 1)

    @server.feature(STATUS)
    def lait_status(ls: LaitServer, params: Any) -> dict[str, Any]:
        return status(ls, params)
