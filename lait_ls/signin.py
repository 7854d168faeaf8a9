"""MCP sign-in from the editor: the authorization URL goes to the editor with
``window/showDocument`` (``external: true``: the system browser opens it) and the wait shows as
work-done progress ("lait: sign in to NAME", cancellable: Cancel ends the sign-in). A client
without ``window.showDocument`` support (or one that fails to open it) gets the URL in a
``window/showMessage`` to open by hand. The flow itself is
:mod:`lait_core.engine.mcp.oauth.provider`'s; this module only presents it.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from lait_core.engine.mcp.oauth.callback import SignInCancelled
from lait_core.engine.mcp.oauth.signin import SignInRequest

log = logging.getLogger("lait-ls")


def _supports(ls: LanguageServer, capability: str) -> bool:
    try:
        window = ls.client_capabilities.window
    except AttributeError:
        return False
    if window is None:
        return False
    if capability == "showDocument":
        return bool(window.show_document is not None and window.show_document.support)
    return bool(window.work_done_progress)


class EditorSignIn:
    """The sign-in presenter of the runs of one language server."""

    def __init__(self, ls: LanguageServer) -> None:
        self.ls = ls

    def sign_in(self, request: SignInRequest) -> AbstractAsyncContextManager[None]:
        return self._flow(request)

    @asynccontextmanager
    async def _flow(self, request: SignInRequest) -> AsyncIterator[None]:
        token = await self._begin(request)
        outcome = "sign-in failed"
        try:
            if not await self._open(request):
                from lait_core.support.redact import show_url

                show_url(request.url)
                self.ls.window_show_message(
                    lsp.ShowMessageParams(
                        type=lsp.MessageType.Info,
                        message=f"lait: sign in to MCP server '{request.server}' by opening {request.url}",
                    )
                )
            yield
            outcome = "authorization received"
        except (asyncio.CancelledError, SignInCancelled):
            outcome = "sign-in cancelled"
            raise
        finally:
            if token is not None:
                self.ls.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=outcome))
                self.ls.work_done_progress.tokens.pop(token, None)

    async def _open(self, request: SignInRequest) -> bool:
        if not _supports(self.ls, "showDocument"):
            return False
        try:
            result = await self.ls.window_show_document_async(
                lsp.ShowDocumentParams(uri=request.url, external=True)
            )
        except Exception as exc:
            log.info("window/showDocument failed: %s", exc)
            return False
        return bool(getattr(result, "success", False))

    async def _begin(self, request: SignInRequest) -> str | None:
        if not _supports(self.ls, "progress"):
            return None
        token = f"lait-signin-{uuid.uuid4().hex[:12]}"
        try:
            await self.ls.work_done_progress.create_async(token)
        except Exception as exc:
            log.info("window/workDoneProgress/create failed: %s", exc)
            return None
        self.ls.work_done_progress.begin(
            token,
            lsp.WorkDoneProgressBegin(
                title=f"lait: sign in to {request.server}",
                message="waiting for the browser (opened by the editor)",
                cancellable=True,
            ),
        )
        cancelled = self.ls.work_done_progress.tokens.get(token)
        if cancelled is not None:
            loop = asyncio.get_running_loop()

            def on_cancel(future: Any) -> None:
                if future.cancelled():
                    loop.call_soon_threadsafe(request.cancel)

            cancelled.add_done_callback(on_cancel)
        return token
