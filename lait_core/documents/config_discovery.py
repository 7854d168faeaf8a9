"""Where lait.config.yml files are: the project file found by walking upward, and the global file.

Standard library only: the send-ahead path (:mod:`lait_cli.support.send_ahead`) finds at start-up the
config files in effect, the same way :func:`lait_core.documents.config_file.load_config` finds them.
"""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_NAME = "lait.config.yml"
GLOBAL_NAME = "config.yml"


class ConfigError(Exception):
    """A problem that stops config loading (``lait: <message>``)."""


def find_project_config(start: Path) -> Path | None:
    """The nearest ``lait.config.yml`` that is a regular file, walking upward lexically."""
    cur = Path(os.path.abspath(start))
    while True:
        candidate = cur / CONFIG_NAME
        if candidate.is_file():
            return candidate
        if cur.parent == cur:
            return None
        cur = cur.parent


def global_config_path(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg.strip():
        return Path(xdg) / "lait" / GLOBAL_NAME
    home = env.get("HOME") or env.get("USERPROFILE")
    if not home:
        raise ConfigError(
            "failed to determine the home directory (HOME is not set) to locate the global configuration file"
        )
    return Path(home) / ".config" / "lait" / GLOBAL_NAME
