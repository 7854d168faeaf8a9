"""Who shows the authorization URL when an MCP server asks for sign-in.

A :class:`SignIn` presents a :class:`SignInRequest` as an async context manager: entering shows
the URL (the terminal prints it; the editor is asked to open it with ``window/showDocument``,
``external: true``, and shows progress), the body waits for the browser to come back to lait's
loopback listener, and leaving reports the outcome. :meth:`SignInRequest.cancel` ends the wait
(the editor's progress "Cancel" button); Ctrl-C cancels the waiting task itself.

No sign-in presenter (CI, ``lait serve``, a run without a terminal) means headless: the flow
fails at once with :class:`SignInRequired` ("sign in with `lait mcp login NAME`") instead of
waiting for a browser nobody will open.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Protocol, TextIO, runtime_checkable

from lait_core.engine.mcp.mcp_errors import McpError


@dataclass(frozen=True, slots=True)
class SignInRequest:
    server: str
    """The ``mcp_servers`` name."""
    url: str
    """The authorization URL to open in a browser."""
    redirect_uri: str
    """Lait's loopback listener the browser comes back to."""
    scope: str | None = None
    cancel: Callable[[], None] = field(default=lambda: None, compare=False)


@runtime_checkable
class SignIn(Protocol):
    def sign_in(self, request: SignInRequest) -> AbstractAsyncContextManager[None]: ...


def login_hint(server: str) -> str:
    return f"sign in with `lait mcp login {server}`"


class SignInRequired(McpError):
    """The server needs a sign-in and this run cannot show one."""

    def __init__(self, server: str, why: str = "asks for sign-in") -> None:
        super().__init__(server, f"{why}; {login_hint(server)}")


class SignInFailed(McpError):
    """The authorization flow ran and did not end with a token."""


class TerminalSignIn:
    """Prints the URL on stderr and waits (Ctrl-C cancels)."""

    def __init__(self, stderr: TextIO | None = None) -> None:
        self.stderr = stderr if stderr is not None else sys.stderr

    def _say(self, text: str) -> None:
        self.stderr.write(text)
        self.stderr.flush()

    @asynccontextmanager
    async def _flow(self, request: SignInRequest) -> AsyncIterator[None]:
        from lait_core.support.redact import show_url

        # Unredacted on the CLI's redacting stderr: the URL's query is the authorization request
        # itself (client_id, redirect_uri, state, PKCE challenge), no credential, and a masked URL
        # would be useless.
        show_url(request.url)
        self._say(
            f"mcp_servers.{request.server}: sign in by opening this URL in a browser:\n"
            f"  {request.url}\n"
            f"waiting for the browser to return to {request.redirect_uri} (Ctrl-C cancels)\n"
        )
        yield
        self._say(f"mcp_servers.{request.server}: authorization received\n")

    def sign_in(self, request: SignInRequest) -> AbstractAsyncContextManager[None]:
        return self._flow(request)


def presenter_of(interaction: object) -> SignIn | None:
    """The sign-in presenter an interaction offers (its ``sign_in_presenter()``), or None
    (headless: :class:`~lait_core.engine.run.interaction.HeadlessInteraction`, ``lait serve``)."""
    make = getattr(interaction, "sign_in_presenter", None)
    if not callable(make):
        return None
    presenter = make()
    return presenter if isinstance(presenter, SignIn) else None


def _tty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def terminal_presenter(
    stdin: object, stderr: TextIO, environ: Mapping[str, str] | None = None
) -> TerminalSignIn | None:
    """A :class:`TerminalSignIn` when a person can be there: stdin and stderr are terminals and
    ``CI`` is not set; else None (headless)."""
    env = os.environ if environ is None else environ
    if env.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        return None
    if not (_tty(stdin) and _tty(stderr)):
        return None
    return TerminalSignIn(stderr)
