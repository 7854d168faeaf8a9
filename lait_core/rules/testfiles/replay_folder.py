"""LAIT706 test-replay-folder: a test file's ``replay`` folder does not exist."""

from __future__ import annotations

from pathlib import Path

from lait_core.rules.registry import Example, rule
from lait_core.rules.testfiles.target import resolve
from lait_core.syntax import read_log as reads
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import Node, ScalarNode

CODE = "LAIT706"

_WORKFLOW = ("wf.yml", "steps:\n  - prompt: Say hi\n")

RULE = rule(
    CODE,
    "test-replay-folder",
    Severity.WARNING,
    "A test file's `replay` folder does not exist (or is not a folder).",
    "`replay` is the cassette folder (relative to the test file) the workflow's model answers come "
    "from; `lait test` never calls the model. Without the folder every model request is a replay miss "
    "and the test fails. Record it with `lait run WORKFLOW --record FOLDER`.",
    Example(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: contains\n    value: hi\n",
        "smoke.test.yml",
        extra=(_WORKFLOW,),
    ),
    Example(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: contains\n    value: hi\n",
        "smoke.test.yml",
        extra=(_WORKFLOW, ("tape/.keep", "")),
    ),
)


def check(node: Node | None, file: Path, out: list[Diagnostic]) -> None:
    if not isinstance(node, ScalarNode) or not isinstance(node.value, str) or not node.value:
        return
    folder = resolve(file, node.value)
    reads.note(folder)  # an editor's workspace lint checks it again when it is created
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        out.append(
            Diagnostic(
                CODE,
                f"the replay folder '{node.value}' {what}; every model request of the run will be a replay"
                " miss (record it with `lait run WORKFLOW --record FOLDER`)",
                node.range,
                Severity.WARNING,
            )
        )
