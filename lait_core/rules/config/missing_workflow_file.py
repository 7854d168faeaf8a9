"""LAIT105 missing-workflow-file: a `workflows:` registry entry names a file that does not exist."""

from __future__ import annotations

from pathlib import Path

from lait_core.diagnostics import Diagnostic, Severity
from lait_core.rules.registry import Example, rule
from lait_core.source.tree import MappingNode

C = "lait.config.yml"

CODE = "LAIT105"

RULE = rule(
    CODE,
    "missing-workflow-file",
    Severity.ERROR,
    "A `workflows:` registry entry names a file that does not exist.",
    "`lait run NAME` looks the name up in `workflows:`; the path is relative to the config file that "
    "defines it.",
    Example("workflows:\n  triage: ./flows/triage.yml\n", filename=C),
    Example(
        "workflows:\n  triage: ./flows/triage.yml\n",
        filename=C,
        extra=(("flows/triage.yml", "steps:\n  - jq: '.'\n"),),
    ),
)


def check_registry(root: MappingNode, base: Path, out: list[Diagnostic]) -> None:
    workflows = root.get("workflows")
    if not isinstance(workflows, MappingNode):
        return
    for name, _k, value in sorted(workflows.items(), key=lambda t: str(t[0])):
        rel = value.to_python()
        if not isinstance(rel, str):
            continue
        path = Path(rel) if Path(rel).is_absolute() else base / rel
        if not path.is_file():
            out.append(
                Diagnostic(
                    CODE,
                    f"workflows.{name} resolves to '{path}', which does not exist",
                    value.range,
                )
            )
