"""What `lait mcp` and `lait mcp lock` share: the configured servers as the commands read them, and
a coroutine run under the Ctrl-C protocol of the run commands."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lait_cli.support.common import GLOBALS, fail

if TYPE_CHECKING:
    from lait_cli.support.terminal import Interrupts
    from lait_core.documents.document_models import Config

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class LoadedServers:
    config: Config
    config_dir: Path
    """The folder of the project config in use (relative ``cwd:`` values resolve against it), else
    the current directory."""


def load_servers(config: Path | None = None, no_config: bool = False) -> LoadedServers:
    """The merged config as every command reads it (``--config``, ``--no-config``, given before or
    after the subcommand; else the upward search plus the global file). Exits 3 on unreadable or
    invalid files."""
    from lait_cli.support.run_setup import load_cli_config

    return LoadedServers(*load_cli_config(config or GLOBALS.config, no_config or GLOBALS.no_config))


def run_interrupted(
    start: Callable[[Interrupts], Coroutine[Any, Any, _T]], interrupted: str = "interrupted"
) -> _T:
    """The coroutine ``start(interrupts)`` under the Ctrl-C protocol of the run commands (the first
    Ctrl-C cancels and closes the server, the second kills its process group and exits 130).
    Errors exit 1 (130 with ``interrupted`` after Ctrl-C) with one ``lait: <message>`` line."""
    import asyncio

    from lait_cli.support.terminal import Interrupts, run_interruptible
    from lait_core.engine.llm.chat_types import EngineError

    interrupts = Interrupts()
    try:
        result = run_interruptible(start(interrupts), interrupts)
    except (EngineError, asyncio.CancelledError) as exc:
        if interrupts.sigint:
            raise fail(interrupted, 130) from None
        raise fail(str(exc) or "cancelled", 1) from None
    if interrupts.sigint:
        raise fail(interrupted, 130)
    return result
