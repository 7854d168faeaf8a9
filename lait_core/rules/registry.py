"""The rule registry: every diagnostic lait can report has a stable code, a name, a default
severity and a doc with a failing and a passing example (``lait rule CODE``).

Examples are real files: the test suite lints every ``bad`` example and expects the rule's code,
and lints every ``good`` example and expects not to see it.
"""

from __future__ import annotations

from dataclasses import dataclass

from lait_core.syntax.diagnostics import Severity


@dataclass(frozen=True, slots=True)
class Example:
    """A small project for a rule's doc: the linted file and, when the rule needs one, a config."""

    text: str
    filename: str = "workflow.yml"
    config: str | None = None
    extra: tuple[tuple[str, str], ...] = ()
    """Further files of the project (relative path, content)."""


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    doc: str
    bad: Example
    good: Example

    def render(self) -> str:
        """The rule's documentation as Markdown (``lait rule CODE``)."""
        lines = [
            f"# {self.code} {self.name}",
            "",
            f"Default severity: {self.severity.value}",
            "",
            self.summary,
            "",
            self.doc.strip(),
            "",
            f"## Fails ({self.bad.filename})",
            "",
            "```" + _fence(self.bad.filename),
            _shown(self.bad.text),
            "```",
        ]
        if self.bad.config is not None:
            lines += ["", "with lait.config.yml:", "", "```yaml", self.bad.config.rstrip("\n"), "```"]
        lines += [
            "",
            f"## Passes ({self.good.filename})",
            "",
            "```" + _fence(self.good.filename),
            _shown(self.good.text),
            "```",
        ]
        if self.good.config is not None:
            lines += ["", "with lait.config.yml:", "", "```yaml", self.good.config.rstrip("\n"), "```"]
        return "\n".join(lines) + "\n"


def _shown(text: str) -> str:
    """Example text for display: bytes that are not UTF-8 (kept as surrogates) shown as \\xNN."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace").rstrip("\n")


def _fence(filename: str) -> str:
    return "markdown" if filename.endswith(".md") else "yaml"


RULES: dict[str, Rule] = {}


def rule(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    doc: str,
    bad: Example,
    good: Example,
) -> Rule:
    if code in RULES:
        raise ValueError(f"duplicate rule code {code}")
    r = Rule(code, name, severity, summary, doc, bad, good)
    RULES[code] = r
    return r


def all_rules() -> list[Rule]:
    """Every rule, sorted by code (importing the rule modules registers them)."""
    _import_rule_modules()
    return [RULES[c] for c in sorted(RULES)]


_imported: list[bool] = []


def _import_rule_modules() -> None:
    """Import every module under :mod:`lait_core.rules` once (each rule module registers its rule)."""
    if _imported:
        return
    import importlib
    import pkgutil

    from lait_core import rules

    for module in pkgutil.walk_packages(rules.__path__, rules.__name__ + "."):
        importlib.import_module(module.name)
    _imported.append(True)


def get_rule(code: str) -> Rule | None:
    all_rules()
    return RULES.get(code.upper())
