"""The client under test for the official MCP conformance suite's ``auth/*`` scenarios: lait's
MCP client (``McpPool``, the one chat, agents and workflows use) against the URL the suite
appends to the command line.

It writes a ``lait.config.yml`` with one ``url:`` server ``conformance`` (plus an ``oauth:``
block from ``MCP_CONFORMANCE_CONTEXT`` when the scenario pre-registers a client, and lait's
client ID metadata document URL for ``auth/basic-cimd``), loads it the way the CLI does, and
lists and calls the server's tools. Signing in is real: lait opens its loopback listener and
the "browser" here is :class:`FollowingBrowser`, which requests the authorization URL and
follows the authorization server's redirect back to lait over loopback HTTP, as a person's
browser would. Tokens live in a fresh ``$XDG_DATA_HOME`` of this run (a file store: no keyring
is configured). Exit status 1 with one ``lait: ...`` line when the client fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

CIMD_URL = "https://conformance-test.local/client-metadata.json"


class FollowingBrowser:
    """A sign-in presenter that follows the authorization URL itself (loopback HTTP only)."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    def sign_in(self, request: object) -> AbstractAsyncContextManager[None]:
        return self._flow(request)

    @asynccontextmanager
    async def _flow(self, request: object) -> AsyncIterator[None]:
        import httpx2

        url = request.url  # type: ignore[attr-defined]
        self.opened.append(url)
        async with httpx2.AsyncClient(follow_redirects=True, timeout=20) as client:
            await client.get(url)
        yield


def write_config(folder: Path, url: str, scenario: str, context: dict[str, object]) -> Path:
    server: dict[str, object] = {"url": url}
    oauth: dict[str, object] = {}
    if context.get("client_id"):
        oauth["client_id"] = context["client_id"]
    if context.get("client_secret"):
        os.environ["CONFORMANCE_CLIENT_SECRET"] = str(context["client_secret"])
        oauth["client_secret_env"] = "CONFORMANCE_CLIENT_SECRET"
    if scenario == "auth/basic-cimd":
        oauth["client_metadata_url"] = CIMD_URL
    if oauth:
        server["oauth"] = oauth
    path = folder / "lait.config.yml"
    path.write_text(json.dumps({"mcp_servers": {"conformance": server}}))  # JSON is YAML
    return path


async def run(url: str) -> None:
    from lait_core.documents.config_file import ConfigMode, load_config
    from lait_core.engine.mcp.oauth.signin_options import OAuthOptions
    from lait_core.engine.run.interaction import HeadlessInteraction
    from lait_core.engine.tools.base import CallContext
    from lait_core.engine.tools.mcp_tools import McpPool

    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    folder = Path(tempfile.mkdtemp(prefix="lait-conformance-"))
    os.environ["XDG_DATA_HOME"] = str(folder / "data")
    os.environ["XDG_CONFIG_HOME"] = str(folder / "config")
    loaded = load_config(ConfigMode.EXPLICIT, explicit=write_config(folder, url, scenario, context))
    if any(doc.model is None for doc in loaded.documents):
        raise SystemExit(f"lait: invalid generated config: {[d.message for d in loaded.diagnostics]}")
    pool = McpPool(loaded.config.mcp_servers, base_dir=folder, oauth=OAuthOptions(sign_in=FollowingBrowser()))
    try:
        source = pool.source("conformance")
        tools = await source.list_tools()
        for tool in tools:
            ctx = CallContext(interaction=HeadlessInteraction(), call_id="call-1")
            result = await source.call(tool, "{}", ctx)
            sys.stdout.write(f"{tool.qualified_name}: {result.text}\n")
    finally:
        await pool.aclose()


def main() -> int:
    from lait_core.engine.llm.chat_types import EngineError

    try:
        asyncio.run(run(sys.argv[-1]))
    except EngineError as exc:
        sys.stderr.write(f"lait: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
