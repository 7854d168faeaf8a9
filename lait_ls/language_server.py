"""The pygls server (:class:`LaitServer`, :func:`build`). It only adapts: every answer comes from
lait_core. Started by :mod:`lait_ls.server`."""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path
from pygls.workspace.text_document import TextDocument

from lait_core import __version__
from lait_core.documents.config_file import ConfigMode, global_config_file
from lait_core.lint.discovery import FileKind
from lait_core.lint.engine import Linter, LintOptions
from lait_ls.documents import Overlay, agent_references, lait_kind

if TYPE_CHECKING:
    from lait_ls.features.code_actions import Provider as CodeActionProvider

log = logging.getLogger("lait-ls")

DEFAULT_DEBOUNCE = 0.15


def _always_utf16(cls: object, client_capabilities: lsp.ClientCapabilities) -> lsp.PositionEncodingKind:
    """lait-ls always negotiates UTF-16 positions (LSP's default, which every client must support).

    pygls would pick the client's first preference (utf-8 for Neovim 0.11, utf-32 for Emacs), while
    every conversion in ``lait_ls.convert`` produces UTF-16 columns."""
    return lsp.PositionEncodingKind.Utf16


ServerCapabilitiesBuilder.choose_position_encoding = classmethod(_always_utf16)  # type: ignore[method-assign,assignment]

_LSP_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _lsp_lines(self: TextDocument) -> tuple[str, ...]:
    """Lines as LSP counts them (ended by \\n, \\r\\n or \\r only). pygls uses str.splitlines, which also
    ends lines at \\x0b, \\x0c, \\x85, U+2028 ..., so incremental edits after such a character would land
    on the wrong line."""
    return tuple(_LSP_LINE.findall(self.source))


TextDocument.lines = property(_lsp_lines)  # type: ignore[method-assign,assignment]


class LaitProtocol(LanguageServerProtocol):
    """pygls's protocol, except that a handler's future is let go once it is done.

    pygls (2.1) files the future of a notification's handler (and of a handler that a built-in one
    hands on to, such as lait's didChange) under a fresh id in ``_request_futures``, and only the
    answer to a request removes an entry there: every keystroke's didChange kept a finished future,
    about 1.8 KB, for the rest of the session (docs/performance.md)."""

    def _execute_handler(
        self,
        msg_id: str | int,
        handler: Callable[..., Any],
        callback: Callable[[Future[Any]], None],
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:  # after pygls's own callback: a request's is answered first
            future.add_done_callback(lambda done: self._let_go(msg_id, done))

    def _let_go(self, msg_id: str | int, done: Future[Any]) -> None:
        if self._request_futures.get(msg_id) is done:
            self._request_futures.pop(msg_id, None)


class LaitServer(LanguageServer):
    def __init__(self) -> None:
        from lait_ls.protocol import dict_converter

        super().__init__(
            name="lait-ls",
            version=__version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            protocol_cls=LaitProtocol,
            converter_factory=dict_converter,  # lait/* messages stay plain dicts (no namedtuples)
        )
        self.overlay = Overlay()
        self.linter = Linter(LintOptions(ConfigMode.SEARCH), reader=self.overlay.read)
        """The request loop's linter (configs and workspaces for kinds, completion, navigation)."""
        from lait_ls.lint_worker import LintWorker

        self.lint_worker = LintWorker(LintOptions(ConfigMode.SEARCH), reader=self.overlay.read)
        """Diagnostics are computed on its thread, with its own linter."""
        self.agent_refs: dict[str, set[str]] = {}
        """Per open workflow: the agent files it uses by path (for :meth:`kind_of`)."""
        self.debounce = DEFAULT_DEBOUNCE
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.linting: dict[str, asyncio.Task[None]] = {}
        """The scheduled task of a document whose lint is under way (past its debounce)."""
        self.kept_lints: dict[str, asyncio.Task[None]] = {}
        """Per document, the lint an edit did not cancel (the document went too long without
        diagnostics): it publishes for the text it linted."""
        self.unpublished_since: dict[str, float] = {}
        """Per open document: when (monotonic) its first change not yet published was made."""
        self.open_uris: set[str] = set()
        self.had_findings: dict[str, bool] = {}
        """Per open document: whether its last publish had diagnostics."""
        self.pull_diagnostics = False
        """Pull mode (initialization option ``diagnostics: "pull"``): nothing is published, see
        :mod:`lait_ls.features.pull_diagnostics`."""
        self.read_env = True
        """Runs read the project's ``.env`` (initialization option ``noEnv: true`` turns it off, like
        the CLI's ``--no-env``)."""
        self.code_action_kinds: list[lsp.CodeActionKind | str] = [lsp.CodeActionKind.QuickFix]
        """The code action kinds announced in the capabilities: a feature that adds actions of
        another kind appends its kind from its ``register`` (before ``initialize`` is answered)."""
        self.code_action_providers: list[CodeActionProvider] = []
        """Other features' code actions ("Run workflow", say): LSP allows one textDocument/codeAction
        handler, and :mod:`lait_ls.features.code_actions` owns it; another feature appends its
        provider here from its ``register``."""

    # -- documents ----------------------------------------------------------------------------
    @staticmethod
    def path_of(uri: str) -> Path | None:
        fs = to_fs_path(uri)
        return Path(fs) if fs else None

    def text_of(self, uri: str) -> str:
        return self.workspace.get_text_document(uri).source

    def kind_of(self, uri: str) -> FileKind | None:
        """The lait kind of an open document (None: not a lait file, it gets nothing)."""
        path = self.path_of(uri)
        if path is None:
            return None
        options = self.linter.options
        if os.path.normpath(os.path.abspath(path)) == global_config_file(options.mode, options.environ):
            return FileKind.CONFIG  # the global config: checked and navigated like lait.config.yml
        text = self.text_of(uri)
        try:
            config = self.linter.workspace_for(path).loaded_config
            workflows = config.config.workflows if config else {}
            agents = config.config.agents if config else {}
            skills = config.config.skills if config else {}
        except Exception:  # an unreadable config must not hide the file
            workflows, agents, skills = {}, {}, {}
        refs: set[str] = set()
        if path.suffix.lower() == ".md":
            for other in self.open_uris:
                other_path = self.path_of(other)
                if other != uri and other_path is not None and other_path.suffix in (".yml", ".yaml"):
                    refs |= self._agent_refs_of(other, other_path)
        return lait_kind(path, text, workflows=workflows, agents=agents, agent_refs=refs, skills=skills)

    SMALL_TEXT = 64 * 1024
    """Open workflows up to this size have their agent references read on the request loop when
    they are not known yet; bigger ones only by their lint (on the lint thread)."""

    def _agent_refs_of(self, uri: str, path: Path) -> set[str]:
        known = self.agent_refs.get(uri)
        if known is not None:
            return known
        text = self.text_of(uri)
        if len(text) > self.SMALL_TEXT:
            return set()
        return self.remember_agent_refs(uri, path, text)

    def remember_agent_refs(self, uri: str, path: Path, text: str) -> set[str]:
        refs = agent_references(path, text)
        self.agent_refs[uri] = refs
        return refs

    def invalidate(self, path: Path) -> None:
        """A document changed: forget what both linters cached about it."""
        self.linter.invalidate(path)
        self.lint_worker.invalidate(path)
        for uri in [u for u in self.agent_refs if self.path_of(u) == path]:
            del self.agent_refs[uri]

    def configure(self, options: Any) -> None:
        """Settings from initializationOptions or workspace/didChangeConfiguration:
        {debounce: ms, approveTools: "always" | "never", noEnv: bool} (also under a "lait" key)."""
        if isinstance(options, dict):
            lait = options.get("lait", options)
            if isinstance(lait, dict) and isinstance(lait.get("noEnv"), bool):
                self.read_env = not lait["noEnv"]
            if isinstance(lait, dict) and isinstance(lait.get("debounce"), int | float):
                self.debounce = max(0.0, float(lait["debounce"]) / 1000.0)
            from lait_ls.features import inlay_hints

            inlay_hints.configure(self, options)
            if isinstance(lait, dict) and lait.get("approveTools") in ("always", "never"):
                from lait_ls.run import state_of

                state_of(self).approve_tools = lait["approveTools"]


def build() -> LaitServer:
    server = LaitServer()
    from lait_ls.features import register_all

    register_all(server)
    from lait_ls import run

    run.register(server)

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: LaitServer, params: lsp.InitializeParams) -> None:
        ls.configure(params.initialization_options)
        run.configure_trust(ls, params.initialization_options)
        from lait_ls.features import pull_diagnostics
        from lait_ls.prebuilt_answer import wants_pull

        if wants_pull(params.initialization_options):
            pull_diagnostics.enable(ls)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: LaitServer, params: lsp.DidChangeConfigurationParams) -> None:
        ls.configure(params.settings)
        from lait_ls.features import inlay_hints

        inlay_hints.refresh(ls)

    return server
