"""``lait/graph`` (editors/vscode/PROTOCOL.md section 7): a workflow's ``lait graph`` (Mermaid) for
the editor's graph view, with the range of the step behind each node so that a click can reveal it.

Like ``lait graph`` and like a run, it reads the saved file (the view is refreshed on save). A file
that does not validate answers ``{error}`` with the located errors, never a JSON-RPC error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

GRAPH = "lait/graph"


def graph(ls: LaitServer, params: Any) -> dict[str, Any]:
    from pygls.exceptions import JsonRpcInvalidParams

    from lait_core.commands.workflow_graph import build_graph, step_ranges, to_mermaid
    from lait_core.engine.workflow.loader import load_document
    from lait_core.engine.workflow.workflow_errors import WorkflowLoadError

    uri = params.get("uri") if isinstance(params, Mapping) else None
    if not isinstance(uri, str) or not uri:
        raise JsonRpcInvalidParams(f"{GRAPH}: 'uri' must be a non-empty string")
    path = ls.path_of(uri)
    if path is None:
        raise JsonRpcInvalidParams(f"{GRAPH}: not a file URI: {uri}")
    try:
        doc = load_document(None, path)
    except WorkflowLoadError as exc:
        from lait_core.lint.invalid_workflow import invalid_workflow_text

        if exc.unreadable:
            return {"uri": uri, "error": f"lait: {exc}"}
        # the saved file's findings, counted as `lait lint` and the file's dependants count them
        return {"uri": uri, "error": "lait: " + invalid_workflow_text(path, list(exc.diagnostics))}
    built = build_graph(doc)
    nodes = [
        {
            "id": node_id,
            "range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}},
        }
        for node_id, (sl, sc, el, ec) in step_ranges(built).items()
    ]
    return {"uri": uri, "title": built.title, "mermaid": to_mermaid(built), "nodes": nodes}


def register(server: LaitServer) -> None:
    @server.feature(GRAPH)
    def lait_graph(ls: LaitServer, params: Any) -> dict[str, Any]:
        return graph(ls, params)
