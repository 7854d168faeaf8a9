"""`lait doctor [--json] [--timeout S]`: check the setup (the checks are in :mod:`lait_core.commands.setup_checks`).

Text: one line per check, ``OK``/``WARN``/``NG``, the area, the subject and what was found, with a
``fix:`` line under every WARN and NG, then a count on stderr. ``--json`` prints
``{"checks": [{"area", "subject", "status", "message", "fix"}], "summary": {"OK", "WARN", "NG"}}``.
Exit 1 when any check is NG (130 after Ctrl-C), else 0.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from lait_cli.support.common import GLOBALS, fail
from lait_cli.support.options import ConfigOption, NoConfigOption

HELP = (
    "Check the setup: config files, ${VAR} references, models and providers (reachable, key "
    "accepted, model ids listed), the local model server, the embedded model, MCP servers, registered "
    "files and shell tools. Each check is OK, WARN or NG (with a fix); any NG exits 1."
)


def register(app: typer.Typer) -> None:
    app.command(name="doctor", help=HELP)(doctor)


def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False,
    timeout: Annotated[
        float,
        typer.Option("--timeout", metavar="SECONDS", min=0.1, max=300, help="Limit of each HTTP check."),
    ] = 5.0,
    mcp_timeout: Annotated[
        float,
        typer.Option(
            "--mcp-timeout", metavar="SECONDS", min=0.1, max=600, help="Limit of each MCP server's start."
        ),
    ] = 30.0,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    from lait_cli.support.terminal import Interrupts, run_interruptible
    from lait_core.commands.setup_checks import Options, render_text, run_checks, summary
    from lait_core.documents.config_file import ConfigMode

    config = config or GLOBALS.config
    no_config = no_config or GLOBALS.no_config
    if config is not None and no_config:
        raise fail("--config and --no-config cannot be used together", 2)
    mode = ConfigMode.DISABLED if no_config else ConfigMode.EXPLICIT if config else ConfigMode.SEARCH
    interrupts = Interrupts()
    devnull = open(os.devnull, "w")  # noqa: SIM115 - closed below; servers' stderr is not the report
    try:
        options = Options(
            mode,
            explicit=config,
            cwd=Path.cwd(),
            environ=dict(os.environ),
            timeout=timeout,
            mcp_timeout=mcp_timeout,
            model=os.environ.get("LLM_MODEL") or None,
            on_spawn=interrupts.on_spawn,
            server_stderr=devnull,
        )
        checks = run_interruptible(run_checks(options), interrupts)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        if interrupts.sigint:
            raise fail("interrupted", 130) from None
        raise
    finally:
        devnull.close()
    if interrupts.sigint:
        raise fail("interrupted", 130)
    counts = summary(checks)
    if as_json:
        payload = {"checks": [c.as_json() for c in checks], "summary": counts}
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_text(checks))
        sys.stderr.write(f"lait: doctor: {counts['NG']} NG, {counts['WARN']} WARN, {counts['OK']} OK\n")
    if counts["NG"]:
        raise typer.Exit(1)
