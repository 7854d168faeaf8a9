"""LAIT704 test-unknown-step: a ``step_output`` assertion names a step id the target workflow does not have."""

from __future__ import annotations

from lait_core.documents.validate import suggest
from lait_core.documents.workflow_file import WorkflowDocument
from lait_core.rules.registry import Example, rule
from lait_core.rules.testfiles.invalid_value import AssertionNode
from lait_core.syntax.diagnostics import Diagnostic, Fix, Severity
from lait_core.syntax.yaml.tree import ScalarNode

CODE = "LAIT704"

_WORKFLOW = (
    "wf.yml",
    "steps:\n  - id: draft\n    prompt: Draft it\n  - prompt: 'Improve {{ steps.draft }}'\n",
)

RULE = rule(
    CODE,
    "test-unknown-step",
    Severity.ERROR,
    "A `step_output` assertion names a step id that the target workflow does not have.",
    "`step_output` checks the output of the step with that `id` in the test's workflow; with no such "
    "step the assertion always fails with `no output of step`. The ids of the workflow's steps are "
    "offered as completion and a close match as a quick fix.",
    Example(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: step_output\n    id: drafts\n"
        "    assert:\n      - type: contains\n        value: hi\n",
        "smoke.test.yml",
        extra=(_WORKFLOW, ("tape/.keep", "")),
    ),
    Example(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: step_output\n    id: draft\n"
        "    assert:\n      - type: contains\n        value: hi\n",
        "smoke.test.yml",
        extra=(_WORKFLOW, ("tape/.keep", "")),
    ),
)


def step_ids(workflow: WorkflowDocument) -> dict[str, ScalarNode]:
    """Every step id of the workflow (nested steps included), with the scalar that defines it."""
    out: dict[str, ScalarNode] = {}
    for step in workflow.all_steps():
        node = step.node.get("id")
        if isinstance(node, ScalarNode) and isinstance(node.value, str) and node.value:
            out.setdefault(node.value, node)
    return out


def check(assertions: list[AssertionNode], workflow: WorkflowDocument, out: list[Diagnostic]) -> None:
    ids = step_ids(workflow)
    for a in assertions:
        if a.type != "step_output":
            continue
        node = a.node.get("id")
        if not isinstance(node, ScalarNode) or not isinstance(node.value, str) or node.value in ids:
            continue
        guess = suggest(node.value, list(ids))
        known = f" (its step ids: {', '.join(ids)})" if ids else " (none of its steps has an 'id')"
        hint = f"; did you mean '{guess}'?" if guess else known
        out.append(
            Diagnostic(
                CODE,
                f"the workflow has no step '{node.value}'{hint}",
                node.range,
                fixes=(Fix(f"Replace with '{guess}'", node.range, guess),) if guess else (),
            )
        )
