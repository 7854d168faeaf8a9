"""One name for a step without an ``id`` on every surface (issue 25): the outline, the diagnostics
(lait-ls and `lait lint`), the graph (`lait graph` and ``lait/graph``), the dry run (`lait run
--dry-run` and ``lait/run`` with ``dryRun``), the run (its progress lines and ``lait/runEvent``) and
the trace (`--trace-file`) all call the prompt nested in the group ``step-3 (prompt)``: the file's
third step. (It is the first step of its own list, which is what the outline and the graph used to
count.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

from lsprotocol import types as lsp

from tests.cli.conftest import clean_env, run_lait
from tests.lsp.conftest import diagnostics_for, open_doc
from tests.lsp.run_support import run_client
from tests.peers.openai_server import ScriptedOpenAIServer, text

WORKFLOW = """name: names
steps:
  - id: first
    jq: '"x"'
  - group:
      - prompt: "Say hi"
        output: '[., $steps.nope]'
  - jq: '.[0]'
"""
NAME = "step-3 (prompt)"


def symbol_names(symbols: list[lsp.DocumentSymbol] | None) -> list[str]:
    out: list[str] = []
    for s in symbols or []:
        out.append(s.name)
        out.extend(symbol_names(s.children))
    return out


async def test_every_surface_names_an_unnamed_step_the_same(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        (tmp_path / "lait.config.yml").write_text(
            f"base_url: {llm.url}\ndefault: {{model: m}}\n", encoding="utf-8"
        )
        path = tmp_path / "names.yml"
        path.write_text(WORKFLOW, encoding="utf-8")
        env = clean_env(tmp_path / "xdg", tmp_path / "home")

        # the terminal: lint, graph, dry run, the run's progress and its trace
        lint = run_lait(["lint", "names.yml"], cwd=tmp_path, env=env)
        assert f"LAIT404 warning: the 'output' of {NAME} references step 'nope'" in lint.stdout, lint.stdout
        graph = run_lait(["graph", "names.yml"], cwd=tmp_path, env=env)
        assert graph.returncode == 0, graph.stderr
        assert re.search(rf'\["{re.escape(NAME)}<br/>', graph.stdout), graph.stdout
        dry = run_lait(["run", "names.yml", "go", "--dry-run"], cwd=tmp_path, env=env)
        assert f"    [3] {NAME}" in dry.stdout.splitlines(), dry.stdout
        llm.push(text("hi"))
        run = run_lait(["run", "names.yml", "go", "--trace-file", "trace.jsonl"], cwd=tmp_path, env=env)
        assert run.returncode == 0, run.stderr
        assert f"[3] {NAME}" in run.stderr.splitlines(), run.stderr
        traced = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
        assert [(e["operation"], e["label"]) for e in traced] == [("chat", NAME)]

        # the editor: outline, diagnostics, graph, dry run and run events
        llm.push(text("hi"))
        async with run_client(tmp_path) as client:
            uri = open_doc(client, path)
            diagnostics = await diagnostics_for(client, uri)
            assert [d.message for d in diagnostics if d.code == "LAIT404"] == [
                f"the 'output' of {NAME} references step 'nope', but no step in this file has that 'id'"
            ]
            outline = await client.text_document_document_symbol_async(
                lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
            )
            assert NAME in symbol_names(outline), symbol_names(outline)  # type: ignore[arg-type]
            drawn = await client.protocol.send_request_async("lait/graph", {"uri": uri})
            assert f'["{NAME}<br/>' in drawn["mermaid"]
            planned = await client.protocol.send_request_async(
                "lait/run", {"uri": uri, "kind": "workflow", "prompt": "go", "dryRun": True, "runId": "d"}
            )
            assert f"    [3] {NAME}" in str(planned["output"]).splitlines(), planned
            result = await client.protocol.send_request_async(
                "lait/run", {"uri": uri, "kind": "workflow", "prompt": "go", "runId": "r"}
            )
            assert result["status"] == "ok", result
            labels = [e["label"] for e in client.events_of("r") if e["type"] == "stepStarted"]
            assert labels == ["first", "step-2 (group)", NAME, "step-4 (jq)"]
