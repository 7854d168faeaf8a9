"""One run of lait (a chat, an agent run, a workflow run, an editor run): what every loop, step
and subagent of that run shares.

A :class:`RunSession` owns the HTTP client and the MCP servers of the run. MCP servers connect
only when a tool source is first used, and :meth:`RunSession.open` closes every one of them --
killing and reaping their process groups -- and the HTTP client on exit, also when the run is
cancelled. Loaded agents and skills are cached per run by canonical path.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from lait_core.documents.document_models import Config
from lait_core.engine.llm.client import ChatClient, ModelCaller
from lait_core.engine.llm.model_resolution import KeyResolver, ResolvedModel
from lait_core.engine.run.interaction import Interaction
from lait_core.engine.run.tool_loop import Sender
from lait_core.engine.tools.tool_policy import INTERACTIVE_DENIAL

if TYPE_CHECKING:
    from lait_core.engine.records.sender import RunRecords
    from lait_core.engine.records.trace_events import TraceRecorder
    from lait_core.engine.tools.mcp_tools import McpPool
    from lait_core.engine.tools.standing_grants import Grants

SenderWrapper = Callable[[ModelCaller], Sender]


@dataclass(eq=False)
class RunSession:
    config: Config
    config_dir: Path
    """The folder of the lait.config.yml in use (else the working directory): relative registry
    paths and MCP ``cwd`` values resolve against it."""
    interaction: Interaction
    client: ChatClient
    approve_tools: bool = False
    on_spawn: Callable[[int], None] | None = None
    """Called with the pid of every child process (so Ctrl-C can reach their groups)."""
    environ: Mapping[str, str] | None = None
    wrap_sender: SenderWrapper | None = None
    """Wraps every sender (chat's ``-vv`` request tracing)."""
    mcp_stderr: TextIO | None = None
    denial_text: str = INTERACTIVE_DENIAL
    """What the model is told when the person denies a tool call."""
    records: RunRecords | None = None
    """Cassettes, cache and trace of this run (None: the run keeps none)."""
    keep_grants: bool = False
    """An "always" approval is kept in the project's ``.lait/grants.yml`` and such grants answer
    later approvals (the CLI); otherwise it lasts for the process."""
    keys: KeyResolver = field(init=False)
    cache: dict[tuple[str, str], Any] = field(default_factory=dict, init=False)
    """Parsed agents and skills of this run, by (kind, canonical path)."""
    _mcp: McpPool | None = field(default=None, init=False)
    _grants: Grants | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.keys = KeyResolver(self.environ)

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls,
        config: Config,
        config_dir: Path,
        interaction: Interaction,
        *,
        approve_tools: bool = False,
        on_spawn: Callable[[int], None] | None = None,
        environ: Mapping[str, str] | None = None,
        client: ChatClient | None = None,
        wrap_sender: SenderWrapper | None = None,
        mcp_stderr: TextIO | None = None,
        denial_text: str = INTERACTIVE_DENIAL,
        mcp: McpPool | None = None,
        cache: dict[tuple[str, str], Any] | None = None,
        records: RunRecords | None = None,
        keep_grants: bool = False,
    ) -> AsyncIterator[RunSession]:
        """A session for one run; MCP servers and the HTTP client are closed on exit (a client or
        an MCP pool passed in is left to its owner: ``lait serve`` shares them, and the ``cache``
        of parsed agents and skills, between the calls it serves)."""
        own_client = client is None
        session = cls(
            config,
            config_dir,
            interaction,
            client if client is not None else ChatClient(),
            approve_tools=approve_tools,
            on_spawn=on_spawn,
            environ=environ,
            wrap_sender=wrap_sender,
            mcp_stderr=mcp_stderr,
            denial_text=denial_text,
            records=records,
            keep_grants=keep_grants,
        )
        own_mcp = mcp is None
        if mcp is not None:
            session._mcp = mcp
        if cache is not None:
            session.cache = cache
        try:
            yield session
        finally:
            await session._close(own_client, own_mcp)

    async def _close(self, own_client: bool, own_mcp: bool = True) -> None:
        try:
            if self._mcp is not None and own_mcp:
                await self._mcp.aclose()
        finally:
            if own_client:
                await self.client.aclose()

    @property
    def grants(self) -> Grants | None:
        """The project's standing grants (None unless :attr:`keep_grants`)."""
        if not self.keep_grants:
            return None
        if self._grants is None:
            from lait_core.engine.tools.standing_grants import Grants

            self._grants = Grants(self.config_dir)
        return self._grants

    @property
    def mcp(self) -> McpPool:
        """The run's MCP servers (created on first use; nothing connects until a tool is listed)."""
        if self._mcp is None:
            from lait_core.engine.mcp.oauth.signin import presenter_of
            from lait_core.engine.mcp.oauth.signin_options import OAuthOptions
            from lait_core.engine.tools.mcp_tools import McpPool

            self._mcp = McpPool(
                self.config.mcp_servers,
                base_dir=self.config_dir,
                environ=self.environ,
                stderr=self.mcp_stderr,
                on_spawn=self.on_spawn,
                oauth=OAuthOptions(sign_in=presenter_of(self.interaction), environ=self.environ),
                contained=self.config.confine == "project",
            )
        return self._mcp

    def sender(self, model: ResolvedModel) -> Sender:
        """The sender of requests to ``model`` (with fallback across its definitions)."""
        caller = ModelCaller(
            model, self.client, keys=self.keys, interaction=self.interaction, environ=self.environ
        )
        sender: Sender = self.wrap_sender(caller) if self.wrap_sender is not None else caller
        if self.records is not None and self.records.active:
            from lait_core.engine.records.sender import RecordsSender

            sender = RecordsSender(caller, sender, self.records, self.environ)
        return sender

    @property
    def trace(self) -> TraceRecorder | None:
        return self.records.trace if self.records is not None else None

    def resolve_path(self, value: str) -> Path:
        """A registry path (``agents:``, ``skills:``) made absolute against :attr:`config_dir`."""
        path = Path(value).expanduser()
        return path if path.is_absolute() else self.config_dir / path
