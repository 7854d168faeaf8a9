"""lait_core.support.httpx_import: httpx without trio and without httpx's own command-line client (start-up
time of a chat, issue 17), and without side effects on later imports."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

PROBE = """
import json, sys
import lait_core.engine.llm.client  # the chat path's first httpx import
before = {name: name in sys.modules for name in ("trio", "httpx._main", "rich", "pygments")}
import httpcore._synchronization as sync
after = {}
try:
    import trio  # a later import of trio still works when trio is installed
    after["trio"] = trio.__name__
except ImportError as exc:
    after["trio"] = "ImportError"
print(json.dumps({"before": before, "httpcore_trio": sync.trio is not None, "after": after}))
"""


def test_the_chat_path_imports_httpx_without_trio_or_its_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    result = json.loads(done.stdout)
    assert result["before"] == {"trio": False, "httpx._main": False, "rich": False, "pygments": False}
    assert result["httpcore_trio"] is False
    installed = importlib.util.find_spec("trio") is not None
    assert result["after"]["trio"] == ("trio" if installed else "ImportError")
