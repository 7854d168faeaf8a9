"""Whole-workspace lints that only re-check what changed (an editor's workspace diagnostics).

:class:`IncrementalLinter` keeps one :class:`~lait_core.lint.engine.Linter` and, per file, the
report of its last lint together with a *stamp* of every file that lint looked at (the file itself,
the child workflows, agents, skills and schema files it read, the paths whose existence it tested;
see :mod:`lait_core.syntax.read_log`). The next lint of the same paths walks the directories again
(a created or deleted file changes the set of files: everything is linted again) and re-lints a file
only when one of its stamps differs, so an edited agent re-checks the workflows that call it. A
changed config file (project or global) starts over with a fresh linter. The reports are the ones
:meth:`Linter.lint_paths` returns, in the same order: the same findings as ``lait lint``.

The linter keeps its parsed documents between lints; each file it reads is stamped just before the
read, and a lint first drops every changed one from that cache (a file linted again may read a
document no other file's entry records). A lint stopped part-way (an editor cancels it at its next
change) keeps what it finished.

A stamp is whatever the caller's ``stamp`` function returns for a path (by default the file's
modification time, size and inode; an editor uses the text of its open buffers).

An edited config re-checks only the files whose findings may depend on what changed
(:mod:`lait_core.lint.config_changes`: the files that mention a name whose definition changed);
anything else every file depends on (``default:``, ``lint:``, a config that does not load) starts
over.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path

from lait_core.documents.config_file import ConfigError, ConfigMode, global_config_path
from lait_core.lint.config_changes import changes_since, may_depend
from lait_core.lint.discovery import discover
from lait_core.lint.engine import FileReport, Linter, LintOptions, LintResult
from lait_core.syntax import read_log as reads
from lait_core.syntax.bounded_read import Loaded, read_source

Stamp = Hashable
MISSING = ("missing",)


def disk_stamp(path: str) -> Stamp:
    """Modification time, size and inode of ``path``; :data:`MISSING` when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return MISSING
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode)


@dataclass(frozen=True, slots=True)
class _Entry:
    report: FileReport
    stamps: dict[str, Stamp]


@dataclass(slots=True)
class Outcome:
    result: LintResult
    linted: set[str]
    """Absolute paths of the files linted again (the others' reports came from the cache)."""


class IncrementalLinter:
    def __init__(
        self,
        options: LintOptions | None = None,
        *,
        reader: Callable[[Path], Loaded] | None = None,
        stamp: Callable[[str], Stamp] = disk_stamp,
    ) -> None:
        self.options = options or LintOptions()
        self.reader = reader
        self.stamp = stamp
        self._lock = threading.Lock()
        self._memo: dict[str, Stamp] = {}
        """The stamps taken during the current lint (each path's stamp is taken once per lint)."""
        self._read_stamps: dict[str, Stamp] = {}
        """Every file the linter read (its document cache may hold it), stamped before the read."""
        self._texts: dict[str, str | None] = {}
        """The text of every file the linter read, as read (what a config change is looked for in)."""
        self._linter = Linter(self.options, reader=self._read)
        self._entries: dict[str, _Entry] = {}
        self._files: frozenset[str] = frozenset()
        self._configs: dict[str, Stamp] = {}

    def forget(self) -> None:
        """Drop everything (the next lint checks every file)."""
        with self._lock:
            self._reset()

    def _reset(self) -> None:
        self._linter = Linter(self.options, reader=self._read)
        self._entries.clear()
        self._configs.clear()
        self._read_stamps.clear()
        self._texts.clear()

    def _stamp(self, path: str) -> Stamp:
        found = self._memo.get(path)
        if found is None:
            found = self._memo[path] = self.stamp(path)
        return found

    def _read(self, path: Path) -> Loaded:
        """The linter's reader: a file's stamp is taken before it is read (a change made while it is
        linted shows in the next lint's stamps instead of being hidden by a later stamp)."""
        key = os.path.abspath(path)
        self._read_stamps[key] = self._stamp(key)
        loaded = (self.reader or read_source)(path)
        self._texts[key] = loaded.text
        return loaded

    def lint_paths(self, paths: list[str]) -> Outcome:
        with self._lock:
            self._memo = {}
            try:
                return self._lint_paths(paths)
            except BaseException:
                # Stopped part-way (cancelled: an editor's next change): what was linted is kept
                # (each document read is in _read_stamps, each finished file has its entry), and the
                # configs loaded so far are recorded, so a changed one still starts over.
                with contextlib.suppress(Exception):
                    self._configs.update(self._config_stamps())
                raise
            finally:
                self._memo = {}

    def _lint_paths(self, paths: list[str]) -> Outcome:
        stamp = self._stamp
        files = frozenset(os.path.abspath(p) for p in discover(paths))
        changed_configs = {p for p, s in self._configs.items() if stamp(p) != s}
        if files != self._files or (changed_configs and not self._keep_independent(changed_configs)):
            # A created or deleted file, or a config change every file may depend on: start over
            # (what a file's lint looked for is recorded, but a created file can matter to checks
            # that do not say so).
            self._reset()
            self._files = files
        linter = self._linter
        # Every changed file leaves the linter's document cache before any file is linted: a file
        # linted again may read a document that only a later file's entry records, or none does.
        for p, s in list(self._read_stamps.items()):
            if stamp(p) != s:
                del self._read_stamps[p]
                linter.invalidate(Path(p))
        linted: set[str] = set()

        def lint_file(path: Path) -> FileReport:
            key = os.path.abspath(path)
            entry = self._entries.get(key)
            if entry is not None and all(stamp(p) == s for p, s in entry.stamps.items()):
                return entry.report
            own = stamp(key)  # taken before reading: a change made while linting shows next time
            looked: set[str] = {key}
            with reads.recording(looked):
                report = linter.lint_file(path)
            stamps = {p: stamp(p) for p in looked}
            stamps[key] = own
            self._entries[key] = _Entry(report, stamps)
            linted.add(key)
            return report

        with linter.snapshot():  # one pull sees one state of the folders and their configs
            result = linter.lint_paths(paths, lint_file=lint_file)
        self._configs = self._config_stamps()
        return Outcome(result, linted)

    def _keep_independent(self, changed: set[str]) -> bool:
        """After an edit of the ``changed`` config files: drop the entries of the files that may
        depend on what changed and keep the others (False: every file may, start over)."""
        linter = self._linter
        old = linter.loaded_configs()
        for path in changed:
            linter.invalidate(Path(path))  # configs and documents: reloaded as needed
        changes = changes_since(old, linter.config_for)
        if changes is None:
            return False
        stamp = self._stamp
        for key, entry in list(self._entries.items()):
            texts = [self._texts.get(p) for p in entry.stamps]
            if any(may_depend(c, key, texts, bool(entry.report.diagnostics)) for c in changes):
                del self._entries[key]
            else:
                for p in changed & entry.stamps.keys():
                    entry.stamps[p] = stamp(p)
        return True

    def _config_stamps(self) -> dict[str, Stamp]:
        """The stamps of the config files the linter loaded (as they were before it read them) and of
        the global config's path (it may be created)."""
        configs = set(self._linter.config_files())
        if self.options.mode is ConfigMode.SEARCH:
            with contextlib.suppress(ConfigError):  # no home directory: no global config to change
                configs.add(os.path.abspath(global_config_path(self.options.environ)))
        return {p: self._read_stamps.get(p) or self._stamp(p) for p in configs}
