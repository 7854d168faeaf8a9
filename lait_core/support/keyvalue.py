"""Repeated ``KEY=VALUE`` command-line options (``--input`` of ``lait run``, ``--var`` of named
prompts): one parser, so both flags accept and refuse the same texts. The value is everything after
the first ``=`` (it may be empty or hold more ``=``); a repeated key keeps its last value."""

from __future__ import annotations

from collections.abc import Sequence


class KeyValueError(ValueError):
    """An option that is not ``KEY=VALUE`` with a non-empty key (the message names the flag)."""


def parse_key_values(options: Sequence[str], flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep:
            raise KeyValueError(f"{flag} '{option}' must have the form KEY=VALUE")
        if not key:
            raise KeyValueError(f"{flag} '{option}' has an empty key; use KEY=VALUE")
        out[key] = value
    return out
