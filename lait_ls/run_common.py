"""What an editor run and a test or eval run share (lait_ls.run, lait_ls.run_tests): the error a run
ends with, run events to the client, and the configuration a run of a file uses."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_ls import protocol

if TYPE_CHECKING:
    from lait_core.documents.document_models import Config
    from lait_ls.server import LaitServer


class RunFailed(Exception):
    """A run that cannot start or finish; the message is shown as ``lait: <message>``."""


def notify(ls: LaitServer, run_id: str, event: Mapping[str, Any]) -> None:
    from lait_core.support.redact import redact_value

    ls.protocol.notify(protocol.RUN_EVENT, protocol.run_event(run_id, redact_value(dict(event))))


def load_run_config(path: Path) -> tuple[Config, Path]:
    """The configuration a run of ``path`` uses (the nearest lait.config.yml above it, over the global
    one) and the folder relative registry paths resolve against."""
    from lait_core.documents.config_file import ConfigError, ConfigMode, load_config

    try:
        loaded = load_config(ConfigMode.SEARCH, start=path.parent)
    except ConfigError as exc:
        raise RunFailed(str(exc)) from None
    for doc in loaded.documents:
        if doc.model is None:
            first = next(iter(doc.diagnostics), None)
            where = (
                f"{doc.path}:{first.range.start.line + 1}:{first.range.start.character + 1}: "
                if first
                else ""
            )
            raise RunFailed(f"{where}{first.message if first else 'the configuration does not load'}")
    return loaded.config, loaded.folder(path.parent)
