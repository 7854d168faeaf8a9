"""The chat REPL: `lait chat`, and bare `lait` with no PROMPT on a terminal (docs/cli.md).
Built on prompt_toolkit; imported only when a REPL starts.

- Each turn goes through the engine's tool loop with the chat options (tools, MCP servers and
  subagents included) and the earlier turns as history; the answer streams to the terminal, or with
  ``--render``/``default.render`` is shown as Markdown (rich) once complete.
- Meta-commands: ``/exit``, ``/clear`` (forgets the in-memory history; a ``--session`` file is kept),
  ``/model [NAME]``, ``/system [TEXT]`` (no text: back to the configured system prompt), ``/help``.
- Line editing: history search with Ctrl-R (Enter sends the entry found, as in bash), kept per
  project in ``.lait/chat_history`` (beside the project's lait.config.yml, else in the working
  directory); a new line with Esc-Enter or a trailing ``\\``; Tab completes ``/`` commands and,
  after ``/model``, the config's model aliases.
- Tool approvals (``--approve-tools``) and MCP elicitation questions are asked with prompt_toolkit
  too, one at a time, so they never mix with the input line (nor with each other).
- Ctrl-C during a turn cancels it (tool process trees included) and the REPL goes on; a second
  Ctrl-C before the cancelled turn has wound down exits 130. At the prompt, Ctrl-C clears a
  non-empty line and exits 130 on an empty one; Ctrl-D (or ``/exit``) exits 0.
- ``--session NAME``: the stored turns are loaded first and every successful turn is appended.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import signal
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_cli.support.chat_turn import ChatOptions
from lait_cli.support.common import fail
from lait_cli.support.terminal import CTRL_C_NOTE, ChatTerminal, Interrupts, exit_now

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import CompleteEvent, Completion
    from prompt_toolkit.document import Document

    from lait_core.documents.document_models import Config
    from lait_core.engine.llm.conversation import Reply
    from lait_core.engine.run.interaction import (
        ApprovalDecision,
        ApprovalRequest,
        ElicitationRequest,
        ElicitationResult,
    )
    from lait_core.engine.run.run_session import RunSession

COMMANDS = {
    "/exit": "leave the REPL (also Ctrl-D)",
    "/clear": "forget the conversation so far (a --session file is kept)",
    "/model": "/model NAME: use another model (an alias or a model id); no NAME: show it",
    "/system": "/system TEXT: set the system prompt; no TEXT: back to the configured one",
    "/help": "list these commands",
}
HISTORY_FILE = Path(".lait") / "chat_history"


@dataclass(slots=True)
class State:
    options: ChatOptions
    config: Config
    config_dir: Path
    history: list[dict[str, Any]] = field(default_factory=list)
    system: str | None = None
    system_set: bool = False

    @property
    def model(self) -> str:
        return self.options.model or self.config.default.model or "?"


def completions(text: str, aliases: Iterable[str]) -> list[tuple[str, int, str]]:
    """(completion, start position, meta) for the text before the cursor: ``/`` commands, and
    model aliases after ``/model ``."""
    out: list[tuple[str, int, str]] = []
    if text.startswith("/model "):
        word = text[len("/model ") :]
        out += [(a, -len(word), "model alias") for a in sorted(aliases) if a.startswith(word)]
    elif text.startswith("/") and " " not in text:
        out += [(name, -len(text), meta) for name, meta in COMMANDS.items() if name.startswith(text)]
    return out


def _completer(aliases: Iterable[str]) -> Any:
    from prompt_toolkit.completion import Completer, Completion

    names = list(aliases)

    class ReplCompleter(Completer):
        def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
            for text, start, meta in completions(document.text_before_cursor, names):
                yield Completion(text, start_position=start, display_meta=meta)

    return ReplCompleter()


def _bindings() -> Any:
    from prompt_toolkit.filters import is_searching
    from prompt_toolkit.key_binding import KeyBindings

    kb = KeyBindings()

    @kb.add("escape", "enter")
    def _newline(event: Any) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("enter", filter=is_searching)
    def _accept_found(event: Any) -> None:
        # Enter during a Ctrl-R search sends the entry found, as in bash.
        from prompt_toolkit.search import accept_search

        accept_search()
        event.app.current_buffer.validate_and_handle()

    @kb.add("enter", filter=~is_searching)
    def _accept(event: Any) -> None:
        buf = event.current_buffer
        if buf.text.endswith("\\"):
            buf.text = buf.text[:-1] + "\n"
            buf.cursor_position = len(buf.text)
        else:
            buf.validate_and_handle()

    @kb.add("c-c")
    def _interrupt(event: Any) -> None:
        buf = event.current_buffer
        if buf.text:
            buf.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt())

    return kb


def _history(folder: Path) -> Any:
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    path = folder / HISTORY_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))


class ReplTerminal(ChatTerminal):
    """Tool approvals and MCP elicitation questions through prompt_toolkit, one at a time (never
    competing with the input line, or with each other, for the terminal)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._prompt_lock: asyncio.Lock | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: list[str] = []

    async def _ask_line(self, header: str, prompt: str) -> str:
        """Show ``header`` on stderr and read one line with prompt_toolkit, one prompt at a time.
        Ctrl-C cancels the turn (the REPL goes on); Ctrl-D raises EOFError."""
        if self._prompt_lock is None:
            self._prompt_lock = asyncio.Lock()
        async with self._prompt_lock:
            return await self._line(header, prompt)

    async def _line(self, header: str, prompt: str) -> str:
        from prompt_toolkit import PromptSession

        self.stderr.write(header)
        self.stderr.flush()
        session: PromptSession[str] = PromptSession()
        try:
            return await session.prompt_async(prompt)
        except KeyboardInterrupt:
            raise asyncio.CancelledError from None

    async def approve(self, call: ApprovalRequest) -> ApprovalDecision:
        from lait_cli.support.terminal_dialogs import APPROVAL_PROMPT
        from lait_core.engine.llm.chat_types import ApprovalError, argv_text
        from lait_core.engine.run.interaction import ApprovalDecision, shown_arguments

        state = self.state
        if call.name in state.always:
            return ApprovalDecision.ONCE
        lines = [f"tool call: {call.name}", f"arguments: {shown_arguments(call.arguments)}"]
        if call.command is not None:
            lines.append(f"command: {argv_text(call.command)}")
        if call.hints:
            lines.append(f"server says: {', '.join(call.hints)} (unverified)")
        header = "\n".join(lines) + "\n"
        while True:
            try:
                answer = (await self._ask_line(header, APPROVAL_PROMPT)).strip()
            except EOFError:
                raise ApprovalError("no answer to the approval prompt") from None
            if answer in ("y", "Y"):
                return ApprovalDecision.ONCE
            if answer in ("n", "N"):
                return ApprovalDecision.DENY
            if answer in ("a", "A"):
                state.always.add(call.name)
                return ApprovalDecision.SESSION
            header = "answer y (yes), n (no) or a (always for this tool)\n"

    async def elicit(self, request: ElicitationRequest) -> ElicitationResult:
        """A form question of an MCP server (``allow_elicitation: true``): the single-shot
        terminal's form (one line of JSON, ``decline``/``cancel``, or Enter to fill it in field by
        field), each answer read with prompt_toolkit. Ctrl-D ends the input (as at the terminal);
        Ctrl-C cancels the turn. URL mode and other servers behave as in single-shot chat."""
        if not request.allowed or request.mode != "form":
            return await super().elicit(request)
        if self._prompt_lock is None:
            self._prompt_lock = asyncio.Lock()
        self._loop = asyncio.get_running_loop()
        async with self._prompt_lock:
            try:
                return await self._in_thread(lambda abandoned: self._form(request, abandoned))
            except _Interrupted:
                raise asyncio.CancelledError from None
            finally:
                self._form_say_flush()

    # The form runs in a worker thread (TerminalInteraction._form); its prompts are collected and
    # each read becomes a prompt_toolkit prompt on the REPL's loop.
    def _form_say(self, text: str) -> None:
        self._pending.append(text)

    def _form_say_flush(self) -> None:
        text, self._pending = "".join(self._pending), []
        if text:
            self.stderr.write(text)
            self.stderr.flush()

    def _form_read(self, abandoned: threading.Event) -> str | None:
        text, self._pending = "".join(self._pending), []
        cut = text.rfind("\n") + 1
        assert self._loop is not None
        future = asyncio.run_coroutine_threadsafe(self._line(text[:cut], text[cut:]), self._loop)
        try:
            return future.result()
        except EOFError:
            return None
        except (asyncio.CancelledError, concurrent.futures.CancelledError):
            raise _Interrupted from None


class _Interrupted(Exception):
    """Ctrl-C at a form prompt (raised in the form's thread, a cancelled turn in the REPL)."""


def run_repl(o: ChatOptions) -> int:
    """The REPL until /exit, Ctrl-D (0) or Ctrl-C at an empty prompt (130)."""
    from lait_cli.support.chat_turn import load_chat_config, session_history

    config, config_dir = load_chat_config(o)
    if not (o.model or config.default.model):
        raise fail(
            "no model given; pass --model NAME, set LLM_MODEL, or set 'default.model' in lait.config.yml", 1
        )
    state = State(o, config, config_dir, history=session_history(o))
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(_repl(state))
    finally:
        with contextlib.suppress(Exception):
            loop.run_until_complete(loop.shutdown_asyncgens())
        asyncio.set_event_loop(None)
        loop.close()


async def _repl(state: State) -> int:
    from prompt_toolkit import PromptSession

    from lait_core.engine.run.run_session import RunSession

    o = state.options
    interrupts = Interrupts()
    terminal = ReplTerminal(
        quiet=o.quiet, verbosity=o.verbose, stdout=sys.stdout, show_reasoning=o.show_reasoning
    )
    prompt: PromptSession[str] = PromptSession(
        history=_history(state.config_dir),
        completer=_completer(state.config.models),
        key_bindings=_bindings(),
        multiline=False,
        enable_history_search=False,
    )
    if state.history:
        sys.stderr.write(f"session '{o.session}': {len(state.history) // 2} earlier turn(s) loaded\n")
    sys.stderr.write("lait chat: /help for commands, Ctrl-D to leave\n")
    from lait_cli.support.chat_turn import record_flags
    from lait_cli.support.record_flags import build_records

    records = build_records(state.config, record_flags(o), "lait chat --record DIR")
    async with RunSession.open(
        state.config,
        state.config_dir,
        terminal,
        approve_tools=o.approve_tools,
        keep_grants=True,
        on_spawn=interrupts.on_spawn,
        records=records,
    ) as session:
        while True:
            try:
                text = await prompt.prompt_async(f"{state.model}> ")
            except KeyboardInterrupt:
                return 130
            except EOFError:
                return 0
            text = text.strip()
            if not text:
                continue
            if text.startswith("/"):
                if not _meta(state, text):
                    return 0
                continue
            await _turn(state, session, terminal, interrupts, text)


def _meta(state: State, text: str) -> bool:
    """Run a meta-command; False for /exit."""
    command, _, argument = text.partition(" ")
    argument = argument.strip()
    if command == "/exit":
        return False
    if command == "/clear":
        state.history.clear()
        sys.stderr.write("conversation cleared\n")
    elif command == "/model":
        if argument:
            state.options.model = argument
        sys.stderr.write(f"model: {state.model}\n")
    elif command == "/system":
        state.system = argument or None
        state.system_set = bool(argument)
        sys.stderr.write("system prompt set\n" if argument else "system prompt: the configured one\n")
    elif command == "/help":
        for name, meta in COMMANDS.items():
            sys.stderr.write(f"{name:<8} {meta}\n")
    else:
        sys.stderr.write(f"unknown command '{command}'; /help lists the commands\n")
    return True


async def _turn(
    state: State, session: RunSession, terminal: ReplTerminal, interrupts: Interrupts, text: str
) -> None:
    from lait_cli.support.answer_output import render_markdown, usage_line
    from lait_cli.support.chat_turn import make_plan, save_turn
    from lait_cli.support.errors import classify_chain
    from lait_core.engine.llm.chat_types import EngineError

    o = state.options
    try:
        plan = make_plan(o, state.config, state.config_dir, text)
    except EngineError as exc:
        sys.stderr.write(f"lait: {exc}\n")
        return
    render = (o.render or bool(state.config.default.render)) and sys.stdout.isatty()
    first_cost = len(terminal.costs)  # the usage line gives this turn's cost
    task = asyncio.ensure_future(_converse(state, session, plan, stream=not render))
    loop = asyncio.get_running_loop()
    presses = 0

    def on_sigint() -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            sys.stderr.write(CTRL_C_NOTE)
            sys.stderr.flush()
            task.cancel()
            return
        interrupts.kill_groups()
        exit_now(130)

    loop.add_signal_handler(signal.SIGINT, on_sigint)
    try:
        reply: Reply = await task
    except asyncio.CancelledError:
        sys.stdout.write("\n")
        sys.stderr.write("turn cancelled\n")
        return
    except Exception as exc:
        try:
            _code, message = classify_chain(exc, False)
        except Exception:
            message = f"{type(exc).__name__}: {exc}"
        sys.stdout.write("\n")
        sys.stderr.write(f"lait: {message}\n")
        return
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if render:
        render_markdown(reply.text)
    elif not reply.text.endswith("\n"):
        sys.stdout.write("\n")
    sys.stdout.flush()
    state.history += [{"role": "user", "content": plan.user}, {"role": "assistant", "content": reply.text}]
    save_turn(o, plan.user, reply.text)
    from lait_cli.support.chat_turn import record_flags
    from lait_cli.support.record_flags import finish

    usage = reply.usage if o.show_usage else None  # a streamed turn reports usage only when asked
    records = session.records
    if records is not None:
        finish(
            state.config, record_flags(o), records, "chat", plan.settings.model.name, text, reply.text, usage
        )
    if o.show_usage and not o.quiet:
        sys.stderr.write(usage_line(reply.loop.usage, terminal.cost_text(first_cost)) + "\n")


async def _converse(state: State, session: RunSession, plan: Any, *, stream: bool) -> Reply:
    from lait_core.engine.llm.conversation import converse

    system = state.system if state.system_set else plan.system
    return await converse(
        session,
        plan.settings,
        system=system,
        user=plan.user,
        stream=stream,
        include_usage=state.options.show_usage,
        history=list(state.history),
    )
