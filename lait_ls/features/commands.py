"""`workspace/executeCommand`: ``lait.server.run`` and ``lait.server.dryRun`` for clients that cannot
ask for a prompt and inputs themselves.

Arguments: ``[target, options?]`` where ``target`` is a lens argument (``{uri, kind, ...}``) or a
bare URI, and ``options`` is ``{prompt?, inputs?, runId?}``. The result is the ``lait/run`` result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from pygls.lsp.server import LanguageServer

from lait_ls import protocol

if TYPE_CHECKING:
    from lait_ls.server import LaitServer


def run_params(args: tuple[Any, ...], *, dry_run: bool) -> protocol.RunParams:
    """The ``lait/run`` params of a command's arguments (a lens target's ``prompt`` is the prompt
    *mode*, not a prompt, so only the options carry one)."""
    if not args or len(args) > 2:
        raise protocol.ProtocolError("expected the arguments [target, options?]")
    target, options = args[0], args[1] if len(args) == 2 else {}
    if isinstance(target, str):
        target = {"uri": target}
    if not isinstance(target, Mapping) or not isinstance(options, Mapping):
        raise protocol.ProtocolError("expected the arguments [target, options?] (objects)")
    merged = {"uri": target.get("uri"), "kind": target.get("kind"), **options, "dryRun": dry_run}
    return protocol.RunParams.parse(merged)


def register(server: LaitServer) -> None:
    from lait_ls.run import execute

    async def command(ls: LaitServer, args: tuple[Any, ...], dry_run: bool) -> dict[str, Any]:
        from pygls.exceptions import JsonRpcInvalidParams

        try:
            params = run_params(args, dry_run=dry_run)
        except protocol.ProtocolError as exc:
            raise JsonRpcInvalidParams(
                f"{protocol.COMMAND_DRY_RUN if dry_run else protocol.COMMAND_RUN}: {exc}"
            ) from None
        return await execute(ls, params, None)

    # pygls evaluates the annotations of command handlers at run time: no TYPE_CHECKING-only names
    @server.command(protocol.COMMAND_RUN)
    async def run(ls: LanguageServer, *args: Any) -> dict[str, Any]:
        return await command(cast("LaitServer", ls), args, False)

    @server.command(protocol.COMMAND_DRY_RUN)
    async def dry_run(ls: LanguageServer, *args: Any) -> dict[str, Any]:
        return await command(cast("LaitServer", ls), args, True)
