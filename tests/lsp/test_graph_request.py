"""lait/graph (PROTOCOL.md section 7): the Mermaid text of `lait graph` for the saved file, and the
range of the step behind each node; a file with errors answers its located errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.lsp.run_support import run_client, write_project
from tests.peers.openai_server import ScriptedOpenAIServer

ROOT = Path(__file__).resolve().parents[2]

WORKFLOW = """name: each
steps:
  - id: each
    for_each: '["apple", "pear"]'
    steps:
      - id: shout_item
        prompt: "Shout {{ loop.item }}"
  - jq: '.'
"""


async def test_graph_is_lait_graph_with_step_ranges(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
    path = tmp_path / "each.yml"
    path.write_text(WORKFLOW, encoding="utf-8")
    bad = tmp_path / "bad.yml"
    bad.write_text("name: bad\nsteps:\n  - prompt: x\n    bogus: 1\n", encoding="utf-8")
    async with run_client(tmp_path) as client:
        result = await client.protocol.send_request_async("lait/graph", {"uri": path.as_uri()})
        failed = await client.protocol.send_request_async("lait/graph", {"uri": bad.as_uri()})
    cli = subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "graph", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)},
    )
    assert result["mermaid"] == cli.stdout and result["title"] == "each"
    starts = {n["id"]: n["range"]["start"]["line"] for n in result["nodes"]}
    # Three steps, three nodes, each at its step's line (start and end have no step).
    assert sorted(starts.values()) == [2, 5, 7]
    for node_id in starts:
        assert f"  {node_id}" in result["mermaid"] or f"    {node_id}" in result["mermaid"]
    assert "mermaid" not in failed
    assert failed["error"].startswith("lait: ") and f"{bad}:4:5:" in failed["error"]
