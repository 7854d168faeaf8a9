"""LAIT112: an MCP server started with ``python``/``python3`` from PATH to run a Python server.

The Python that runs lait has lait's packages (``mcp`` among them); a ``python3`` found on PATH may
be another one -- always so when lait lives in a venv or was installed with pipx -- and the server
then fails at start (``No module named 'mcp'``). ``${LAIT_PYTHON}`` is lait's own Python
(:func:`lait_core.documents.envvars.provided`)."""

from __future__ import annotations

import re

from lait_core.documents.envvars import LAIT_PYTHON
from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Fix, Severity
from lait_core.syntax.yaml.tree import MappingNode, ScalarNode, SequenceNode

C = "lait.config.yml"

CODE = "LAIT112"

RULE = rule(
    CODE,
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


_BARE_PYTHON = re.compile(r"python(?:3(?:\.\d+)?)?")


def _runs_python_code(args: object) -> bool:
    """The arguments start with a script (``x.py``) or a module (``-m name``)."""
    if not isinstance(args, SequenceNode) or not args.items:
        return False
    first = args.items[0]
    value = first.value if isinstance(first, ScalarNode) else None
    return isinstance(value, str) and (value.endswith(".py") or value == "-m")


def check_python_from_path(root: MappingNode, out: list[Diagnostic]) -> None:
    servers = root.get("mcp_servers")
    if not isinstance(servers, MappingNode):
        return
    for name, _key, server in servers.items():
        if not isinstance(server, MappingNode):
            continue
        command = server.get("command")
        if not (
            isinstance(command, ScalarNode)
            and isinstance(command.value, str)
            and _BARE_PYTHON.fullmatch(command.value)
            and _runs_python_code(server.get("args"))
        ):
            continue
        replacement = "${" + LAIT_PYTHON + "}"
        out.append(
            Diagnostic(
                CODE,
                f"mcp_servers.{name} runs '{command.value}' from PATH, which may be another Python than the"
                f" one lait runs with (in a venv or a pipx install lait's packages, such as 'mcp', are only"
                f" there); use '{replacement}' to start it with lait's Python",
                command.range,
                Severity.WARNING,
                fixes=(Fix(f"Use '{replacement}'", command.range, f"'{replacement}'"),),
            )
        )
