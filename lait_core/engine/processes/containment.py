"""Environment and working-directory containment for spawned commands.

One rule for config ``tools:`` (shell tools) and workflow ``run:`` steps (seed 001: "the same
env/cwd containment applies to run: steps"): a non-empty ``env`` is the child's *whole*
environment -- an allowlist, each value ``${VAR}``-expanded from lait's environment -- and an
empty or absent ``env`` inherits lait's environment unchanged. ``cwd`` is ``${VAR}``-expanded.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lait_core.documents.envvars import EnvVarError, expand


class ContainmentError(Exception):
    """An ``env`` value or ``cwd`` could not be expanded; the message names the key."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Containment:
    env: dict[str, str] | None
    """The child's complete environment, or ``None`` to inherit lait's (``os.environ``)."""
    cwd: str | None
    allowlist: bool
    """True when ``env`` came from a non-empty ``env:`` allowlist."""

    def program_missing(self, argv: Sequence[str]) -> bool:
        """True when an allowlist is in force and ``argv[0]`` (a bare name) is not on its PATH.

        With an allowlist the program is looked up only on the allowlist's ``PATH`` (Python would
        otherwise fall back to a default search path), so a missing ``PATH: "${PATH}"`` fails.
        """
        if not self.allowlist or not argv or "/" in argv[0]:
            return False
        return shutil.which(argv[0], path=(self.env or {}).get("PATH", "")) is None


def contain(
    env: Mapping[str, str] | None,
    cwd: str | None,
    environ: Mapping[str, str] | None,
    prefix: str = "",
) -> Containment:
    """The child's environment and cwd for an ``env:``/``cwd:`` pair.

    ``environ`` is lait's environment (``None``: ``os.environ``). ``prefix`` qualifies key names
    in errors, e.g. ``"tools.probe."`` gives ``'tools.probe.env.KEY': ...``.
    """
    child: dict[str, str] | None
    if env:
        child = {}
        for key, value in env.items():
            try:
                child[key] = expand(value, environ)
            except EnvVarError as exc:
                raise ContainmentError(f"'{prefix}env.{key}': {exc.message}") from None
    else:
        child = None if environ is None else dict(environ)
    where = None
    if cwd is not None:
        try:
            where = expand(cwd, environ)
        except EnvVarError as exc:
            raise ContainmentError(f"'{prefix}cwd': {exc.message}") from None
    return Containment(child, where, bool(env))
