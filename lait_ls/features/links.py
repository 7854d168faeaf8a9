"""Document links for the file references of lait files (from lait_core.language.links)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.language.links import document_links
from lait_core.syntax.positions import LineIndex
from lait_ls.convert import to_lsp_range
from lait_ls.features.definition import document_of

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")


def registries(ls: LaitServer, path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The governing config's ``agents:`` and ``workflows:`` (name -> absolute path)."""
    try:
        config = ls.linter.workspace_for(path).loaded_config
    except Exception:
        return {}, {}
    if config is None:
        return {}, {}
    return dict(config.config.agents), dict(config.config.workflows)


def workdir(ls: LaitServer) -> str | None:
    """Where a run started from the editor reads relative ``files:`` (the workspace folder)."""
    try:
        return ls.workspace.root_path or None
    except Exception:
        return None


def register(server: LaitServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_LINK, lsp.DocumentLinkOptions(resolve_provider=False))
    async def links(ls: LaitServer, params: lsp.DocumentLinkParams) -> list[lsp.DocumentLink] | None:
        try:
            doc = document_of(ls, params.text_document.uri)
            if doc is None:
                return None
            agents, workflows = registries(ls, doc.path)
            found = await asyncio.to_thread(
                document_links,
                doc.kind,
                doc.text,
                str(doc.path),
                workdir=workdir(ls),
                agents=agents,
                workflows=workflows,
            )
            index = LineIndex(doc.text)
            return [
                lsp.DocumentLink(
                    range=to_lsp_range(index, link.range),
                    target=Path(link.target).as_uri(),
                    tooltip=link.tooltip,
                )
                for link in found
            ]
        except Exception:
            log.exception("documentLink failed for %s", params.text_document.uri)
            return None
