"""LAIT506 names-not-checked: names could not be checked because there is no lait.config.yml."""

from __future__ import annotations

from dataclasses import dataclass

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.positions import Range

CONFIG = (
    "mcp_servers:\n  fs: {command: mcp-fs}\n  locked: {command: mcp-x, allowed_tools: []}\n"
    "skills:\n  pdf: skills/pdf\nagents:\n  reviewer: agents/reviewer.md\n"
    "tools:\n  grep: {command: [rg, '--', '{{ input.pattern }}']}\n"
)

CODE = "LAIT506"

RULE = rule(
    CODE,
    "names-not-checked",
    Severity.WARNING,
    "Names could not be checked because there is no lait.config.yml.",
    "Without a config (none found upward from the file's directory, no global config, or `--no-config`), "
    "capability names and registry names of `agent:`/`workflow:` steps cannot be checked. Reported once per "
    "file, as its last diagnostic.",
    Example("steps:\n  - prompt: List files\n    mcp: [fs]\n"),
    Example("steps:\n  - prompt: List files\n    mcp: [fs]\n", config=CONFIG),
)


@dataclass(slots=True)
class SkipTracker:
    """Remembers that a name check was needed but no config was there (LAIT506, once per file)."""

    skipped: bool = False


def skipped_diagnostic() -> Diagnostic:
    return Diagnostic(
        CODE,
        "'mcp'/'skills'/'subagents'/'tools' names were not checked because no lait.config.yml was found"
        " (or --no-config was used)",
        Range.at(0, 0),
        Severity.WARNING,
    )
