"""``confine: project``: paths a run reads or writes on a file's say stay inside the project.

With the setting, a ``write:`` target, a ``files:``/``images:`` attachment of a workflow step, an
``agent:`` file and a ``workflow:`` child must lie inside the project folder (the folder of the
project's lait.config.yml; the working directory without one). Paths are compared after every
symbolic link is resolved (of the part that exists), so ``./link/../x`` or a link to ``/etc`` does
not get out. Paths the person gives on the command line (``--file``, the file to run) are theirs
and never checked.
"""

from __future__ import annotations

import os
from pathlib import Path

from lait_core.documents.document_models import Config
from lait_core.engine.llm.chat_types import ConfigurationError


class OutsideProject(ConfigurationError):
    """A path outside the project under ``confine: project``."""


def confined_root(config: Config, config_dir: Path) -> Path | None:
    """The folder paths must stay in (None: no confinement)."""
    return Path(os.path.realpath(config_dir)) if config.confine == "project" else None


def check_inside(root: Path | None, path: Path | str, what: str) -> None:
    """Raise :class:`OutsideProject` when ``root`` is set and ``path`` (relative to the working
    directory) resolves outside it."""
    if root is None:
        return
    real = Path(os.path.realpath(os.fspath(path)))
    if real != root and root not in real.parents:
        raise OutsideProject(
            f"{what} '{path}' is outside the project folder '{root}' ('confine: project' in lait.config.yml)"
        )
