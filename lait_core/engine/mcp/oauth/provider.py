"""The OAuth 2.1 auth of one streamable-HTTP connection: the ``mcp`` SDK's
``OAuthClientProvider`` with lait's storage, loopback redirect, presenters and guards.

What the SDK does (MCP authorization 2025-11-25): protected-resource metadata from the
``WWW-Authenticate`` header's ``resource_metadata``, then the path and root well-known URIs;
authorization-server metadata by RFC 8414 and OpenID discovery with their path fallbacks, and
the 2025-03-26 fallbacks (root metadata, ``/authorize``, ``/token``, ``/register``); the
client ID metadata document when the server supports it, else dynamic registration; PKCE S256;
the ``resource`` parameter (RFC 8707); scope selection (the challenge's ``scope``, else the
resource's ``scopes_supported``) and step-up on ``403 insufficient_scope`` with the union of
scopes; refresh of an expired token.

What lait adds:

* Tokens, their expiry, the registered client and the discovered metadata are kept in the
  :class:`~lait_core.engine.mcp.oauth.token_store.TokenStore`, so a later process refreshes an
  expired token at the right token endpoint without asking again; a ``401`` for a token lait
  holds is answered by one refresh before any new sign-in.
* A pre-registered client (``oauth: {client_id, client_secret_env}``) is used as it is; its
  token-endpoint authentication is ``client_secret_basic`` unless the server only lists
  ``client_secret_post``. Configured ``scopes`` replace the server's suggestion.
* The redirect goes to a loopback listener (:mod:`.callback`) opened only when a sign-in starts.
* Without a presenter (headless) a sign-in fails at once with
  :class:`~lait_core.engine.mcp.oauth.signin.SignInRequired`; so does a step-up.
* A ``403 insufficient_scope`` for scopes the token already has, or a fourth sign-in on one
  connection, ends with an error instead of another round (no authorization loops).
* The access token goes only on requests to the server's own URL (the SDK adds it to the MCP
  requests alone; lait's transport refuses redirects). Every token is remembered by
  :mod:`lait_core.support.redact`. The SDK's auth logger gets a ``NullHandler`` (the CLI prints no
  logging), and lait-ls redacts its log.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.utils import extract_field_from_www_auth, extract_scope_from_www_auth, union_scopes
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from pydantic import AnyUrl

from lait_core import __version__
from lait_core.engine.mcp.mcp_errors import McpError
from lait_core.engine.mcp.oauth.callback import Callback, SignInCancelled
from lait_core.engine.mcp.oauth.oauth_settings import OAuthSettings
from lait_core.engine.mcp.oauth.signin import SignIn, SignInFailed, SignInRequest, SignInRequired
from lait_core.engine.mcp.oauth.token_store import TokenStore

logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())

MAX_SIGN_INS = 3
"""Sign-ins one connection may run (the first, and two step-ups)."""
_PLACEHOLDER_REDIRECT = "http://127.0.0.1/callback"


class _Storage:
    """The SDK's ``TokenStorage`` over lait's store (one server's record)."""

    def __init__(self, provider: LaitOAuth) -> None:
        self.provider = provider

    @property
    def store(self) -> TokenStore:
        return self.provider.store

    @property
    def url(self) -> str:
        return self.provider.url

    async def get_tokens(self) -> OAuthToken | None:
        raw = self.store.load(self.url).get("tokens")
        try:
            return OAuthToken.model_validate(raw) if raw else None
        except ValueError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        context = self.provider.context
        expires_at = time.time() + tokens.expires_in if tokens.expires_in else None
        changes: dict[str, Any] = {
            "tokens": tokens.model_dump(mode="json", exclude_none=True),
            "expires_at": expires_at,
            "scope_needed": None,
        }
        if context.oauth_metadata is not None:
            changes["metadata"] = context.oauth_metadata.model_dump(mode="json", exclude_none=True)
        if context.protected_resource_metadata is not None:
            changes["resource_metadata"] = context.protected_resource_metadata.model_dump(
                mode="json", exclude_none=True
            )
        self.store.update(self.url, **changes)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        settings = self.provider.settings
        if settings.client_id:
            return OAuthClientInformationFull(
                client_id=settings.client_id,
                client_secret=settings.client_secret,
                token_endpoint_auth_method="client_secret_basic" if settings.client_secret else "none",
            )
        raw = self.store.load(self.url).get("client")
        try:
            return OAuthClientInformationFull.model_validate(raw) if raw else None
        except ValueError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if self.provider.settings.client_id:
            return
        self.store.update(self.url, client=client_info.model_dump(mode="json", exclude_none=True))


class LaitOAuth(OAuthClientProvider):
    """The ``httpx2.Auth`` of one connection to server ``name`` at ``url``."""

    def __init__(
        self,
        name: str,
        url: str,
        settings: OAuthSettings,
        store: TokenStore,
        sign_in: SignIn | None,
        *,
        on_wait: Callable[[bool], None] | None = None,
    ) -> None:
        self.name = name
        self.url = url
        self.settings = settings
        self.store = store
        self.presenter = sign_in
        self.on_wait = on_wait
        self.sign_ins = 0
        self.signed_in = False
        self.error: McpError | None = None
        """Why the last flow failed (cleared when a request is authorized)."""
        self.callback = Callback(name)
        self._step_up = False
        metadata = OAuthClientMetadata(
            client_name="lait",
            software_id="lait",
            software_version=__version__,
            redirect_uris=[AnyUrl(_PLACEHOLDER_REDIRECT)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        )
        super().__init__(
            url,
            metadata,
            _Storage(self),
            redirect_handler=self._redirect,
            callback_handler=self._wait_for_redirect,
            client_metadata_url=settings.client_metadata_url,
        )
        self._authorization_url: str | None = None
        self._legacy_issuer: str | None = None

    async def aclose(self) -> None:
        await self.callback.close()

    # -- state kept between processes
    async def _initialize(self) -> None:
        await super()._initialize()
        record = self.store.load(self.url)
        expires_at = record.get("expires_at")
        if isinstance(expires_at, int | float) and self.context.current_tokens is not None:
            self.context.token_expiry_time = float(expires_at)
        try:
            if self.context.oauth_metadata is None and record.get("metadata"):
                self.context.oauth_metadata = OAuthMetadata.model_validate(record["metadata"])
            if self.context.protected_resource_metadata is None and record.get("resource_metadata"):
                prm = ProtectedResourceMetadata.model_validate(record["resource_metadata"])
                self.context.protected_resource_metadata = prm
                if prm.authorization_servers:
                    self.context.auth_server_url = str(prm.authorization_servers[0])
        except ValueError:
            self.context.oauth_metadata = None
            self.context.protected_resource_metadata = None

    # -- the flow
    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        inner = super()._auth_flow(request)
        first = True
        try:
            outgoing = await inner.__anext__()
            while True:
                response = yield outgoing
                if outgoing is not request:
                    response = await self._legacy_metadata(outgoing, response)
                if outgoing is request and first:
                    first = False
                    if response.status_code == 401 and self.context.can_refresh_token():
                        refreshed = yield await self._refresh_token()
                        if await self._handle_refresh_response(refreshed):
                            self._add_auth_header(request)
                            response = yield request
                    if _asks_for_sign_in(response):
                        await self._before_sign_in(response)
                outgoing = await inner.asend(response)
        except StopAsyncIteration:
            return
        except Exception as exc:
            # The SDK's transport reports any failure here as "Connection closed"; the connection
            # reads the reason from here.
            self.error = exc if isinstance(exc, McpError) else SignInFailed(self.name, _reason(exc))
            raise
        finally:
            await inner.aclose()

    async def _legacy_metadata(self, outgoing: httpx2.Request, response: httpx2.Response) -> httpx2.Response:
        """A 2025-03-26 server (no protected-resource metadata) serves its authorization-server
        metadata at the root of its own origin, and such servers often name an issuer with a path
        on that origin (``https://host/oauth``). The 2025-03-26 spec has no issuer check and the
        endpoints are the server's own, so lait accepts an issuer on the MCP server's origin there;
        the SDK (RFC 8414 3.3) would insist on the bare origin. Anything else passes unchanged."""
        if (
            self.context.auth_server_url is not None
            or response.status_code != 200
            or outgoing.method != "GET"
            or outgoing.url.path != "/.well-known/oauth-authorization-server"
            or _origin(str(outgoing.url)) != _origin(self.url)
        ):
            return response
        import json

        try:
            body = json.loads(await response.aread())
        except ValueError:
            return response
        issuer = body.get("issuer") if isinstance(body, dict) else None
        origin = _origin(self.url)
        if not isinstance(issuer, str) or issuer.rstrip("/") == origin or _origin(issuer) != origin:
            return response
        self._legacy_issuer = issuer
        body["issuer"] = origin
        return httpx2.Response(200, json=body, request=outgoing)

    async def _before_sign_in(self, response: httpx2.Response) -> None:
        step_up = response.status_code == 403
        challenged = extract_scope_from_www_auth(response)
        if step_up:
            granted = (
                set((self.context.current_tokens.scope or "").split())
                if self.context.current_tokens
                else set()
            )
            wanted = set((challenged or "").split())
            if wanted and wanted <= granted:
                raise SignInFailed(
                    self.name,
                    f"the server refuses the token for lack of scope '{challenged}', which it already grants; "
                    "not signing in again",
                )
        if self.presenter is None:
            if step_up:
                self.store.update(self.url, scope_needed=challenged)
                raise SignInRequired(self.name, f"needs more permission (scope '{challenged or '?'}')")
            raise SignInRequired(self.name)
        if self.sign_ins >= MAX_SIGN_INS:
            raise SignInFailed(self.name, f"still refuses access after {MAX_SIGN_INS} sign-ins; giving up")
        self._step_up = step_up
        await self.callback.start()
        self.callback.renew()
        self.context.client_metadata.redirect_uris = [AnyUrl(self.callback.redirect_uri)]

    async def _perform_authorization_code_grant(self) -> tuple[str, str]:
        metadata = self.context.client_metadata
        configured = " ".join(self.settings.scopes) if self.settings.scopes is not None else None
        if self._step_up:
            metadata.scope = union_scopes(configured, metadata.scope)
        else:
            if configured is not None:
                metadata.scope = configured or None
            # what a refused call needed when no sign-in could be shown (a headless step-up)
            needed = self.store.load(self.url).get("scope_needed")
            metadata.scope = union_scopes(metadata.scope, needed if isinstance(needed, str) else None)
        self.sign_ins += 1
        return await super()._perform_authorization_code_grant()

    async def _redirect(self, authorization_url: str) -> None:
        self._authorization_url = authorization_url
        from urllib.parse import parse_qs, urlsplit

        states = parse_qs(urlsplit(authorization_url).query).get("state")
        self.callback.expect(states[0] if states else None)  # a forged redirect cannot end the sign-in

    async def _wait_for_redirect(self) -> AuthorizationCodeResult:
        presenter = self.presenter
        url = self._authorization_url
        if presenter is None or url is None:
            raise SignInRequired(self.name)
        request = SignInRequest(
            server=self.name,
            url=url,
            redirect_uri=self.callback.redirect_uri,
            scope=self.context.client_metadata.scope,
            cancel=self.callback.cancel,
        )
        if self.on_wait is not None:
            self.on_wait(True)
        try:
            async with presenter.sign_in(request):
                redirect = await self.callback.wait()
                if redirect.error:
                    detail = f": {redirect.error_description}" if redirect.error_description else ""
                    raise SignInFailed(
                        self.name, f"the authorization server refused the sign-in ({redirect.error}{detail})"
                    )
                if not redirect.code:
                    raise SignInFailed(self.name, "the authorization server sent no code")
        finally:
            if self.on_wait is not None:
                self.on_wait(False)
        self.signed_in = True
        iss = redirect.iss
        if iss is not None and iss == self._legacy_issuer:
            iss = _origin(self.url)
        return AuthorizationCodeResult(code=redirect.code, state=redirect.state, iss=iss)

    # -- token requests
    def _pick_client_auth(self) -> None:
        """A pre-registered confidential client authenticates as the server lists (RFC 8414's
        default is ``client_secret_basic``)."""
        info = self.context.client_info
        if info is None or not self.settings.client_id or not self.settings.client_secret:
            return
        metadata = self.context.oauth_metadata
        supported = metadata.token_endpoint_auth_methods_supported if metadata is not None else None
        if supported and "client_secret_basic" not in supported and "client_secret_post" in supported:
            info.token_endpoint_auth_method = "client_secret_post"
        else:
            info.token_endpoint_auth_method = "client_secret_basic"

    async def _exchange_token_authorization_code(self, auth_code: str, code_verifier: str) -> httpx2.Request:
        self._pick_client_auth()
        return await super()._exchange_token_authorization_code(auth_code, code_verifier)

    async def _refresh_token(self) -> httpx2.Request:
        self._pick_client_auth()
        return await super()._refresh_token()


def _asks_for_sign_in(response: httpx2.Response) -> bool:
    if response.status_code == 401:
        return True
    return (
        response.status_code == 403 and extract_field_from_www_auth(response, "error") == "insufficient_scope"
    )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, SignInCancelled):
        return "sign-in was cancelled"
    text = str(exc).strip() or type(exc).__name__
    return f"sign-in failed: {text}"


def _origin(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"
