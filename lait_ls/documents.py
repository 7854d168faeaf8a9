"""The editor's view of the file system (open buffers shadow files on disk), and which agent files
open workflows refer to. Which files are lait files at all is decided in the core
(:func:`lait_core.lint.discovery.lait_kind`), the same for `lait lint --only-lait-files`."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from lait_core.documents.workflow_file import agent_file_references
from lait_core.lint.discovery import FileKind, lait_kind
from lait_core.syntax.bounded_read import Loaded, decode, read_source


class _Texts(dict[str, str]):
    """The shadowing texts; an edit still to be judged is judged when its file is read."""

    def __init__(self, owner: Overlay) -> None:
        super().__init__()
        self.owner = owner

    def get(self, key: str, default: Any = None) -> Any:
        self.owner.settle(key)
        return super().get(key, default)


class Overlay:
    """Open editor buffers shadow files on disk for every read the core makes -- an edit only once
    it is shown to other files (:func:`lait_core.language.kept_results.shown_to_others`: while a
    buffer does not parse, its last good or saved text shadows the file). Whether it is shown is
    decided when the file is read (mostly on the lint thread), not for every keystroke."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = _Texts(self)
        self._pending: dict[str, tuple[str, FileKind | None, bool]] = {}
        self._lock = threading.Lock()

    def set(self, path: Path, text: str, *, kind: FileKind | None = None, saved: bool = True) -> None:
        """Record a buffer's text (``saved``: it is the file's text on disk, or was just opened)."""
        key = os.path.abspath(path)
        with self._lock:
            if saved or kind is None:
                self._pending.pop(key, None)
                dict.__setitem__(self.texts, key, text)
            else:
                self._pending[key] = (text, kind, saved)

    def settle(self, key: str) -> None:
        with self._lock:
            pending = self._pending.pop(key, None)
        if pending is None:
            return
        from lait_core.language.kept_results import shown_to_others

        text, kind, saved = pending
        if shown_to_others(kind, text, key, saved=saved):
            with self._lock:
                if key not in self._pending:  # no newer edit meanwhile
                    dict.__setitem__(self.texts, key, text)

    def drop(self, path: Path) -> None:
        key = os.path.abspath(path)
        with self._lock:
            self._pending.pop(key, None)
            self.texts.pop(key, None)

    def read(self, path: Path) -> Loaded:
        text = self.texts.get(os.path.abspath(path))
        if text is not None:
            return decode(text.encode("utf-8", errors="surrogatepass"))
        return read_source(path)


def agent_references(workflow_path: Path, text: str) -> set[str]:
    """Absolute paths of agent files that a workflow text refers to by path (from the core)."""
    return agent_file_references(text, workflow_path)


__all__ = ["Overlay", "agent_references", "lait_kind"]
