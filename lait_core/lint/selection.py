"""Which rules report, and at which severity: `--select/--extend-select/--ignore` and the `lint:`
section of lait.config.yml.

A selector is a rule code (``LAIT501``) or a prefix of codes (``LAIT5``, ``LAIT``). A code is
reported when some ``select``/``extend_select`` selector matches it and no ``ignore`` selector at
least as specific (as long) does; the more specific selector wins, and at equal length ``ignore``
wins (ruff's rule). On the command line ``--select`` replaces the config's ``select``, while
``--extend-select`` and ``--ignore`` add to the config's. ``severity:`` maps selectors to ``error``,
``warning``, ``info`` or ``off`` (the most specific one applies; ``off`` is an ignore).

The file-level problems LAIT001-LAIT006 (unparsable, unreadable, binary, too large) are always
reported at their own severity: nothing else can be checked in such a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lait_core.syntax.diagnostics import Diagnostic, Severity

ALWAYS_ON = frozenset(f"LAIT00{i}" for i in range(1, 7))
DEFAULT_SELECT = ("LAIT",)


@dataclass(frozen=True, slots=True)
class Selection:
    """Selectors from the command line (``select`` None: the config's)."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        return self.select is None and not self.extend_select and not self.ignore


@dataclass(frozen=True, slots=True)
class RulePolicy:
    """The resolved selection and severities of one config (and the command line)."""

    select: tuple[str, ...] = DEFAULT_SELECT
    ignore: tuple[str, ...] = ()
    severity: tuple[tuple[str, str], ...] = ()
    _cache: dict[str, tuple[bool, Severity | None]] = field(default_factory=dict, compare=False)

    def decide(self, code: str) -> tuple[bool, Severity | None]:
        """(reported, severity override or None)."""
        known = self._cache.get(code)
        if known is not None:
            return known
        if code in ALWAYS_ON:
            result: tuple[bool, Severity | None] = (True, None)
        else:
            chosen = _longest(code, self.select)
            dropped = _longest(code, self.ignore)
            level = _most_specific(code, self.severity)
            on = chosen >= 0 and dropped < chosen and level != "off"
            result = (on, Severity(level) if level and level != "off" else None)
        self._cache[code] = result
        return result

    def apply(self, diags: Iterable[Diagnostic]) -> list[Diagnostic]:
        out = []
        for d in diags:
            on, level = self.decide(d.code)
            if not on:
                continue
            if level is not None and level != d.severity:
                d = Diagnostic(d.code, d.message, d.range, level, d.path, d.related, d.fixes)
            out.append(d)
        return out

    @property
    def trivial(self) -> bool:
        return self.select == DEFAULT_SELECT and not self.ignore and not self.severity


def _longest(code: str, selectors: Sequence[str]) -> int:
    return max((len(s) for s in selectors if code.startswith(s)), default=-1)


def _most_specific(code: str, pairs: Sequence[tuple[str, str]]) -> str | None:
    best: tuple[int, str] | None = None
    for selector, level in pairs:
        if code.startswith(selector) and (best is None or len(selector) > best[0]):
            best = (len(selector), level)
    return best[1] if best else None


def normalize(selector: str) -> str:
    return selector.strip().upper()


def unknown_selectors(selectors: Iterable[str]) -> list[str]:
    """The selectors that match no rule code (``LAIT`` and any prefix of a code are fine)."""
    from lait_core.rules.registry import all_rules

    codes = [r.code for r in all_rules()]
    return [s for s in selectors if not any(c.startswith(normalize(s)) for c in codes) or not s.strip()]


def resolve(cli: Selection | None, settings: object | None) -> RulePolicy:
    """The policy of a config's ``lint:`` section (a :class:`LintSettings` or None) under ``cli``."""
    select = tuple(getattr(settings, "select", None) or DEFAULT_SELECT)
    extend = tuple(getattr(settings, "extend_select", ()) or ())
    ignore = tuple(getattr(settings, "ignore", ()) or ())
    severity = dict(getattr(settings, "severity", {}) or {})
    if cli is not None:
        if cli.select is not None:
            select = cli.select
        extend += cli.extend_select
        ignore += cli.ignore
    return RulePolicy(
        tuple(normalize(s) for s in select + extend),
        tuple(normalize(s) for s in ignore),
        tuple((normalize(k), v) for k, v in severity.items()),
    )
