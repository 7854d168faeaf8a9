"""LAIT004 unreadable-file: a file cannot be read."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

OK = Example("steps:\n  - jq: '.'\n")

CODE = "LAIT004"

RULE = rule(
    CODE,
    "unreadable-file",
    Severity.ERROR,
    "A file cannot be read.",
    "The path does not exist, is a directory where a file was expected, is not a regular file (a FIFO, a "
    "device or a socket: lait never opens one for reading, since a FIFO would block and a device may never "
    "end), or cannot be opened.",
    Example("", filename="missing.yml"),
    OK,
)
