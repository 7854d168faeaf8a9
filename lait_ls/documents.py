"""The editor's view of the file system (open buffers shadow files on disk), and which agent files
open workflows refer to. Which files are lait files at all is decided in the core
(:func:`lait_core.lint.discovery.lait_kind`), the same for `lait lint --only-lait-files`."""

from __future__ import annotations

import os
import re
from pathlib import Path

from lait_core.lint.discovery import lait_kind
from lait_core.source.files import Loaded, decode, read_source

_AGENT_REF = re.compile(r"^\s*(?:-\s+)?agent\s*:\s*['\"]?([^'\"#\n]+?)['\"]?\s*(?:#.*)?$", re.MULTILINE)


class Overlay:
    """Open editor buffers shadow files on disk for every read the core makes."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}

    def set(self, path: Path, text: str) -> None:
        self.texts[os.path.abspath(path)] = text

    def drop(self, path: Path) -> None:
        self.texts.pop(os.path.abspath(path), None)

    def read(self, path: Path) -> Loaded:
        text = self.texts.get(os.path.abspath(path))
        if text is not None:
            return decode(text.encode("utf-8", errors="surrogatepass"))
        return read_source(path)


def agent_references(workflow_path: Path, text: str) -> set[str]:
    """Absolute paths of agent files that a workflow text refers to by path."""
    out: set[str] = set()
    for match in _AGENT_REF.finditer(text):
        ref = match.group(1).strip()
        if "/" in ref or ref.endswith(".md"):
            out.add(os.path.normpath(os.path.abspath(workflow_path.parent / ref)))
    return out


__all__ = ["Overlay", "agent_references", "lait_kind"]
