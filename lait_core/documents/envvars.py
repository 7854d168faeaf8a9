"""``${VAR}`` placeholders in configuration values.

The grammar, scanned left to right: ``${`` opens a placeholder and the next ``}`` closes it; the
name between them is one or more ASCII letters, digits or underscores (a leading digit is
allowed). ``$VAR`` without braces and text without ``${`` pass through unchanged. There is no
escape syntax and no ``${VAR:-default}`` form (that is an invalid name). A variable that is set
to the empty string expands to ``""``; one that is not set is an error. Substituted values are
not scanned again.

lait provides one variable itself: ``${LAIT_PYTHON}`` is the Python interpreter that runs lait
(``sys.executable``) unless the environment sets it. An MCP server written in Python that needs
lait's packages (``mcp``) starts with ``command: ${LAIT_PYTHON}`` wherever lait is installed: a
venv, pipx or the system (``python3`` from PATH may be another Python without them).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

_NAME = re.compile(r"[A-Za-z0-9_]+")
LAIT_PYTHON = "LAIT_PYTHON"


def provided(name: str) -> str | None:
    """The value lait gives ``name`` when the environment does not set it (None: not one of lait's)."""
    if name == LAIT_PYTHON:
        return sys.executable or "python3"
    return None


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One ``${NAME}``; ``start``/``end`` delimit the whole placeholder in the value."""

    name: str
    start: int
    end: int


class EnvVarError(Exception):
    """A malformed placeholder or an unset variable; ``start``/``end`` delimit the placeholder."""

    def __init__(self, message: str, start: int, end: int) -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _scan(value: str) -> Iterator[Placeholder]:
    """The placeholders of ``value`` in order; raises at the first malformed one."""
    i = 0
    while True:
        start = value.find("${", i)
        if start < 0:
            return
        close = value.find("}", start + 2)
        if close < 0:
            raise EnvVarError(f"unterminated '${{' placeholder in {_quoted(value)}", start, len(value))
        name = value[start + 2 : close]
        if _NAME.fullmatch(name) is None:
            raise EnvVarError(
                f"invalid environment variable placeholder '${{{name}}}' in {_quoted(value)}"
                " (must be alphanumeric/underscore)",
                start,
                close + 1,
            )
        yield Placeholder(name, start, close + 1)
        i = close + 1


def placeholders(value: str) -> list[Placeholder]:
    """Every placeholder of ``value``; raises :class:`EnvVarError` on a grammar error."""
    return list(_scan(value))


def check(value: str) -> EnvVarError | None:
    """The first grammar error of ``value``, if any; never looks at the environment."""
    try:
        for _ in _scan(value):
            pass
    except EnvVarError as exc:
        return exc
    return None


def expand(value: str, environ: Mapping[str, str] | None = None) -> str:
    """``value`` with each ``${NAME}`` replaced by ``environ[NAME]`` (default: ``os.environ``).

    Raises :class:`EnvVarError` at the first problem from the left: a malformed placeholder or
    an unset variable.
    """
    if "${" not in value:
        return value
    env: Mapping[str, str] = os.environ if environ is None else environ
    parts: list[str] = []
    last = 0
    for placeholder in _scan(value):
        name = placeholder.name
        found = env.get(name)
        if found is None:
            found = provided(name)
        if found is None:
            raise EnvVarError(
                f"environment variable '{name}' referenced by '${{{name}}}' is not set",
                placeholder.start,
                placeholder.end,
            )
        parts.append(value[last : placeholder.start])
        parts.append(found)
        last = placeholder.end
    parts.append(value[last:])
    return "".join(parts)
