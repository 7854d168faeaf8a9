"""The editor's view of the file system (open buffers shadow files on disk), and which agent files
open workflows refer to. Which files are lait files at all is decided in the core
(:func:`lait_core.lint.discovery.lait_kind`), the same for `lait lint --only-lait-files`."""

from __future__ import annotations

import os
from pathlib import Path

from lait_core.documents.workflow import agent_file_references
from lait_core.lint.discovery import lait_kind
from lait_core.source.files import Loaded, decode, read_source


class Overlay:
    """Open editor buffers shadow files on disk for every read the core makes."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}

    def set(self, path: Path, text: str, *, shown: bool = True) -> bool:
        """Record a buffer's text; only a text ``shown`` to other files shadows what they read
        (:func:`lait_core.language.kept_results.shown_to_others`). True when what they read changed."""
        key = os.path.abspath(path)
        if not shown or self.texts.get(key) == text:
            return False
        self.texts[key] = text
        return True

    def drop(self, path: Path) -> None:
        self.texts.pop(os.path.abspath(path), None)

    def read(self, path: Path) -> Loaded:
        text = self.texts.get(os.path.abspath(path))
        if text is not None:
            return decode(text.encode("utf-8", errors="surrogatepass"))
        return read_source(path)


def agent_references(workflow_path: Path, text: str) -> set[str]:
    """Absolute paths of agent files that a workflow text refers to by path (from the core)."""
    return agent_file_references(text, workflow_path)


__all__ = ["Overlay", "agent_references", "lait_kind"]
