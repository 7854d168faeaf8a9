"""`lait mcp lock [NAME...] [--update | --check]`: pin the configured MCP servers' tools in lait.lock.

Connects to each named server (default: every configured one) through the engine's pool, without
the lock check, and compares its tools with the lock file beside the project's lait.config.yml:

* no option: pins the servers that are not pinned yet and writes the file; a server whose tools
  drifted is refused (exit 1, the differences listed) until ``--update``.
* ``--update``: prints every difference and re-pins (servers no longer configured are dropped when
  no NAME is given).
* ``--check``: writes nothing; exit 1 when anything differs (for CI).

A package runner (``npx``, ``uvx``...) command that names no version is a warning: the pinned tools
can change under the same command line. Messages go to stderr, one ``lait.lock: ...`` line each.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lait_cli.support.common import fail
from lait_cli.support.mcp_servers import load_servers, run_interrupted
from lait_cli.support.options import ConfigOption, NoConfigOption

if TYPE_CHECKING:
    from lait_cli.support.terminal import Interrupts


def lock_command(
    names: Annotated[
        list[str] | None,
        typer.Argument(metavar="[NAME]...", help="Servers to pin (default: every configured server)."),
    ] = None,
    update: Annotated[bool, typer.Option("--update", help="Show what changed and re-pin it.")] = False,
    check: Annotated[
        bool, typer.Option("--check", help="Write nothing; exit 1 when a server differs from the lock (CI).")
    ] = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    from lait_core.engine.mcp.lock import (
        LockError,
        McpLock,
        describe_drift,
        load_lock,
        lock_path,
        package_spec,
    )
    from lait_core.engine.mcp.oauth.signin import terminal_presenter
    from lait_core.engine.mcp.pin import live_entries

    if update and check:
        raise fail("--update and --check cannot be combined", 2)
    loaded = load_servers(config, no_config)
    servers = loaded.config.mcp_servers
    wanted = list(names or servers)
    if not wanted:
        raise fail("no MCP servers are configured; define them under 'mcp_servers:' in lait.config.yml", 1)
    try:
        existing = load_lock(loaded.config_dir)
    except LockError as exc:
        if not update:
            raise fail(str(exc), 3) from None
        existing = None
    lock = existing or McpLock(lock_path(loaded.config_dir))
    label = lock.path.name
    for name in wanted:
        server = servers.get(name)
        spec = package_spec(server) if server is not None else None
        if spec is not None and not spec[1]:
            sys.stderr.write(
                f"{label}: warning: mcp_servers.{name} runs '{spec[0]}' without a version: what is pinned can "
                "change under the same command; name a version (like pkg@1.2.3)\n"
            )

    async def fetch(interrupts: Interrupts) -> dict[str, dict[str, Any]]:
        return await live_entries(
            servers,
            wanted,
            base_dir=loaded.config_dir,
            sign_in=terminal_presenter(sys.stdin, sys.stderr),
            on_spawn=interrupts.on_spawn,
            contained=loaded.config.confine == "project",
        )

    live = run_interrupted(fetch)
    drifted: list[str] = []
    added: list[str] = []
    for name in wanted:
        pinned = lock.servers.get(name)
        if pinned is None:
            added.append(name)
            if check:
                drifted.append(name)
                sys.stderr.write(f"{label}: mcp_servers.{name}: the server is not pinned\n")
            continue
        changes = describe_drift(pinned, live[name])
        if changes:
            drifted.append(name)
            for change in changes:
                sys.stderr.write(f"{label}: mcp_servers.{name}: {change}\n")
    stale = [n for n in lock.servers if n not in servers] if not names else []
    for name in stale:
        sys.stderr.write(f"{label}: mcp_servers.{name}: pinned but no longer configured\n")
    if check:
        if drifted or stale:
            raise fail(f"{label} does not match the servers; review, then run 'lait mcp lock --update'", 1)
        sys.stderr.write(f"{label}: {_count(len(wanted), 'server')} match\n")
        return
    if drifted and not update:
        raise fail(
            f"the tools of {', '.join(drifted)} differ from {lock.path}; review the differences above, then "
            "run 'lait mcp lock --update' to re-pin",
            1,
        )
    for name in wanted:
        lock.servers[name] = live[name]
    if update:
        for name in stale:
            del lock.servers[name]
    if existing is not None and not added and not drifted and not (update and stale):
        sys.stderr.write(f"{label}: {_count(len(wanted), 'server')} already pinned, unchanged\n")
        return
    try:
        lock.write()
    except OSError as exc:
        raise fail(f"cannot write {lock.path}: {exc.strerror or exc}", 1) from None
    tools = sum(len(live[n].get("tools", {})) for n in wanted)
    sys.stderr.write(f"wrote {lock.path}: {_count(len(wanted), 'server')}, {_count(tools, 'tool')} pinned\n")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
