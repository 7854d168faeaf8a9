"""LAIT707 test-unknown-input: an ``inputs:`` key of a test (``target.inputs`` of an eval) names no input
the target workflow declares."""

from __future__ import annotations

from lait_core.documents.validate import suggest
from lait_core.documents.workflow_file import WorkflowDocument
from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Fix, Severity
from lait_core.syntax.yaml.tree import MappingNode, Node

CODE = "LAIT707"

_WORKFLOW = ("wf.yml", "inputs:\n  topic: string\nsteps:\n  - prompt: 'Write about {{ inputs.topic }}'\n")

RULE = rule(
    CODE,
    "test-unknown-input",
    Severity.ERROR,
    "An `inputs:` key of a test or eval file names no input the target workflow declares.",
    "The values under `inputs:` (in an eval file `target: {inputs: ...}`) are the workflow's declared "
    "`inputs:`; a name it does not declare makes the run fail with `unknown input` before the model is "
    "asked anything. The declared names are offered as completion and a close match as a quick fix.",
    Example(
        "workflow: wf.yml\nreplay: tape\ninputs:\n  topc: cats\n",
        "smoke.test.yml",
        extra=(_WORKFLOW, ("tape/.keep", "")),
    ),
    Example(
        "workflow: wf.yml\nreplay: tape\ninputs:\n  topic: cats\n",
        "smoke.test.yml",
        extra=(_WORKFLOW, ("tape/.keep", "")),
    ),
)


def check(given: Node | None, workflow: WorkflowDocument, out: list[Diagnostic]) -> None:
    root = workflow.root
    declared = root.get("inputs") if root is not None else None
    if not isinstance(given, MappingNode) or not isinstance(declared, MappingNode):
        if isinstance(given, MappingNode) and len(given) and root is not None and declared is None:
            for name, key, _value in given.items():
                out.append(Diagnostic(CODE, f"the workflow declares no inputs; remove '{name}'", key.range))
        return
    names = [str(k) for k in declared]
    for name, key, _value in given.items():
        if str(name) in names:
            continue
        guess = suggest(str(name), names)
        hint = f"; did you mean '{guess}'?" if guess else f" (it declares: {', '.join(names)})"
        out.append(
            Diagnostic(
                CODE,
                f"the workflow has no input '{name}'{hint}",
                key.range,
                fixes=(Fix(f"Replace with '{guess}'", key.range, guess),) if guess else (),
            )
        )
