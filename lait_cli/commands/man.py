"""`lait man [--dir DIR]`: roff man pages (docs/cli.md) — ``lait.1`` for bare chat and
the list of commands, ``lait-run.1``, ``lait-agent-run.1`` and so on for every visible command —
written from the same command tree ``--help`` prints, so they never drift from it."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer

from lait_cli.support.common import fail
from lait_cli.support.usage import argument_name


def register(app: typer.Typer) -> None:
    app.command(name="man", help="Write roff man pages (lait.1, lait-run.1, ...) into DIR.")(man)


def man(
    directory: Annotated[Path, typer.Option("--dir", metavar="DIR", help="Where to write the pages.")] = Path(
        "."
    ),
) -> None:
    from lait_core import __version__

    try:
        directory.mkdir(parents=True, exist_ok=True)
        written = [write(directory, name, text) for name, text in pages(__version__)]
    except OSError as exc:
        raise fail(f"cannot write man pages into '{directory}': {exc.strerror or exc}", 1) from None
    sys.stderr.write(f"wrote {len(written)} man pages into {directory}\n")


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def roff(text: str) -> str:
    """Escape text for roff: backslashes, hyphens, and control characters at a line start."""
    out = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line[:1] in (".", "'") else line for line in out.splitlines())


def _help(command: Any) -> str:
    text = getattr(command, "help", None) or getattr(command, "short_help", None) or ""
    return str(text).replace("\b\n", "").replace("\b", "").strip()


def _options(command: Any) -> list[str]:
    lines: list[str] = []
    for param in getattr(command, "params", ()):
        if getattr(param, "hidden", False):
            continue
        if getattr(param, "param_type_name", "") == "option":
            names = ", ".join((*param.opts, *getattr(param, "secondary_opts", ())))
            metavar = (
                ""
                if getattr(param, "is_flag", False) or getattr(param, "count", False)
                else " " + (param.metavar or param.name.upper())
            )
            lines += [".TP", f"\\fB{roff(names)}\\fR{roff(metavar)}", roff(getattr(param, "help", "") or "")]
        else:
            lines += [
                ".TP",
                f"\\fI{roff(argument_name(param))}\\fR",
                roff(getattr(param, "help", "") or ""),
            ]
    return lines


def page(path: list[str], command: Any, version: str, see_also: list[str]) -> str:
    title = "-".join(["lait", *path])
    pieces = [argument_name(p) for p in command.params if getattr(p, "param_type_name", "") == "argument"]
    usage = " ".join(["lait", *path, "[OPTIONS]", *pieces])
    lines = [
        f'.TH "{title.upper()}" "1" "{date.today().isoformat()}" "lait {version}" "lait manual"',
        ".SH NAME",
        f"{roff(title)} \\- {roff(_help(command).splitlines()[0] if _help(command) else title)}",
        ".SH SYNOPSIS",
        f"\\fB{roff(usage)}\\fR",
        ".SH DESCRIPTION",
        roff(_help(command) or title),
    ]
    options = _options(command)
    if options:
        lines += [".SH OPTIONS", *options]
    if see_also:
        lines += [".SH SEE ALSO", ", ".join(f"\\fB{roff(n)}\\fR(1)" for n in see_also)]
    return "\n".join(lines) + "\n"


def pages(version: str) -> list[tuple[str, str]]:
    import lait_cli.main as cli
    from lait_cli.command_table import command_names
    from lait_cli.commands.single_shot import chat_app
    from lait_cli.dispatch import build

    tree = build(cli.app)
    out: list[tuple[str, str]] = []
    leaves: list[tuple[list[str], Any]] = []

    def walk(path: list[str], command: Any) -> None:
        subs = getattr(command, "commands", None)
        if isinstance(subs, Mapping):
            for name, sub in subs.items():
                if not getattr(sub, "hidden", False):
                    walk([*path, name], sub)
        elif path:
            leaves.append((path, command))

    walk([], tree)
    names = ["-".join(["lait", *p]) for p, _ in leaves]
    chat = typer.main.get_command(chat_app(command_names()))
    out.append(("lait.1", page([], chat, version, names)))
    for path, command in leaves:
        out.append(("-".join(["lait", *path]) + ".1", page(path, command, version, ["lait"])))
    return out
