"""``./.env`` into the process environment, before anything reads a variable (docs/cli.md:
``--no-env`` anywhere before ``--`` skips it). Both the send-ahead path (:mod:`lait_cli.support.send_ahead`) and
:func:`lait_cli.main.main` call :func:`load_env`; the second call changes nothing, because a variable
already set is never replaced.

Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path


def load_env(argv: list[str]) -> None:
    """Set the variables of ``./.env`` the environment does not have yet, unless ``--no-env`` is
    given before ``--``. Raises :class:`lait_core.documents.dotenv.DotenvError` for a bad file."""
    head = argv[: argv.index("--")] if "--" in argv else argv
    if "--no-env" in head or not Path(".env").exists():
        return
    from lait_core.documents.dotenv import load_dotenv

    load_dotenv(Path.cwd(), os.environ)
