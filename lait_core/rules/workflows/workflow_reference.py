"""LAIT320 workflow-reference: a `workflow:` step names a workflow that cannot be found, loaded, or would recurse."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT320"

RULE = rule(
    CODE,
    "workflow-reference",
    Severity.ERROR,
    "A `workflow:` step names a workflow that cannot be found, loaded, or would recurse.",
    "A path (with `/` or ending in `.yml`/`.yaml`) is relative to the calling file; otherwise the name is "
    "looked up under `workflows:` in lait.config.yml. The child is linted (cached per run); cycles and "
    "nesting deeper than 32 are errors, and the child's own problems are reported at the reference with "
    "their locations in the child file.",
    Example("steps:\n  - workflow: ./child.yml\n"),
    Example("steps:\n  - workflow: ./child.yml\n", extra=(("child.yml", "steps:\n  - jq: '.'\n"),)),
)
