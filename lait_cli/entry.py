"""The ``lait`` console script. ``lait --version`` is answered here before typer and the command
modules are imported (the start-up target is 100 ms); everything else goes to
:func:`lait_cli.main.main`."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] in (["--version"], ["-V"]):
        from lait_core import __version__

        sys.stdout.write(f"lait {__version__}\n")
        raise SystemExit(0)
    from lait_cli.main import main as run

    run()
