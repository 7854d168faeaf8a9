"""LAIT112: an MCP server runs Python from PATH instead of lait's own Python."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

C = "lait.config.yml"

rule(
    "LAIT112",
    "python-from-path",
    Severity.WARNING,
    "An MCP server written in Python is started with `python`/`python3` from PATH.",
    "The `python3` on PATH may not be the Python lait runs with: when lait lives in a venv or was "
    "installed with pipx, only lait's own Python has its packages (`mcp` among them), and a server "
    "started with another one fails at start (`No module named 'mcp'`). `${LAIT_PYTHON}` is the Python "
    "that runs lait (unless the environment sets `LAIT_PYTHON`), wherever lait is installed. Reported "
    "when `command` is a bare `python`, `python3` or `python3.N` and `args` start with a `.py` script or "
    "`-m`; a server with its own interpreter (a path, `uv run`, a venv's python) is left alone.",
    Example("mcp_servers:\n  notes:\n    command: python3\n    args: [servers/notes.py]\n", filename=C),
    Example(
        "mcp_servers:\n  notes:\n    command: '${LAIT_PYTHON}'\n    args: [servers/notes.py]\n", filename=C
    ),
)
