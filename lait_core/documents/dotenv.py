"""The ``.env`` file of the working directory (the CLI) or of the project (the language server).

The CLI reads only ``./.env``; the language server reads the ``.env`` beside the project's
lait.config.yml for each run (:func:`with_dotenv`). Either way it only sets variables that are
not already present in the environment. A missing file is ignored silently.

Syntax, line by line:

* blank lines and lines whose first non-blank character is ``#`` are skipped;
* an optional ``export`` prefix, then ``KEY=VALUE`` split at the first ``=``; trailing blanks
  of the key are dropped; the key is ASCII letters, digits and ``_``, not starting with a digit;
* the value is left-trimmed, then it is

  - ``"double-quoted"`` with the escapes ``\\n \\r \\t \\\\ \\"`` (any other escape, or a
    ``\\`` at the end of a line, is an error),
  - ``'single-quoted'``, taken literally,
  - or bare: it ends at the first ``#`` preceded by a space or tab (``a#b`` keeps its ``#``),
    and trailing blanks are trimmed;

* after a closing quote only blanks or a ``# comment`` may follow;
* a quoted value whose closing quote is not on its first line continues over the following
  lines, joined with ``\\n`` (PEM blocks); the end of the file before the closing quote is an
  error.

Errors read ``<path>:<line>: <detail>``, citing the line where the assignment starts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from pathlib import Path

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BARE_COMMENT = re.compile(r"[ \t]#")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"'}
_BLANKS = " \t"


class DotenvError(Exception):
    """A ``.env`` file that cannot be read or parsed; ``str()`` is the whole message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Lines:
    def __init__(self, text: str, path: str) -> None:
        if text.startswith("\ufeff"):
            text = text[1:]
        self.lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
        self.path = path
        self.index = 0

    def error(self, line: int, detail: str) -> DotenvError:
        return DotenvError(f"{self.path}:{line}: {detail}")


def _quoted(lines: _Lines, first: str, lineno: int) -> str:
    """The value of a quoted assignment whose text after ``=`` (left-trimmed) is ``first``."""
    quote = first[0]
    kind = "double-quoted" if quote == '"' else "single-quoted"
    buf: list[str] = []
    current = first
    pos = 1
    while True:
        if pos >= len(current):
            if lines.index >= len(lines.lines):
                raise lines.error(lineno, f"unterminated {kind} value (no closing {quote})")
            buf.append("\n")
            current = lines.lines[lines.index]
            lines.index += 1
            pos = 0
            continue
        c = current[pos]
        if c == quote:
            rest = current[pos + 1 :].lstrip(_BLANKS)
            if rest and not rest.startswith("#"):
                raise lines.error(lineno, f"unexpected text after the closing {quote}: {rest!r}")
            return "".join(buf)
        if c == "\\" and quote == '"':
            if pos + 1 >= len(current):
                raise lines.error(lineno, "dangling '\\' at the end of a line in a double-quoted value")
            escaped = current[pos + 1]
            if escaped not in _ESCAPES:
                raise lines.error(
                    lineno,
                    f"invalid escape '\\{escaped}' in a double-quoted value (allowed: \\n \\r \\t \\\\ \\\")",
                )
            buf.append(_ESCAPES[escaped])
            pos += 2
            continue
        buf.append(c)
        pos += 1


def parse_dotenv(text: str, path: str = ".env") -> dict[str, str]:
    """The assignments of a ``.env`` text, in order (a repeated key keeps its last value)."""
    lines = _Lines(text, path)
    result: dict[str, str] = {}
    while lines.index < len(lines.lines):
        lineno = lines.index + 1
        line = lines.lines[lines.index].lstrip(_BLANKS)
        lines.index += 1
        if not line or line.startswith("#"):
            continue
        if line.startswith(("export ", "export\t")):
            line = line[len("export") :].lstrip(_BLANKS)
        eq = line.find("=")
        if eq < 0:
            raise lines.error(lineno, f"expected KEY=VALUE, got {line!r}")
        key = line[:eq].rstrip(_BLANKS)
        if _KEY.fullmatch(key) is None:
            raise lines.error(
                lineno,
                f"invalid variable name {key!r} (ASCII letters, digits and '_', not starting with a digit)",
            )
        raw = line[eq + 1 :]
        first = raw.lstrip(_BLANKS)
        if first.startswith(('"', "'")):
            value = _quoted(lines, first, lineno)
        else:
            comment = _BARE_COMMENT.search(raw)
            value = (raw if comment is None else raw[: comment.start()]).strip(_BLANKS)
        if "\0" in value:
            raise lines.error(lineno, f"the value of {key} contains a NUL character")
        result[key] = value
    return result


def dotenv_values(folder: Path, display: str = ".env") -> dict[str, str]:
    """The assignments of ``folder/.env`` ({} when there is none); errors name the file ``display``.

    An unreadable or malformed file raises :class:`DotenvError`.
    """
    from lait_core.syntax.bounded_read import FileRefused, read_bounded

    try:
        text = read_bounded(folder / ".env").decode("utf-8")  # a FIFO is refused, never opened
    except FileNotFoundError:
        return {}
    except FileRefused as exc:
        raise DotenvError(f"failed to read '{display}': {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DotenvError(f"failed to read '{display}': {exc}") from None
    return parse_dotenv(text, display)


def load_dotenv(cwd: Path, environ: MutableMapping[str, str]) -> None:
    """Set the variables of ``cwd/.env`` that ``environ`` does not have yet.

    A missing file is ignored; an unreadable or malformed one raises :class:`DotenvError`.
    """
    for key, value in dotenv_values(cwd).items():
        if key not in environ:
            environ[key] = value


def with_dotenv(folder: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``environ`` with the variables of ``folder/.env`` it does not have (the language
    server's run environment: the project's ``.env`` beside its config, never the server's own
    environment changed). Errors name the file by its full path."""
    merged = dict(environ)
    values = dotenv_values(folder, str(folder / ".env"))
    for key, value in values.items():
        merged.setdefault(key, value)
    return merged
