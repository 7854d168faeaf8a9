"""File watching: ``workspace/didChangeWatchedFiles``, registered dynamically for the lait globs when
the client supports that. A created, changed, renamed (deleted + created) or deleted config, agent,
workflow or skill is forgotten by both linters and the navigation index at once, and dependants are
re-checked (open documents re-linted; in pull mode the client is asked to pull again). Once the
client watches for us, the navigation index stops re-walking directories every few seconds."""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_ls.features.workspace_pulls import supports_watching

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

REGISTRATION_ID = "lait-watched-files"
GLOBS = ("**/lait.config.yml", "**/*.{yml,yaml}", "**/*.md")
"""Every file that can be a lait file (which of them are is decided per file, as for documents)."""


def files_changed(ls: LaitServer, paths: list[str]) -> None:
    """Forget what is cached about ``paths`` and re-check what may depend on them."""
    from lait_ls.features.definition import project_of
    from lait_ls.features.diagnostics import schedule

    project = project_of(ls)
    # An open document's didChange/didSave already re-checked it and its dependants: its own watcher
    # event (every save sends one) only refreshes the caches. Re-checking everything again would
    # republish, and a republish makes VS Code drop a Quick Fix request made meanwhile.
    open_paths = {ls.path_of(uri) for uri in ls.open_uris}
    recheck = False
    for raw in paths:
        path = ls.path_of(raw)
        if path is None:
            continue
        if path.suffix.lower() not in (".yml", ".yaml", ".md"):
            continue
        ls.invalidate(path)
        project.forget(path)
        recheck = recheck or path not in open_paths
    if not recheck:
        return
    if ls.pull_diagnostics:  # closed files count too: the client pulls them all again
        from lait_ls.features.workspace_pulls import request_refresh

        request_refresh(ls)
        return
    for uri in sorted(ls.open_uris):
        schedule(ls, uri)


def register(server: LaitServer) -> None:
    @server.feature(lsp.INITIALIZED)
    async def initialized(ls: LaitServer, params: lsp.InitializedParams) -> None:
        if not supports_watching(ls):
            return
        options = lsp.DidChangeWatchedFilesRegistrationOptions(
            watchers=[lsp.FileSystemWatcher(glob_pattern=glob) for glob in GLOBS]
        )
        try:
            await ls.client_register_capability_async(
                lsp.RegistrationParams(
                    registrations=[
                        lsp.Registration(
                            id=REGISTRATION_ID,
                            method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=options,
                        )
                    ]
                )
            )
        except Exception:  # the client refused: keep re-walking directories every few seconds
            log.info("the client did not register the file watchers", exc_info=True)
            return
        from lait_ls.features.definition import project_of

        project_of(ls).rescan_seconds = math.inf

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: LaitServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        try:
            files_changed(ls, [change.uri for change in params.changes])
        except Exception:
            log.exception("didChangeWatchedFiles failed")
