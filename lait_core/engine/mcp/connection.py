"""One live connection to one MCP server, owned by a dedicated task.

The SDK's context managers (the transport, the session, the client) are anyio code whose cancel
scopes must be entered and exited by the same task (python-stack 2.5), while lait calls tools
from many tasks (parallel calls, workflow branches). So each connection has an *owner task* that
enters the client, reports ready, waits for :meth:`McpConnection.aclose`, and exits the client
again; every other task only sends requests through it. The owner task starts with an empty
context, so nothing of the first caller's context leaks into the connection.

The client negotiates the newest protocol the server speaks (``server/discover`` at 2026-07-28,
falling back to ``initialize`` at 2025-11-25), advertises only elicitation, and answers sampling
and roots requests "method not found". Elicitation reaches the interaction of the call that
caused it: on 2026-07-28 ``input_required`` results are resolved in the caller's task (a context
variable names its interaction); a 2025-era ``elicitation/create`` arrives on the connection's
own task and goes to the interaction of a call in flight (the oldest one).
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import TYPE_CHECKING, Any, ClassVar, TextIO

import mcp_types as types
from mcp.client import Client
from mcp.client.session import ClientRequestContext, ClientSession

from lait_core import __version__
from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.mcp import elicitation
from lait_core.engine.mcp.http import HttpState, http_transport
from lait_core.engine.mcp.limits import McpLimits
from lait_core.engine.mcp.mcp_errors import McpError
from lait_core.engine.mcp.oauth.signin_options import OAuthOptions
from lait_core.engine.mcp.shield import shielded
from lait_core.engine.mcp.spec import HttpSpec, ServerSpec
from lait_core.engine.mcp.stdio import StdioState, stdio_transport
from lait_core.engine.run.interaction import Interaction

if TYPE_CHECKING:
    from lait_core.engine.mcp.oauth.provider import LaitOAuth

_CALLER: contextvars.ContextVar[Interaction | None] = contextvars.ContextVar("lait_mcp_caller", default=None)
_CLOSE_GRACE = 10.0
"""Seconds the owner task gets to close the client before it is cancelled."""


async def _method_not_found(ctx: ClientRequestContext, request: Any) -> types.ErrorData:
    return types.ErrorData(code=types.METHOD_NOT_FOUND, message="Method not found")


async def _no_output_validation(name: str, result: types.CallToolResult) -> None:
    """Spec 3.5: the output schema is ignored. The SDK would validate ``structuredContent``
    against it (failing the call on a mismatch) and, for a tool it has not listed on this
    connection, first send its own unpaginated ``tools/list`` -- past lait's cache and limits."""


class _LaitClient(Client):
    """The SDK client, with sampling and roots requests answered "method not found" (the SDK's
    defaults answer "invalid request") while still not advertising either capability, and
    without the SDK's output-schema validation of call results."""

    async def _build_session(self, exit_stack: AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        dispatch = session.dispatch_input_request

        async def dispatch_input_request(
            ctx: ClientRequestContext, request: types.InputRequest
        ) -> types.InputResponse | types.ErrorData:
            if isinstance(request, types.ElicitRequest):
                return await dispatch(ctx, request)
            return await _method_not_found(ctx, request)

        session.dispatch_input_request = dispatch_input_request  # type: ignore[method-assign]
        session.validate_tool_result = _no_output_validation  # type: ignore[method-assign]
        return session


def unwrap(exc: BaseException) -> BaseException:
    """The single interesting exception inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)] or list(
            exc.exceptions
        )
        exc = inner[0]
    return exc


def describe(exc: BaseException) -> str:
    exc = unwrap(exc)
    if isinstance(exc, McpError):
        return exc.detail
    text = str(exc).strip()
    if isinstance(exc, TimeoutError):
        return text or "timed out"
    name = type(exc).__name__
    return f"{text} ({name})" if text else name


class McpConnection:
    """Connect with :meth:`open`; close with :meth:`aclose` (idempotent, waits until the child
    process group is killed and reaped)."""

    _serials = itertools.count(1)
    mode: ClassVar[str] = "auto"
    """The SDK client's protocol mode: ``auto`` (2026-07-28, else 2025-11-25); tests set
    ``legacy`` to drive a server in the 2025 era."""

    def __init__(
        self,
        name: str,
        spec: ServerSpec,
        config: McpServerConfig,
        *,
        limits: McpLimits,
        stderr: TextIO | None,
        on_spawn: Any = None,
        oauth: OAuthOptions | None = None,
    ) -> None:
        self.name = name
        self.config = config
        self.oauth = oauth or OAuthOptions()
        self._auth: LaitOAuth | None = None
        self._handshake: asyncio.Timeout | None = None
        self.spec = spec
        self.allow_elicitation = config.allow_elicitation
        self.limits = limits
        self.stderr = stderr
        self.on_spawn = on_spawn
        self.serial = next(self._serials)
        self.stdio = StdioState()
        self.http = HttpState()
        self.protocol_version: str | None = None
        self.broken = False
        self._client: Client | None = None
        self._stop = asyncio.Event()
        self._ready: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._callers: dict[int, Interaction] = {}
        self._caller_ids = itertools.count()
        self.on_tools_changed: Any = None
        """Called (no arguments) when the server sends ``notifications/tools/list_changed``."""
        self._completed: set[str] = set()
        self._completion = asyncio.Condition()

    # -- lifecycle
    @classmethod
    async def open(
        cls,
        name: str,
        spec: ServerSpec,
        config: McpServerConfig,
        *,
        limits: McpLimits,
        stderr: TextIO | None,
        on_spawn: Any = None,
        oauth: OAuthOptions | None = None,
    ) -> McpConnection:
        conn = cls(name, spec, config, limits=limits, stderr=stderr, on_spawn=on_spawn, oauth=oauth)
        await conn._start()
        return conn

    def _transport(self) -> AbstractAsyncContextManager[Any]:
        spec = self.spec
        if isinstance(spec, HttpSpec):
            from lait_core.support.redact import add_secrets, add_url_secrets

            add_url_secrets(spec.url)
            add_secrets(spec.headers.values())
            return http_transport(
                spec.url,
                spec.headers,
                timeout=self.limits.timeout,
                frame_bytes=self.limits.frame_bytes,
                state=self.http,
                auth=self._auth,
            )
        from lait_core.support.redact import CREDENTIAL_PARAMETER, add_secret

        for key in self.config.env:  # its stderr is quoted in failures: never its credentials
            if CREDENTIAL_PARAMETER.search(key):
                add_secret(spec.env.get(key))
        return stdio_transport(
            self.name,
            spec.argv,
            spec.env,
            str(spec.cwd) if spec.cwd is not None else None,
            stderr=self.stderr,
            frame_bytes=self.limits.frame_bytes,
            state=self.stdio,
            on_spawn=self.on_spawn,
        )

    def _oauth(self) -> LaitOAuth | None:
        """The OAuth of a ``url:`` server, unless its ``headers`` already carry an
        ``Authorization`` (then the person manages the credentials)."""
        spec = self.spec
        if not isinstance(spec, HttpSpec) or any(k.lower() == "authorization" for k in spec.headers):
            return None
        import os

        from lait_core.engine.mcp.oauth.oauth_settings import oauth_settings
        from lait_core.engine.mcp.oauth.provider import LaitOAuth
        from lait_core.engine.mcp.oauth.token_store import TokenStore

        environ = self.oauth.environ if self.oauth.environ is not None else os.environ
        settings = oauth_settings(self.name, self.config, environ)
        store = self.oauth.store or TokenStore(environ)
        return LaitOAuth(
            self.name, spec.url, settings, store, self.oauth.sign_in, on_wait=self._waiting_on_person
        )

    def _waiting_on_person(self, waiting: bool) -> None:
        """The handshake's deadline stops while a sign-in waits for the browser."""
        deadline = self._handshake
        if deadline is None or deadline.expired():
            return
        if waiting:
            deadline.reschedule(None)
        else:
            deadline.reschedule(asyncio.get_running_loop().time() + self.limits.handshake_timeout)

    async def _start(self) -> None:
        self._auth = self._oauth()
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        self._ready = ready
        self._task = loop.create_task(self._own(ready), context=contextvars.Context())
        try:
            try:
                async with asyncio.timeout(self.limits.handshake_timeout) as deadline:
                    self._handshake = deadline
                    await asyncio.shield(ready)
            finally:
                self._handshake = None
        except TimeoutError:
            await self.aclose()
            raise McpError(
                self.name, f"did not complete the MCP handshake within {self.limits.handshake_timeout:g}s"
            ) from None
        except asyncio.CancelledError:
            await shielded(self.aclose())
            raise
        except BaseException as exc:
            await self.aclose()
            auth_error = self._auth.error if self._auth is not None else None
            if auth_error is not None:
                raise auth_error from None
            if isinstance(unwrap(exc), McpError):
                raise unwrap(exc) from None
            detail = self.stdio.describe()
            reason = describe(exc)
            if detail is not None and detail not in reason:
                reason = f"{reason}; {detail}"
            raise McpError(self.name, f"could not connect: {reason}") from None

    async def _own(self, ready: asyncio.Future[None]) -> None:
        client = _LaitClient(
            self._transport(),
            mode=self.mode,  # type: ignore[arg-type]
            elicitation_callback=self._on_elicit,
            message_handler=self._on_message,
            client_info=types.Implementation(name="lait", version=__version__),
            read_timeout_seconds=self.limits.timeout,
            cache=None,
            input_required_max_rounds=self.limits.input_rounds,
        )
        try:
            async with client:
                self._client = client
                self.protocol_version = client.protocol_version
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(unwrap(exc) if isinstance(exc, Exception) else exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._client = None
            self._handshake = None
            if self._auth is not None:
                await shielded(self._auth.aclose())
            if not ready.done():
                ready.set_exception(McpError(self.name, "the connection closed during the handshake"))

    async def aclose(self) -> None:
        self.broken = True
        self._stop.set()
        task = self._task
        if task is None or task.done():
            self._retrieve()
            return
        # A server still in its handshake has nothing to close politely: cancel at once (Ctrl-C
        # while connecting must not wait for the grace period).
        in_handshake = self._ready is None or not self._ready.done()
        done, _ = await shielded(asyncio.wait([task], timeout=0 if in_handshake else _CLOSE_GRACE))
        if not done:
            task.cancel()
            await shielded(asyncio.wait([task]))
        self._retrieve()

    def _retrieve(self) -> None:
        for fut in (self._task, self._ready):
            if fut is not None and fut.done() and not fut.cancelled():
                fut.exception()

    @property
    def signed_in(self) -> bool:
        """A sign-in (authorization-code flow) completed on this connection."""
        return self._auth is not None and self._auth.signed_in

    @property
    def usable(self) -> bool:
        """Not evicted, and (for stdio) the child's stdout still open: a server that died while
        idle is replaced before the next request instead of failing it."""
        task = self._task
        return not self.broken and not self.stdio.eof and task is not None and not task.done()

    # -- requests
    @property
    def client(self) -> Client:
        if self._client is None or self.broken:
            raise McpError(self.name, "the connection is closed")
        return self._client

    async def list_page(self, cursor: str | None) -> types.ListToolsResult:
        return await self.client.list_tools(cursor=cursor)

    async def call_tool(
        self, tool: str, arguments: dict[str, Any] | None, interaction: Interaction
    ) -> types.CallToolResult:
        client = self.client
        key = next(self._caller_ids)
        self._callers[key] = interaction
        token = _CALLER.set(interaction)
        try:
            return await client.call_tool(tool, arguments)
        finally:
            _CALLER.reset(token)
            del self._callers[key]

    async def _on_elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        interaction = _CALLER.get()
        if interaction is None and self._callers:
            interaction = self._callers[min(self._callers)]
        try:
            return await elicitation.answer(self.name, params, self.allow_elicitation, interaction)
        except Exception:
            return types.ElicitResult(action="decline")

    async def _on_message(self, message: Any) -> None:
        """Server notifications: ``tools/list_changed`` drops the cached tool list (through
        :attr:`on_tools_changed`); ``elicitation/complete`` records the finished URL elicitation."""
        if isinstance(message, types.ToolListChangedNotification):
            if self.on_tools_changed is not None:
                self.on_tools_changed()
        elif isinstance(message, types.ElicitCompleteNotification):
            async with self._completion:
                self._completed.add(message.params.elicitation_id)
                self._completion.notify_all()

    async def wait_completed(self, elicitation_ids: list[str], timeout: float) -> bool:
        """Wait until the server has reported every one of ``elicitation_ids`` complete
        (``notifications/elicitation/complete``); False after ``timeout`` seconds."""
        try:
            async with asyncio.timeout(timeout), self._completion:
                await self._completion.wait_for(lambda: all(i in self._completed for i in elicitation_ids))
        except TimeoutError:
            return False
        return True

    def bad_reply(self, exc: BaseException) -> str | None:
        """What was wrong with the server's reply when a call failed because of it -- an oversized
        or non-JSON-RPC stdio line, an oversized HTTP body, a result that does not validate --
        or None for any other failure."""
        if self.stdio.fault is not None:
            return self.stdio.fault
        if self.http.fault is not None:
            return f"{self.http.fault}; the connection was closed"
        from pydantic import ValidationError

        from lait_core.engine.mcp.http import BodyTooLarge

        for error in _chain(exc):
            if isinstance(error, BodyTooLarge):
                return f"{error}; the connection was closed"
            if isinstance(error, ValidationError):
                problems = "; ".join(
                    f"'{'.'.join(str(part) for part in e['loc']) or 'result'}': {e['msg']}"
                    for e in error.errors(include_url=False)[:5]
                )
                return f"the result does not match the MCP schema ({problems}); the connection was closed"
        return None

    def failure(self, exc: BaseException) -> str:
        """A message for a failed request, with what happened to a stdio child (or why the sign-in
        failed: the SDK reports only "Connection closed")."""
        if self._auth is not None and self._auth.error is not None:
            return self._auth.error.detail
        reason = describe(exc)
        detail = self.stdio.describe()
        if detail is not None:
            return f"{reason}; {detail}" if "onnection closed" not in reason else detail
        return reason


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc``, the exceptions inside its groups, and their causes and contexts."""
    seen: list[BaseException] = []
    pending = [exc]
    while pending and len(seen) < 64:
        current = pending.pop()
        if any(current is s for s in seen):
            continue
        seen.append(current)
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                pending.append(linked)
    return seen


__all__ = ["McpConnection", "describe", "unwrap"]
