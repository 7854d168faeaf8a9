"""Only the HTTP client needs httpx: the loop, tools, policy and interaction import no heavy stack
(a replaying or caching sender can run the loop without it), and importing the package itself
imports nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("httpx", "httpx2", "mcp", "anyio", "pygls", "lsprotocol", "starlette")


def loaded_after(statement: str) -> list[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    return list(json.loads(done.stdout))


def test_engine_modules_without_the_client_import_no_heavy_stack() -> None:
    statement = (
        "import lait_core.engine, lait_core.engine.run.tool_loop, lait_core.engine.tools.tool_policy, lait_core.engine.run.interaction, "
        "lait_core.engine.llm.model_resolution, lait_core.engine.tools.shell, lait_core.engine.processes.spawn"
    )
    assert loaded_after(statement) == []


def test_the_client_imports_httpx() -> None:
    assert "httpx" in loaded_after("import lait_core.engine.llm.client")
