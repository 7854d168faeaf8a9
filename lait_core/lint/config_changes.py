"""What an edit of a config changed, and which files' findings may depend on it.

A file's findings depend on the config through the names it uses (``models``, ``mcp_servers``,
``tools``, ``prompts``, ``agents``, ``workflows``, ``skills``): a file that does not mention a name
cannot find its definition changed. :func:`config_change` compares two loaded configs section by
section and returns the names whose entries differ (added, removed or changed), with the names of the
entries that mention those (a model alias used by an agent entry...), and the files registered under
them (an ``agents:``/``workflows:``/``skills:`` entry decides which files are lait files). Anything
else that differs (``default``, ``lint``, ``tool_policy``, a file that no longer loads, a changed
name that another section mentions, like ``default.model``) returns None: every file may depend on it.

:func:`may_depend` is the conservative test on a file: one of the names occurs in the text of a file
its lint read (a substring: a name inside a longer word counts), the file is registered under one,
or -- when names were added or removed, which changes "did you mean" suggestions -- it had findings.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lait_core.documents.config_file import LoadedConfig

NAMED_SECTIONS = ("models", "mcp_servers", "tools", "prompts", "agents", "workflows", "skills")
PATH_SECTIONS = ("agents", "workflows", "skills")
"""Sections whose values are files (relative to the project config's folder)."""


@dataclass(frozen=True, slots=True)
class ConfigChange:
    names: frozenset[str]
    """Names whose definition differs, or whose entry mentions one that does."""
    paths: frozenset[str] = field(default_factory=frozenset)
    """Absolute paths registered (before or after) under a changed name of a path section."""
    set_changed: bool = False
    """A name was added or removed (suggestions for unknown names may differ)."""

    @property
    def empty(self) -> bool:
        return not self.names and not self.paths


def _dump(loaded: LoadedConfig) -> dict[str, Any] | None:
    if not all(doc.ok for doc in loaded.documents):
        return None
    try:
        dumped = loaded.config.model_dump(mode="json")
    except Exception:  # a config built without validation: compare nothing
        return None
    return dumped if isinstance(dumped, dict) else None


def _mentions(value: Any, names: Iterable[str]) -> bool:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return any(name in text for name in names)


def config_change(old: LoadedConfig, new: LoadedConfig) -> ConfigChange | None:
    """The names (and registered files) whose definitions differ between ``old`` and ``new``; None:
    something that every file may depend on differs."""
    a, b = _dump(old), _dump(new)
    if a is None or b is None or set(a) != set(b):
        return None
    names: set[str] = set()
    set_changed = False
    for section in a:
        if section in NAMED_SECTIONS:
            before, after = a[section] or {}, b[section] or {}
            if not isinstance(before, dict) or not isinstance(after, dict):
                return None
            set_changed |= set(before) != set(after)
            names |= {n for n in before.keys() | after.keys() if before.get(n) != after.get(n)}
        elif a[section] != b[section]:
            return None
    if not names:
        return ConfigChange(frozenset())
    # entries that mention a changed name depend on it (to a fixed point); another section that
    # mentions one (default.model, tool_policy...) makes it everyone's
    grown = True
    while grown:
        grown = False
        for section in NAMED_SECTIONS:
            for name, entry in (b.get(section) or {}).items():
                if name not in names and _mentions(entry, names):
                    names.add(name)
                    grown = True
    if any(section not in NAMED_SECTIONS and _mentions(b[section], names) for section in b):
        return None
    paths: set[str] = set()
    base = new.folder(Path.cwd())
    for section in PATH_SECTIONS:
        for dumped in (a, b):
            for name, value in (dumped.get(section) or {}).items():
                if name in names and isinstance(value, str) and value:
                    paths.add(os.path.normpath(os.path.abspath(base / value)))
    return ConfigChange(frozenset(names), frozenset(paths), set_changed)


def may_depend(change: ConfigChange, path: str, texts: Iterable[str | None], had_findings: bool) -> bool:
    """Whether the findings of the file at ``path`` may differ after ``change``; ``texts``: the
    texts of the files its lint read (its own included)."""
    if os.path.normpath(os.path.abspath(path)) in change.paths:
        return True
    if change.set_changed and had_findings:
        return True
    return any(text is not None and any(name in text for name in change.names) for text in texts)


def changes_since(
    old: Mapping[str, LoadedConfig], load: Callable[[Path], LoadedConfig]
) -> list[ConfigChange] | None:
    """The changes of every config in ``old`` (keyed as :meth:`Linter.loaded_configs`), each loaded
    again with ``load``; None when one is anyone's (or when a key is not a project config file)."""
    if not old or any(not key or key.startswith("<") for key in old):
        return None
    changes: list[ConfigChange] = []
    for key, loaded in old.items():
        change = config_change(loaded, load(Path(key)))
        if change is None:
            return None
        changes.append(change)
    return changes
