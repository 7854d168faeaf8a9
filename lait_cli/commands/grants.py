"""`lait grants list` and `lait grants revoke TOOL|--all`: the project's standing tool approvals
(``.lait/grants.yml``, written when you answer "a" (always) at an approval prompt; docs/security.md).

``list`` prints one line per grant: the qualified tool, the MCP server and how it is started (a grant
applies only while that stays the same), and when it was given. ``revoke`` removes the grants of one
tool (``--all``: every grant); later calls are asked about again. Exit 1 when nothing matched, 3 for
an unreadable grants file.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from lait_cli.support.common import fail
from lait_cli.support.options import ConfigOption, NoConfigOption

if TYPE_CHECKING:
    from lait_core.engine.tools.standing_grants import Grants

grants_app = typer.Typer(
    name="grants",
    help="List and revoke the project's standing tool approvals (.lait/grants.yml).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    app.add_typer(
        grants_app,
        name="grants",
        help="List and revoke the project's standing tool approvals (.lait/grants.yml).",
    )


def _grants(config: ConfigOption, no_config: NoConfigOption) -> Grants:
    from lait_cli.support.mcp_servers import load_servers
    from lait_core.engine.tools.standing_grants import Grants

    return Grants(load_servers(config, no_config).config_dir)


@grants_app.command(name="list", help="List the project's standing tool approvals.")
def list_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    from lait_core.engine.tools.standing_grants import GrantsError

    store = _grants(config, no_config)
    try:
        grants = store.all()
    except GrantsError as exc:
        raise fail(str(exc), 3) from None
    if as_json:
        payload = [
            {"tool": g.tool, "server": g.server, "target": g.target, "granted": g.granted} for g in grants
        ]
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
        return
    if not grants:
        sys.stderr.write(f"no standing grants in {store.path}\n")
        return
    for g in grants:
        where = ""
        if g.server is not None:
            launch = json.loads(g.target) if g.target else {}
            started = " ".join(launch.get("command") or []) or str(launch.get("url", ""))
            where = f"  (MCP server '{g.server}': {started})"
        sys.stdout.write(f"{g.tool}{where}  granted {g.granted}\n")


@grants_app.command(name="revoke", help="Revoke the standing approval of TOOL (a qualified name), or --all.")
def revoke_command(
    tool: Annotated[
        str | None, typer.Argument(metavar="[TOOL]", help="A qualified tool name (notes__add_note).")
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Revoke every grant of the project.")] = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    from lait_core.engine.tools.standing_grants import GrantsError

    if (tool is None) == (not every):
        raise fail("name one TOOL to revoke, or --all", 2)
    store = _grants(config, no_config)
    try:
        removed = store.revoke("*" if every else str(tool))
    except (GrantsError, OSError) as exc:
        raise fail(str(exc), 3) from None
    if not removed:
        raise fail(
            f"no standing grant of '{tool}' in {store.path}"
            if tool
            else f"no standing grants in {store.path}",
            1,
        )
    for g in removed:
        sys.stderr.write(f"revoked {g.tool}\n")
