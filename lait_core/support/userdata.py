"""Where lait keeps a person's own data across projects: ``$XDG_DATA_HOME/lait`` (an unset or
relative ``XDG_DATA_HOME`` means ``~/.local/share``, as the XDG base directory spec says). The run
history (:mod:`lait_core.engine.records.run_history`) and the MCP OAuth token files
(:mod:`lait_core.engine.mcp.oauth.token_store`) live there."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def data_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/lait`` (``~/.local/share/lait`` by default); not created here."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME", "")
    if not base or not os.path.isabs(base):
        home = env.get("HOME") or str(Path.home())
        base = os.path.join(home, ".local", "share")
    return Path(base) / "lait"
