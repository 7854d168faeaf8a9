"""LAIT105 missing-workflow-file: a `workflows:` registry entry names a file that does not exist or
is not a regular file (a FIFO, a directory, a device: named as such, never opened)."""

from __future__ import annotations

from pathlib import Path

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode

C = "lait.config.yml"

CODE = "LAIT105"

RULE = rule(
    CODE,
    "missing-workflow-file",
    Severity.ERROR,
    "A `workflows:` registry entry names a file that does not exist or is not a regular file.",
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
        problem = _problem(path)
        if problem is not None:
            out.append(Diagnostic(CODE, f"workflows.{name} resolves to '{path}', {problem}", value.range))


def _problem(path: Path) -> str | None:
    """Why ``path`` cannot be the workflow file (None: it is a regular file); never opens it."""
    import stat

    from lait_core.syntax.bounded_read import file_kind

    try:
        mode = path.stat().st_mode
    except OSError:
        return "which does not exist"
    if stat.S_ISREG(mode):
        return None
    kind = file_kind(mode)
    return (
        f"which is {kind}, not a workflow file"
        if kind == "a directory"
        else f"which is {kind}, not a regular file"
    )
