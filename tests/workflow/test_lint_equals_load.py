"""Lint = load (issue 12 item 4): everything the workflow loader refuses is reported by `lait lint`
at the offending step, through the same code.

Two kinds of load-time refusal exist:

1. validating a file (`parse_workflow`, shared by the loader and lint): every error the loader
   raises for any workflow file of the lint corpus is one lint reports at the same place;
2. the checks a run makes when it loads another file (`engine/workflow/loader.py`: `child_path`,
   `check_nesting`, `check_placement` over the rules of `documents/placement.py`, and the child's
   own validation; `engine/workflow/llm_steps.py`: an `agent:` file that is missing or invalid):
   each one is enumerated below, run (the run refuses it) and linted (lint reports the same reason
   at the calling step).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.documents import placement
from lait_core.engine.workflow import StepFailed, WorkflowLoadError
from lait_core.engine.workflow.loader import load_document
from lait_core.lint.discovery import FileKind, yaml_kind
from lait_core.lint.engine import Linter, LintOptions
from lait_core.syntax.diagnostics import Diagnostic, Severity
from tests.workflow.conftest import Harness

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def _lint(root: Path, path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Diagnostic]:
    monkeypatch.chdir(root)
    home = root / "xdg-empty"
    home.mkdir(exist_ok=True)
    linter = Linter(LintOptions(environ={"XDG_CONFIG_HOME": str(home)}))
    report = linter.lint_paths([str(path)])
    return [d for d in report.diagnostics if d.severity == Severity.ERROR and Path(d.path).name == path.name]


def _corpus_workflows() -> list[Path]:
    # (suppression/ cases are left out: there lint hides what the file asks it to hide)
    return sorted(
        p
        for p in CORPUS.rglob("*.yml")
        if p.name != "lait.config.yml"
        and b"steps:" in p.read_bytes()
        and yaml_kind(p, p.read_text(encoding="utf-8", errors="replace"))
        is FileKind.WORKFLOW  # not a test or eval file
        and "suppression" not in p.parts
    )


@pytest.mark.parametrize("path", _corpus_workflows(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_validation_error_of_the_loader_is_a_lint_error(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        load_document(None, path)
    except WorkflowLoadError as exc:
        refused = {(d.code, d.range.start) for d in exc.diagnostics}
    else:
        return
    linted = {(d.code, d.range.start) for d in _lint(path.parent, path, monkeypatch)}
    assert refused <= linted, f"the loader refuses {sorted(refused - linted)} but lint does not report them"


# (the loader's run-time refusal, the files, the text both report, the line of the `workflow:` step)
CHILD_CASES: dict[str, tuple[dict[str, str], str, int]] = {
    "ask in a child called from a parallel branch": (
        {
            "main.yml": "steps:\n  - parallel:\n      a:\n        - workflow: ./child.yml\n      b:\n        - jq: .\n",
            "child.yml": "steps:\n  - ask: 'name?'\n",
        },
        "in workflow './child.yml': step-1 (ask): 'ask' cannot run inside a 'parallel' branch or a concurrent"
        " 'for_each' (the child workflow is called from one)",
        4,
    ),
    "ask in a child called from a concurrent for_each": (
        {
            "main.yml": "steps:\n  - for_each: '[1, 2]'\n    max_concurrency: 2\n    steps:\n"
            "      - workflow: child.yml\n",
            "child.yml": "steps:\n  - id: q\n    ask: 'name?'\n",
        },
        "in workflow 'child.yml': step 'q': 'ask' cannot run inside a 'parallel' branch",
        5,
    ),
    "fixed-path write in a child called from a concurrent for_each": (
        {
            "main.yml": "steps:\n  - for_each: '[1, 2]'\n    max_concurrency: 2\n    steps:\n"
            "      - workflow: child.yml\n",
            "child.yml": "steps:\n  - write: out.txt\n",
        },
        "in workflow 'child.yml': 'write' (step-1 (write)) with a fixed path cannot run inside a concurrent"
        " 'for_each'",
        5,
    ),
    "ask in a grandchild, inherited through a sequential child": (
        {
            "main.yml": "steps:\n  - parallel:\n      a:\n        - workflow: ./child.yml\n      b:\n        - jq: .\n",
            "child.yml": "steps:\n  - workflow: ./grandchild.yml\n",
            "grandchild.yml": "steps:\n  - ask: 'name?'\n",
        },
        "'ask' cannot run inside a 'parallel' branch or a concurrent 'for_each'",
        4,
    ),
    "a cycle": (
        {
            "main.yml": "steps:\n  - workflow: ./child.yml\n",
            "child.yml": "steps:\n  - jq: .\n  - workflow: ./main.yml\n",
        },
        "'workflow: ./main.yml' would create a cycle",
        2,
    ),
    "nesting deeper than 32": (
        {
            **{f"d{i}.yml": f"steps:\n  - workflow: ./d{i + 1}.yml\n" for i in range(33)},
            "d33.yml": "steps:\n  - jq: .\n",
            "main.yml": "steps:\n  - workflow: ./d0.yml\n",
        },
        # main.yml is depth 0, d0.yml depth 1, ..., d31.yml depth 32: its step is the one refused
        f"'workflow: ./d32.yml' exceeds the maximum workflow nesting depth of {placement.MAX_DEPTH}",
        2,
    ),
    "an unregistered workflow name": (
        {"main.yml": "steps:\n  - jq: .\n  - workflow: nowhere\n", "lait.config.yml": "workflows: {}\n"},
        "is not registered under 'workflows:' in lait.config.yml",
        3,
    ),
    "a missing agent file": (
        {"main.yml": "steps:\n  - jq: .\n  - agent: ./missing.md\n"},
        "missing.md",
        3,
    ),
    "an agent file that does not validate": (
        {"main.yml": "steps:\n  - agent: ./bad.md\n", "bad.md": "---\nmodle: x\n---\nHi\n"},
        "unknown key 'modle' in the agent frontmatter",
        2,
    ),
    "a child that does not validate": (
        {"main.yml": "steps:\n  - workflow: ./child.yml\n", "child.yml": "steps:\n  - jq: '.['\n"},
        "LAIT402",
        2,
    ),
}


def test_every_run_time_load_check_is_enumerated() -> None:
    """The placement rules and nesting checks the loader applies to children, each with a case."""
    rules = {name for name in dir(placement) if name.endswith("_problem")}
    assert rules == {"ask_problem", "write_problem", "nesting_problem"}, "a new rule needs a case here"
    text = " ".join(expected for _files, expected, _line in CHILD_CASES.values())
    for needle in (
        "'ask' cannot run",
        "fixed path",
        "would create a cycle",
        "nesting depth",
        "not registered",
    ):
        assert needle in text


@pytest.mark.parametrize("case", list(CHILD_CASES))
async def test_lint_reports_what_the_run_refuses(
    case: str, wf: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files, expected, line = CHILD_CASES[case]
    for name, text in files.items():
        wf.write(name, text)
    main = wf.root / "main.yml"
    # the run refuses ...
    with pytest.raises(StepFailed) as info:
        await wf.run(main, "x")
    refusal = str(info.value)
    for cause in (info.value.__cause__, info.value.__cause__ and info.value.__cause__.__cause__):
        if isinstance(cause, WorkflowLoadError):
            refusal += " " + " ".join(f"{d.code} {d.message}" for d in cause.diagnostics)
    assert expected in refusal
    # ... and lint reports the same reason at the calling step of the file that was run (for the
    # nested cases, through the chain of `workflow:` steps that leads there)
    errors = _lint(wf.root, main, monkeypatch)
    assert errors, f"lint passes main.yml, which the run refuses: {refusal}"
    at_step = [d for d in errors if d.range.start.line + 1 == line]
    assert at_step, [str(d) for d in errors]
    related = " ".join(r.message for d in at_step for r in d.related)
    assert any(expected in d.message or expected in related for d in at_step), [d.message for d in at_step]
