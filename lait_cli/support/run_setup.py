"""What `lait run` and `lait agent run` share: the config and its folder, FILE-or-NAME lookup,
the stdin rules for an optional PROMPT/INPUT, running under the Ctrl-C protocol, the exit code of
a failure (by error type, walking the cause chain) and writing the result (-o, --json, --render,
--show-usage).

Top-level imports are typer and the standard library only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import typer

from lait_cli.support.common import GLOBALS, check_explicit_config, check_output_path, fail
from lait_cli.support.errors import classify_chain

if TYPE_CHECKING:
    from lait_cli.support.terminal import ChatTerminal, Interrupts
    from lait_core.documents.document_models import Config
    from lait_core.engine.llm.chat_types import DocumentInvalid, Usage
    from lait_core.lint.engine import LintOptions
    from lait_core.syntax.diagnostics import Diagnostic

_T = TypeVar("_T")


@dataclass(slots=True)
class OutputOptions:
    output: str | None = None
    json: bool = False
    render: bool = False
    show_usage: bool = False

    @property
    def output_file(self) -> Path | None:
        """``-o PATH`` (``-o -`` is stdout, so None)."""
        return Path(self.output) if self.output not in (None, "-") else None

    def check_output_file(self, what: str = "the result") -> None:
        """Refuse an ``-o PATH`` that cannot be written before anything runs (exit 2)."""
        check_output_path(self.output_file, what)


@dataclass(slots=True)
class Common:
    """Global options that may also follow the subcommand."""

    config: Path | None = None
    no_config: bool = False
    verbose: int = 0
    approve_tools: bool = False
    cache: bool | None = None
    """``--cache`` True, ``--no-cache`` False, neither None (``default.cache`` decides)."""

    def merged(self) -> Common:
        """These options over the ones given before the subcommand."""
        return Common(
            self.config or GLOBALS.config,
            self.no_config or GLOBALS.no_config,
            max(self.verbose, GLOBALS.verbose),
            self.approve_tools or GLOBALS.approve_tools,
            self.cache if self.cache is not None else global_cache(),
        )


def global_cache() -> bool | None:
    """``--cache`` True, ``--no-cache`` False, neither None (``default.cache`` decides)."""
    return True if GLOBALS.cache else False if GLOBALS.no_cache else None


def usage_error(message: str) -> NoReturn:
    raise fail(message, 2)


# -- config ------------------------------------------------------------------------------------
def diagnostic_line(d: Diagnostic, path: str | None = None) -> str:
    start = d.range.start
    return (
        f"{path or d.path}:{start.line + 1}:{start.character + 1}: {d.code} {d.severity.value}: {d.message}"
    )


def fail_invalid(exc: DocumentInvalid, path: Path, what: str, common: Common | None = None) -> NoReturn:
    """Exit 3 for a ``what`` file (workflow, agent) that cannot be read or does not validate; its
    errors are printed as ``lait lint`` prints them. A workflow's are its lint findings, counted as
    lint and its dependants count them (lait_core.lint.findings), with ``common``'s config options."""
    if exc.unreadable:
        raise fail(f"cannot read {what} '{path}': {exc.diagnostics[0].message}", 3)
    if what == "workflow":
        from lait_core.lint.findings import finding_lines
        from lait_core.lint.invalid_workflow import invalid_workflow

        findings, summary = invalid_workflow(path, list(exc.diagnostics), lint_options(common))
        for line in finding_lines(findings, path):
            sys.stderr.write(line + "\n")
        raise fail(summary, 3)
    for d in sorted(exc.diagnostics, key=lambda d: d.sort_key()):
        sys.stderr.write(diagnostic_line(d, str(path)) + "\n")
    raise fail(f"'{path}' is not a valid {what} file", 3)


def lint_options(common: Common | None) -> LintOptions:
    """The ``lait lint`` options of the same ``--config``/``--no-config``."""
    from lait_core.documents.config_file import ConfigMode
    from lait_core.lint.engine import LintOptions

    common = (common or Common()).merged()
    if common.no_config:
        return LintOptions(ConfigMode.DISABLED)
    if common.config is not None:
        return LintOptions(ConfigMode.EXPLICIT, common.config)
    return LintOptions(ConfigMode.SEARCH)


def load_run_config(common: Common) -> tuple[Config, Path]:
    """As :func:`load_cli_config`; problems of a broken config in lint's line format."""
    return load_cli_config(common.config, common.no_config, lint_lines=True)


def load_cli_config(
    explicit: Path | None, no_config: bool, *, lint_lines: bool = False
) -> tuple[Config, Path]:
    """The merged config (``--config PATH`` exactly, ``--no-config`` none, else the upward search)
    and the folder of the ``lait.config.yml`` in use (else the working directory). A broken config
    exits 3 with each problem located: ``lait: file:line:col: message`` (chat, ``lait mcp``), or
    with ``lint_lines`` as ``lait lint`` prints it followed by one ``lait:`` line (the run commands)."""
    from lait_core.documents.config_file import ConfigError, ConfigMode, load_config

    if explicit is not None and no_config:
        usage_error("--config and --no-config cannot be used together")
    if explicit is not None:
        check_explicit_config(explicit)
    mode = ConfigMode.DISABLED if no_config else ConfigMode.EXPLICIT if explicit else ConfigMode.SEARCH
    try:
        loaded = load_config(mode, explicit=explicit)
    except ConfigError as exc:
        raise fail(str(exc), 3) from None
    if any(doc.model is None for doc in loaded.documents):
        for d in loaded.diagnostics:
            start = d.range.start
            line = f"{d.path}:{start.line + 1}:{start.character + 1}: {d.message}"
            sys.stderr.write((diagnostic_line(d) if lint_lines else f"lait: {line}") + "\n")
        if lint_lines:
            raise fail(f"{loaded.display} is not a valid configuration", 3)
        raise typer.Exit(3)
    return loaded.config, loaded.folder(Path.cwd().absolute())


def find_target(argument: str, registry: dict[str, str], what: str) -> Path:
    """FILE or NAME: an existing file wins (with a note when the name is registered too), else the
    ``workflows:``/``agents:`` registry (``what`` = ``workflow``/``agent``)."""
    path = Path(argument).expanduser()
    registered = registry.get(argument)
    if path.is_file():
        if registered is not None:
            sys.stderr.write(
                f"note: '{argument}' is both a file and a registered {what} name; running the file\n"
            )
        return path
    if registered is not None:
        # registry paths were joined onto their config file's folder when the config loaded
        return Path(registered).expanduser().absolute()
    if path.exists():
        raise fail(f"'{argument}' is not a file")
    names = ", ".join(sorted(registry)) or "none"
    section = "workflows" if what == "workflow" else "agents"
    raise fail(
        f"{what} '{argument}' not found: no such file, and no {what} of that name is registered under"
        f" '{section}:' in lait.config.yml (registered: {names})"
    )


# -- stdin -------------------------------------------------------------------------------------
def read_optional_prompt(argument: str | None) -> str | None:
    """PROMPT/INPUT after the stdin rules (:func:`lait_cli.support.stdin_input.prompt_text`); a problem with
    standard input exits 1 (2 for ``-`` with nothing piped)."""
    from lait_cli.support.stdin_input import DashWithoutInput, StdinError, prompt_text

    try:
        return prompt_text(argument)
    except DashWithoutInput as exc:
        usage_error(str(exc))
    except StdinError as exc:
        raise fail(str(exc)) from None


# -- running -----------------------------------------------------------------------------------
def make_terminal(common: Common) -> ChatTerminal:
    """Progress and prompts on stderr, ``-v`` debug lines."""
    from lait_cli.support.terminal import ChatTerminal

    return ChatTerminal(verbosity=common.verbose)


def run_guarded(
    make: Callable[[Interrupts], Coroutine[Any, Any, _T]], terminal: ChatTerminal
) -> tuple[_T | None, int]:
    """Run the coroutine ``make(interrupts)`` under the Ctrl-C protocol; (result, 0) on success,
    else (None, exit code) after printing ``lait: <error chain>``."""
    from lait_cli.support.terminal import Interrupts, run_interruptible

    interrupts = Interrupts()
    try:
        result = run_interruptible(make(interrupts), interrupts)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        code, message = classify_chain(exc, interrupts.sigint > 0)
        sys.stderr.write(f"lait: {message}\n")
        return None, code
    if interrupts.sigint:
        sys.stderr.write("lait: interrupted\n")
        return None, 130
    return result, 0


def finish(code: int) -> NoReturn:
    from lait_cli.support.terminal import exit_now, prompt_threads_alive

    if code == 130 or prompt_threads_alive():
        exit_now(code)
    raise typer.Exit(code)


# -- output ------------------------------------------------------------------------------------
def write_output(options: OutputOptions, text: str) -> None:
    from lait_cli.support.answer_output import write_output as write

    write(options.output_file, text)


def present(
    options: OutputOptions,
    text: str,
    usage: Usage,
    *,
    reasoning: str | None = None,
    usage_seen: bool = True,
    render: bool = False,
    cost: str = "",
) -> None:
    """Print (or write) a run's result: the text alone (``--render``: as Markdown on a terminal),
    or ``{"content", "reasoning", "usage"}`` with ``--json``; ``--show-usage`` on stderr."""
    if options.json:
        payload = {"content": text, "reasoning": reasoning, "usage": usage.as_dict() if usage_seen else None}
        write_output(options, json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    elif render and options.output_file is None and sys.stdout.isatty():
        from lait_cli.support.answer_output import render_markdown

        render_markdown(text)
    else:
        write_output(options, text + "\n")
    if options.show_usage:
        from lait_cli.support.answer_output import usage_line

        sys.stderr.write(usage_line(usage, cost) + "\n")
