"""An incomplete edit keeps the last good editor results (issue 25).

While someone types, a lait file is often not YAML for a moment (an unfinished ``mcp: [``): its
code lenses, inlay hints and semantic tokens cannot be computed from that text, and an editor that
got none would drop them for the whole file, then bring them back a keystroke later. So the results
of the last text that parsed are kept per document and carried over to the text being edited: a
result on a line the edit did not touch stays (moved down or up when lines were added or removed
before it), one on a changed line is dropped. Once the text parses again, results are computed from
it as usual.

Lines are matched by the text's unchanged first and last lines, which is exact for the one edit an
editor sends per keystroke and never wrong (a result is kept only on a line whose text is the same).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Generic, TypeVar

from lait_core.lint.discovery import FileKind
from lait_core.rules.files.yaml_syntax import CODE as YAML_SYNTAX
from lait_core.syntax.positions import Position, Range

if TYPE_CHECKING:
    from lait_core.language.inlay_hints import Hint
    from lait_core.language.run_targets import RunTarget
    from lait_core.language.semantic_tokens import Token

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class LineShift:
    """Where the lines of an old text are in a new one."""

    kept_before: int
    """Lines ``0 .. kept_before-1`` are the same in both."""
    old_after: int
    """Old lines from here on are the same as the new text's last lines ..."""
    delta: int
    """... moved by this many lines."""

    def line(self, old: int) -> int | None:
        """The new line of old line ``old``, None when the edit changed it."""
        if old < self.kept_before:
            return old
        if old >= self.old_after:
            return old + self.delta
        return None

    def position(self, pos: Position) -> Position | None:
        line = self.line(pos.line)
        return None if line is None else Position(line, pos.character)

    def range(self, rng: Range) -> Range | None:
        start, end = self.position(rng.start), self.position(rng.end)
        return None if start is None or end is None else Range(start, end)


def line_shift(old: str, new: str) -> LineShift:
    a, b = old.split("\n"), new.split("\n")
    prefix = 0
    limit = min(len(a), len(b))
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and a[len(a) - 1 - suffix] == b[len(b) - 1 - suffix]:
        suffix += 1
    return LineShift(prefix, len(a) - suffix, len(b) - len(a))


def parses(kind: FileKind, text: str, path: str = "") -> bool:
    """The text is good enough to compute editor results from: its YAML (an agent's frontmatter)
    parses. Another problem (an unknown key, a bad value) does not count: those results stay live."""
    if kind is FileKind.WORKFLOW:
        from lait_core.documents.workflow_file import recent_parse

        return not any(d.code == YAML_SYNTAX for d in recent_parse(text, path).diagnostics)
    if kind in (FileKind.AGENT, FileKind.SKILL):
        from lait_core.documents.agent_file import parse_agent

        return not any(d.code == YAML_SYNTAX for d in parse_agent(text, path).diagnostics)
    from lait_core.syntax.yaml.parse import parse_yaml

    return parse_yaml(text).ok


def shown_to_others(kind: FileKind | None, text: str, path: str = "", *, saved: bool = False) -> bool:
    """Whether the other files' diagnostics see this text of an open document (its dependants: a
    workflow calling it, a test running it, everything under a lait.config.yml).

    The rule (issue 25): they see an open document's unsaved text while it parses; an incomplete
    edit (text that does not parse) is not shown to them -- they keep seeing the last text that did
    (the file on disk when none did since it was opened) -- so typing ``mcp: [`` never turns every
    dependant red for a moment. A saved text is what they see, whatever it is: it is what `lait lint`
    and a run read. A file that is no lait file is shown as it is."""
    return saved or kind is None or parses(kind, text, path)


class KeptResults(Generic[T]):
    """The last good result per document (a key), carried over text that does not parse."""

    def __init__(self, carry: Callable[[T, LineShift], T]) -> None:
        self.carry = carry
        self._kept: dict[object, tuple[str, T]] = {}
        self._lock = threading.Lock()

    def result(self, key: object, kind: FileKind, text: str, compute: Callable[[], T], path: str = "") -> T:
        """``compute()`` for a text that parses (kept for later); else the kept result carried over."""
        if parses(kind, text, path):
            value = compute()
            with self._lock:
                self._kept[key] = (text, value)
            return value
        with self._lock:
            kept = self._kept.get(key)
        if kept is None:
            return compute()
        old, value = kept
        return self.carry(value, line_shift(old, text))

    def forget(self, keep: Callable[[object], bool]) -> None:
        """Drop the results of keys ``keep`` says no to (closed documents)."""
        with self._lock:
            for key in [k for k in self._kept if not keep(k)]:
                del self._kept[key]


def carry_tokens(tokens: list[Token], shift: LineShift) -> list[Token]:
    out = []
    for token in tokens:
        line = shift.line(token.line)
        if line is not None:
            out.append(token._replace(line=line))
    return out


def carry_hints(hints: list[Hint], shift: LineShift) -> list[Hint]:
    out = []
    for hint in hints:
        pos = shift.position(hint.position)
        if pos is not None:
            out.append(replace(hint, position=pos))
    return out


def carry_target(target: RunTarget | None, shift: LineShift) -> RunTarget | None:
    if target is None:
        return None
    anchor = shift.range(target.anchor)
    return None if anchor is None else replace(target, anchor=anchor)


__all__ = [
    "KeptResults",
    "LineShift",
    "carry_hints",
    "carry_target",
    "carry_tokens",
    "line_shift",
    "parses",
    "shown_to_others",
]
