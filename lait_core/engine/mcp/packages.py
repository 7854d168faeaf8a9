"""Servers started by a package runner (``npx``, ``bunx``, ``pnpx``, ``uvx``): which package, and
whether the command names its version. Standard library only (the lint rule LAIT113 uses it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

_RUNNERS = {"npx": "@", "bunx": "@", "pnpx": "@", "uvx": "=="}
_OPTIONS_WITH_VALUE = {"-p", "--package", "--from", "--with", "--python", "-c", "--call"}


def runner_package(command: str, args: Sequence[str]) -> tuple[str, bool] | None:
    """The package a runner ``command`` runs, as written, and whether that names a version
    (``pkg@1.2.3``, ``pkg==1.2.3``; ``@latest`` does not). None for any other command."""
    found = runner_package_index(command, args)
    return None if found is None else (args[found[0]], found[1])


def runner_package_index(command: str, args: Sequence[str]) -> tuple[int, bool] | None:
    """As :func:`runner_package`, with the index of the package in ``args``."""
    runner = PurePath(command).name
    if runner not in _RUNNERS:
        return None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _OPTIONS_WITH_VALUE:
            if arg in ("-p", "--package", "--from") and i + 1 < len(args):
                return i + 1, _versioned(args[i + 1], runner)
            i += 2
            continue
        if not arg.startswith("-"):
            return i, _versioned(arg, runner)
        i += 1
    return None


def _versioned(spec: str, runner: str) -> bool:
    if runner == "uvx":
        return "==" in spec or "@" in spec
    name = spec[1:] if spec.startswith("@") else spec
    version = name.partition("@")[2]
    return bool(version) and version not in ("latest", "next")
