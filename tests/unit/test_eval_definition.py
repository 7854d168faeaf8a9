"""The eval file definition (docs/testing.md): ``target`` in one of its two forms and
``cases``; unknown keys rejected and every problem located (line:column), like a test file's."""

from __future__ import annotations

from lait_core.testing.definition import EvalTarget, LlmJudge, parse_eval


def problems(text: str) -> list[tuple[int, int, str]]:
    definition, diagnostics = parse_eval(text, "e.yml")
    assert definition is None
    return [(d.range.start.line + 1, d.range.start.character + 1, d.message) for d in diagnostics]


def test_both_target_forms_and_the_judge_defaults() -> None:
    text = "target: {workflow: wf.yml, inputs: {n: 2}}\ncases:\n  - input: hi\n    assert:\n      - type: llm_judge\n        criteria: polite\n"
    definition, diagnostics = parse_eval(text, "e.yml")
    assert diagnostics == []
    assert definition is not None
    assert definition.target == EvalTarget(workflow="wf.yml", inputs={"n": 2})
    assert definition.cases[0].assert_ == [LlmJudge(type="llm_judge", criteria="polite")]
    assert definition.cases[0].assert_[0].threshold == 0.7  # type: ignore[union-attr]
    model_form, diagnostics = parse_eval(
        "target: {model: m, prompt: 'Say {{ input }}'}\ncases: []\n", "e.yml"
    )
    assert diagnostics == [] and model_form is not None and model_form.target.model == "m"


def test_unknown_keys_and_bad_values_are_located() -> None:
    text = (
        "target:\n  model: m\n  prompt: 'x {{ input }}'\n  extra: 1\n"
        "cases:\n  - input: 3\n    asserts: []\n  - input: ok\n    assert:\n      - type: llm_judge\n"
    )
    assert problems(text) == [
        (4, 3, "unknown key 'extra' in 'target'; expected one of: workflow, inputs, model, prompt"),
        (7, 5, "unknown key 'asserts' in 'cases[0]'; did you mean 'assert'?"),
        (10, 9, "'cases[1].assert[0]' is missing the required key 'criteria'"),
        (6, 12, "'cases[0].input' must be a string (got the integer 3)"),
    ]


def test_the_target_has_exactly_one_form() -> None:
    assert problems("target: {workflow: wf.yml, model: m}\ncases: []\n") == [
        (1, 9, "'target': give either 'workflow' (and 'inputs') or 'model' and 'prompt', not both")
    ]
    assert problems("target:\n  model: m\ncases: []\n") == [
        (2, 3, "'target': needs 'workflow' (a workflow file) or both 'model' and 'prompt'")
    ]
    assert problems("target: {model: m, prompt: p, inputs: {}}\ncases: []\n") == [
        (1, 9, "'target': 'inputs' goes with 'workflow'")
    ]
    assert problems("cases: []\n") == [(1, 1, "the eval file is missing the required key 'target'")]
    assert problems("") == [(1, 1, "an eval file needs 'target' and 'cases'")]
