"""`textDocument/codeLens`: "▶ Run workflow" and "Dry run" above `steps:`, "▶ Run agent" on an agent
file's first line, "▶ Run test" / "▶ Run eval" on the first key of a test / eval file. The commands are the client's own (it asks for the prompt and the inputs, then
sends `lait/run`); their argument is the run target of editors/vscode/PROTOCOL.md section 3.

The same commands are offered as source actions (kind ``source.lait.run``) on the lens's line, for
clients that show no lenses."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from lait_core.language.kept_results import KeptResults, carry_target
from lait_core.language.run_targets import RunTarget, run_target
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import LineIndex
from lait_ls import protocol
from lait_ls.convert import to_lsp_range

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

log = logging.getLogger("lait-ls")

RUN_WORKFLOW = "▶ Run workflow"
DRY_RUN = "Dry run"
RUN_AGENT = "▶ Run agent"
RUN_TEST = "▶ Run test"
RUN_EVAL = "▶ Run eval"


RUN_KIND = f"{lsp.CodeActionKind.Source.value}.lait.run"
KEPT: KeptResults[RunTarget | None] = KeptResults(carry_target)


def lenses(ls: LaitServer, uri: str) -> list[lsp.CodeLens]:
    if uri not in ls.open_uris:
        return []
    kind = ls.kind_of(uri)
    if kind not in (FileKind.WORKFLOW, FileKind.AGENT, FileKind.TEST, FileKind.EVAL):
        return []
    text = ls.text_of(uri)
    path = str(ls.path_of(uri) or "")
    # an incomplete edit keeps the lenses of the last text that parsed (lait_core.language.kept_results)
    KEPT.forget(lambda key: key in ls.open_uris)
    target = KEPT.result(uri, kind, text, lambda: run_target(kind, text, path), path)
    if target is None:
        return []
    rng = to_lsp_range(LineIndex(text), target.anchor)
    argument = protocol.target_payload(uri, target)
    if target.kind == "agent":
        titles = [(RUN_AGENT, protocol.LENS_RUN_AGENT)]
    elif target.kind == "test":
        titles = [(RUN_TEST, protocol.LENS_RUN_TEST)]
    elif target.kind == "eval":
        titles = [(RUN_EVAL, protocol.LENS_RUN_EVAL)]
    else:
        titles = [(RUN_WORKFLOW, protocol.LENS_RUN_WORKFLOW), (DRY_RUN, protocol.LENS_DRY_RUN)]
    return [
        lsp.CodeLens(range=rng, command=lsp.Command(title=title, command=command, arguments=[argument]))
        for title, command in titles
    ]


def run_actions(ls: LaitServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """The lenses' commands as code actions, when the client asks for source actions (``only``
    includes ``source`` or ``source.lait.run``; never mixed into quick fixes) and the range touches
    the lens's line."""
    only = params.context.only
    if not only or not any(k == RUN_KIND or RUN_KIND.startswith(f"{k}.") for k in only):
        return []
    out = []
    for lens in lenses(ls, params.text_document.uri):
        line = lens.range.start.line
        if lens.command is not None and params.range.start.line <= line <= params.range.end.line:
            out.append(lsp.CodeAction(title=lens.command.title, kind=RUN_KIND, command=lens.command))
    return out


def register(server: LaitServer) -> None:
    server.code_action_kinds.append(RUN_KIND)
    server.code_action_providers.append(run_actions)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=False))
    def code_lens(ls: LaitServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
        try:
            return lenses(ls, params.text_document.uri) or None
        except Exception:  # a broken buffer must never take the server down
            log.exception("codeLens failed for %s", params.text_document.uri)
            return None
