"""LAIT703 test-workflow: the workflow a test or eval file runs cannot be found, does not load or has
errors (counted as `lait lint` counts them)."""

from __future__ import annotations

from pathlib import Path

from lait_core.documents.workflow_file import WorkflowDocument
from lait_core.lint.workspace import Workspace
from lait_core.rules.registry import Example, rule
from lait_core.rules.testfiles.target import resolve
from lait_core.syntax import read_log as reads
from lait_core.syntax.diagnostics import Diagnostic, Related, Severity
from lait_core.syntax.yaml.tree import ScalarNode

CODE = "LAIT703"

RULE = rule(
    CODE,
    "test-workflow",
    Severity.ERROR,
    "The workflow a test or eval file runs cannot be found, does not load or has errors.",
    "`workflow:` (in an eval file `target: {workflow: ...}`) is a path relative to the test file. A "
    "missing file, or a workflow with errors of its own, fails the test before any assertion is "
    "checked; the workflow's first error is shown as a related location.",
    Example(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: contains\n    value: hi\n",
        "smoke.test.yml",
        extra=(("tape/.keep", ""),),
    ),
    Example(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: contains\n    value: hi\n",
        "smoke.test.yml",
        extra=(("wf.yml", "steps:\n  - prompt: Say hi\n"), ("tape/.keep", "")),
    ),
)


def check(
    node: ScalarNode | None, file: Path, ws: Workspace, out: list[Diagnostic]
) -> WorkflowDocument | None:
    """The target workflow's document when it loads; a LAIT703 at ``node`` when it does not."""
    if node is None:
        return None
    assert isinstance(node.value, str)
    path = resolve(file, node.value)
    reads.note(path)
    if not path.is_file():
        what = "is not a file" if path.exists() else "does not exist"
        out.append(
            Diagnostic(CODE, f"the workflow '{node.value}' {what} (relative to this file)", node.range)
        )
        return None
    doc = ws.workflow(path)
    if not isinstance(doc, WorkflowDocument):
        problem = doc.problem
        reason = f": {problem.message}" if problem is not None else ""
        out.append(Diagnostic(CODE, f"the workflow '{node.value}' cannot be read{reason}", node.range))
        return None
    from lait_core.lint.checks.workflows import WorkflowChecks
    from lait_core.lint.findings import ProblemCount, workflow_findings
    from lait_core.rules.capabilities.names_not_checked import SkipTracker

    findings = workflow_findings(doc, path, WorkflowChecks(ws, SkipTracker()))  # what `lait lint` says of it
    errors = [d for d in findings if d.severity is Severity.ERROR]
    if errors:
        first = errors[0]
        state = "does not load" if not doc.ok else "has errors"
        out.append(
            Diagnostic(
                CODE,
                f"the workflow '{node.value}' {state} ({ProblemCount.of(findings).describe()}); `lait lint` it",
                node.range,
                related=(Related(str(path), first.range, f"{first.code} {first.message}"),),
            )
        )
    return doc
