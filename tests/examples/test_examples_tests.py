"""The example project's test and eval files (issue 14 item 6): `lait test tests` in a copy of
examples/ passes from the recorded cassette alone (no model server runs; the copy keeps the
config's model URL, which is part of each recorded request's key), an edited prompt makes it fail
with the replay miss naming the step, and the eval file is a valid eval definition.

The cassette's keys cover the triage workflow's `classify` and `reply` requests (prompts, the
release-notes skill, the config's model and sampling). After changing one of those, re-record in
examples/ with a model at http://localhost:1234/v1 (LM Studio), or with the scripted server
listening there: ``python -m tests.peers.openai_server --port 1234 --script s.json`` with a
classification answer (``{"kind": "feature", "summary": "Add a dark mode"}``) and a reply that
mentions "dark mode", then ``lait test --record tests/triage.test.yml``."""

from __future__ import annotations

import shutil
from pathlib import Path

from lait_core.testing.definition import load_eval
from tests.cli.conftest import EXAMPLES, clean_env, run_lait


def test_the_example_test_replays_and_an_edited_prompt_misses(tmp_path: Path) -> None:
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns(".lait", "__pycache__", "release-*.md"))
    env = clean_env(tmp_path / "_xdg", tmp_path / "_home")
    passed = run_lait(["test", "tests"], cwd=root, env=env)
    assert (passed.returncode, passed.stdout) == (
        0,
        "tests/triage.test.yml: PASS\n1 passed, 0 failed, 1 total\n",
    )

    workflow = root / "workflows" / "triage.yml"
    workflow.write_text(workflow.read_text().replace("Classify this issue", "Sort this issue"))
    missed = run_lait(["test", "tests"], cwd=root, env=env)
    assert missed.returncode == 1
    assert missed.stdout.splitlines()[0] == "tests/triage.test.yml: FAIL"
    assert missed.stdout.splitlines()[1].startswith(
        "  step 'classify': replay: no recording of the request of classify to model 'local' (key "
    )
    assert missed.stdout.splitlines()[-1] == "0 passed, 1 failed, 1 total"


def test_the_example_eval_file_is_valid() -> None:
    definition, problems = load_eval(EXAMPLES / "evals" / "triage.eval.yml")
    assert problems == []
    assert definition is not None and definition.target.workflow == "../workflows/triage.yml"
    assert [len(case.assert_) for case in definition.cases] == [1, 2, 1]
