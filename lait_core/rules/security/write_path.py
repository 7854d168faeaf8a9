"""LAIT602 write-path: a ``write:`` step whose path a model may choose, or that leaves the project."""

from __future__ import annotations

import os
from pathlib import Path

from lait_core.rules.registry import Example, rule
from lait_core.rules.security.templates import model_paths, parsed
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import Node, ScalarNode

CODE = "LAIT602"

RULE = rule(
    CODE,
    "write-path",
    Severity.WARNING,
    "A `write:` path is built from a model's output, or leads outside the project.",
    "`write:` writes wherever its rendered path points, relative to the working directory, overwriting "
    "what is there. A path built from `{{ input }}`, `{{ steps.* }}`, `{{ vars.* }}` or "
    "`{{ loop.item }}` is chosen by whatever produced that value, a model included: `../../.bashrc` "
    "works. Build the path from `{{ inputs.* }}` (the person's) or `{{ loop.index }}`, or set "
    "`confine: project` in lait.config.yml, which makes any path outside the project fail at run time "
    "(then only the second finding remains). A fixed path that is absolute outside the project folder or "
    "climbs out with `..` is reported too.",
    Example("steps:\n  - prompt: Name a file for this report\n  - write: 'reports/{{ input }}.md'\n"),
    Example(
        "inputs:\n  name: {type: string}\nsteps:\n  - prompt: Write the report\n"
        "  - write: 'reports/{{ inputs.name }}.md'\n"
    ),
)


def _leaves(prefix: str, project: Path | None) -> bool:
    """Whether the fixed start of a path leaves the project (absolute elsewhere, or ``..`` first)."""
    if os.path.isabs(prefix):
        if project is None:
            return False
        real = Path(os.path.normpath(prefix))
        return real != project and project not in real.parents
    head = os.path.normpath(prefix or ".").replace("\\", "/")
    return head == ".." or head.startswith("../")


def check(node: Node | None, label: str, project: Path | None, confined: bool, out: list[Diagnostic]) -> None:
    """``project``: the folder of the project's lait.config.yml; ``confined``: ``confine: project``."""
    if not isinstance(node, ScalarNode) or not isinstance(node.value, str):
        return
    source = node.value
    template = parsed(source)
    if template is not None and not confined:
        for expr in model_paths(template):
            out.append(
                Diagnostic(
                    CODE,
                    f"the 'write' path of {label} is built from '{expr.raw}', which a model may have chosen:"
                    " the file can land anywhere ('../../.bashrc'); build it from 'inputs.*' or"
                    " 'loop.index', or set 'confine: project' in lait.config.yml",
                    node.span(expr.start, expr.end),
                    Severity.WARNING,
                )
            )
            break
    cut = source.find("{{")
    fixed = source if cut < 0 else source[:cut]
    if cut >= 0:  # only whole segments before the first placeholder count
        fixed = fixed[: fixed.rfind("/") + 1] if "/" in fixed else ""
    if fixed and _leaves(fixed, project):
        advice = (
            "with 'confine: project' the run fails here"
            if confined
            else "write inside the project, or suppress this if the file is meant to go there"
        )
        out.append(
            Diagnostic(
                CODE,
                f"the 'write' path of {label} leads outside the project folder; {advice}",
                node.span(0, len(fixed.rstrip("/")) or len(fixed)),
                Severity.WARNING,
            )
        )
