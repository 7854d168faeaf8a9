"""Split a Markdown file into YAML frontmatter and body, keeping file positions.

The frontmatter is handed to the YAML parser as the whole file text with everything outside
the frontmatter blanked to spaces (newlines kept), so every position the parser reports is
already a file position: no offset arithmetic anywhere else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lait_core.rules.agents.frontmatter_delimiter import CODE as CODE_DELIMITER
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.positions import Position, Range

_NON_NEWLINE = re.compile(r"[^\n]")


@dataclass(frozen=True, slots=True)
class Split:
    yaml_text: str
    """The file up to the closing `---` line, with the opening line blanked: offsets are file offsets."""
    body: str
    """The Markdown body, untrimmed."""
    body_start: int
    """Offset of the body in the file text."""
    closing_line: int


def starts_with_frontmatter(text: str) -> bool:
    first, _, _ = text.partition("\n")
    return first.rstrip("\r") == "---"


def split_frontmatter(text: str) -> Split | Diagnostic:
    first_end = text.find("\n")
    first = text if first_end == -1 else text[:first_end]
    if first.rstrip("\r") != "---":
        end = len(first.rstrip("\r"))
        return Diagnostic(
            CODE_DELIMITER,
            "agent file must start with a '---' frontmatter delimiter line",
            Range(Position(0, 0), Position(0, max(end, 0))),
        )
    pos = first_end + 1 if first_end != -1 else len(text)
    line = 1
    while pos < len(text):
        eol = text.find("\n", pos)
        stop = len(text) if eol == -1 else eol
        if text[pos:stop].rstrip("\r") == "---":
            body_start = stop + 1 if eol != -1 else len(text)
            blank_head = _NON_NEWLINE.sub(" ", text[: first_end + 1])
            # cut at the closing line: the parser must not run on into the body
            yaml_text = blank_head + text[first_end + 1 : pos]
            return Split(yaml_text, text[body_start:], body_start, line)
        if eol == -1:
            break
        pos = eol + 1
        line += 1
    return Diagnostic(
        CODE_DELIMITER,
        "agent file frontmatter has no closing '---' delimiter line",
        Range(Position(0, 0), Position(0, 3)),
    )
