"""Errors raised by the template engine.

Both carry a code-point range (``start``/``end``, end exclusive) into the template source so a
diagnostic can underline exactly the offending text.
"""

from __future__ import annotations


class _LocatedError(Exception):
    """An error with a message and a code-point range in the template source."""

    message: str
    start: int
    end: int

    def __init__(self, message: str, start: int, end: int) -> None:
        super().__init__(message, start, end)
        self.message = message
        self.start = start
        self.end = end

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, {self.start}, {self.end})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _LocatedError)
        return (self.message, self.start, self.end) == (other.message, other.start, other.end)

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.message, self.start, self.end))


class TemplateSyntaxError(_LocatedError):
    """The template text cannot be parsed; the range points at the offending tag or token."""


class TemplateRenderError(_LocatedError):
    """Rendering failed (strict lookup, unknown helper, ...); the range points at the expression."""
