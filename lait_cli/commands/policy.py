"""`lait policy test CASE... [--tool NAME]... [--expect allow|ask|deny] [--json]`: what the project's
approval policy would do with a call, running nothing (docs/cli.md).

Each case is ``'server__tool {"json": "args"}'`` (the arguments optional) or a ``--tool NAME``. For
each, one line ``allow|ask|deny  NAME  source: rule`` and the message indented below it: for a
denial the exact text the model (or the run's error) gets. The verdict comes from
:func:`lait_core.engine.tools.tool_decision.decide`, the tool loop's own function, over the merged
``tool_policy``, the server's ``allowed_tools``, ``lait.lock`` and ``--approve-tools``. Exit 0;
with ``--expect`` 1 when a case gets another verdict; 2 for a malformed case; 3 for bad config.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from lait_cli.support.common import GLOBALS, fail
from lait_cli.support.options import ConfigOption, NoConfigOption

policy_app = typer.Typer(
    name="policy",
    help="Check what the tool approval policy decides for a call, running nothing.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    app.add_typer(
        policy_app,
        name="policy",
        help="Check what the tool approval policy decides for a call, running nothing.",
    )


@policy_app.command(
    name="test",
    help="Print allow / ask / deny for each call and the rule that decided (tool_policy, allowed_tools, "
    'lait.lock, --approve-tools), as a run would; nothing runs. A case is \'server__tool {"json": "args"}\'.',
)
def test_command(
    cases: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[CASE]...", help="'NAME' or 'NAME {JSON arguments}' (a qualified tool name)."
        ),
    ] = None,
    tools: Annotated[
        list[str] | None,
        typer.Option("--tool", metavar="NAME", help="A qualified tool name to check (repeatable)."),
    ] = None,
    expect: Annotated[
        str | None,
        typer.Option(
            "--expect", metavar="VERDICT", help="allow, ask or deny: exit 1 when a case gets another (CI)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    from lait_cli.support.mcp_servers import load_servers
    from lait_core.commands.policy_check import Case, CaseError, evaluate, parse_case, project_lock
    from lait_core.engine.mcp.lock import LockError
    from lait_core.engine.tools.standing_grants import Grants, GrantsError

    if expect is not None and expect not in ("allow", "ask", "deny"):
        raise fail(f"--expect must be allow, ask or deny, not '{expect}'", 2)
    try:
        parsed = [parse_case(text) for text in cases or []] + [Case(name, "") for name in tools or []]
    except CaseError as exc:
        raise fail(str(exc), 2) from None
    if not parsed:
        raise fail("name at least one call: lait policy test 'server__tool {\"a\": 1}' or --tool NAME", 2)
    loaded = load_servers(config, no_config)
    try:
        lock = project_lock(loaded.config_dir)
    except LockError as exc:
        raise fail(str(exc), 3) from None
    grants = Grants(loaded.config_dir)
    try:
        results = [
            evaluate(case, loaded.config, lock, approve=GLOBALS.approve_tools, grants=grants)
            for case in parsed
        ]
    except GrantsError as exc:
        raise fail(str(exc), 3) from None
    if as_json:
        payload = [
            {
                "call": r.case.name,
                "arguments": json.loads(r.case.arguments) if r.case.arguments else None,
                "kind": r.kind,
                "server": r.server,
                "verdict": r.verdict.outcome,
                "source": r.verdict.source,
                "rule": r.verdict.rule,
                "message": r.verdict.message,
                "ends_run": r.verdict.hard,
            }
            for r in results
        ]
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        width = max(len(r.case.name) for r in results)
        for r in results:
            v = r.verdict
            sys.stdout.write(f"{v.outcome:<5}  {r.case.name:<{width}}  {v.source}: {v.rule}\n")
            sys.stdout.write(f"       {v.message}{'  (ends the run)' if v.hard else ''}\n")
            if r.kind == "unknown":
                sys.stdout.write(
                    "       note: no configured server, tool, agent, skill or workflow offers this name\n"
                )
    if expect is not None:
        wrong = [r for r in results if r.verdict.outcome != expect]
        for r in wrong:
            sys.stderr.write(f"lait: '{r.case.name}' is {r.verdict.outcome}, expected {expect}\n")
        if wrong:
            raise typer.Exit(1)
