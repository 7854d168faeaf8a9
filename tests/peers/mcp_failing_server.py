"""A real MCP server (the ``mcp`` SDK's MCPServer, stdio) that fails, saying why on stderr, for the
tests of failure messages (issue 25: a run that fails on its MCP server shows the cause).

Modes (the first argument):

* ``start`` -- prints a line, then imports a module that does not exist: Python prints the
  ``ModuleNotFoundError`` traceback to stderr and exits 1 before the handshake (what the example's
  notes server did under a ``python3`` without ``mcp``).
* ``noise`` -- as ``start``, after 5,000 numbered stderr lines and a 1 MB line without an end.
* ``secret`` -- prints ``token=<$NOTES_TOKEN>`` to stderr, then fails as ``start``.
* ``call`` -- serves one tool, ``crash``, which prints ``crashing: <why>`` to stderr and exits 3
  (the server dies in the middle of a run).

    python -m tests.peers.mcp_failing_server start
"""

from __future__ import annotations

import importlib
import os
import sys


def fail_at_start() -> None:
    print("notes server starting", file=sys.stderr, flush=True)
    importlib.import_module("lait_no_such_module")


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "start"
    if mode == "noise":
        for i in range(5000):
            sys.stderr.write(f"noise line {i}\n")
        sys.stderr.write("x" * 1_000_000 + "\n")
        sys.stderr.flush()
        fail_at_start()
    elif mode == "secret":
        print(f"token={os.environ.get('NOTES_TOKEN', '')}", file=sys.stderr, flush=True)
        fail_at_start()
    elif mode == "call":
        from mcp.server.mcpserver import MCPServer

        server = MCPServer("lait-test-crashing")

        @server.tool()
        def crash(why: str) -> str:
            """Exit at once."""
            print(f"crashing: {why}", file=sys.stderr, flush=True)
            os._exit(3)

        server.run()
    else:
        fail_at_start()


if __name__ == "__main__":
    main()
