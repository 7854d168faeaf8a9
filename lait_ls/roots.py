"""The directories a workspace-wide request walks: the client's workspace folders (or its root path),
optionally plus the folders of open documents that lie outside them."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")


def workspace_roots(ls: LaitServer, *, with_open_folders: bool = False) -> list[str]:
    """Existing workspace folder paths, in the client's order; with ``with_open_folders`` also the
    folder of each open document outside them (workspace symbols: a lone file opened without a
    folder still has neighbours)."""
    roots: list[str] = []
    try:
        for folder in ls.workspace.folders.values():
            path = ls.path_of(folder.uri)
            if path is not None:
                roots.append(str(path))
        if not roots and ls.workspace.root_path:
            roots.append(ls.workspace.root_path)
    except Exception:
        log.debug("no workspace folders", exc_info=True)
    if with_open_folders:
        for uri in sorted(ls.open_uris):
            path = ls.path_of(uri)
            if path is not None and not any(str(path).startswith(r.rstrip("/") + "/") for r in roots):
                roots.append(str(path.parent))
    return [r for r in roots if os.path.isdir(r)]
