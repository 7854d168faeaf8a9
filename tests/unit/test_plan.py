"""The dry-run plan (docs/workflows.md) of real workflow files: every step kind, what is
rendered and what is not, model resolution (aliases, workflow `models:`, agent files, errors as a
run reports them), effective retry/timeout and the closing lines."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from lait_core.documents.document_models import Config
from lait_core.documents.workflow_file import parse_workflow
from lait_core.engine.llm.chat_types import ConfigurationError
from lait_core.engine.run.dry_run import HEADER, LOOP_NOTE, UNKNOWN_NOTE, UNRENDERED, PlanError, dry_run_plan

CONFIG = Config.model_validate(
    {
        "base_url": "http://config.example/v1",
        "default": {"model": "fast", "tools": ["grep"]},
        "models": {"fast": [{"provider": {"base_url": "http://fast.example/v1/"}, "model_id": "fast-1"}]},
    }
)


def plan(
    tmp_path: Path,
    text: str,
    *,
    config: Config = CONFIG,
    initial: Any = "the prompt",
    inputs: dict[str, Any] | None = None,
) -> list[str]:
    path = tmp_path / "wf.yml"
    source = textwrap.dedent(text)
    path.write_text(source, encoding="utf-8")
    doc = parse_workflow(source, str(path))
    assert doc.ok, doc.diagnostics
    return dry_run_plan(doc, path=path, config=config, initial_input=initial, inputs=inputs).splitlines()


def test_header_inputs_first_step_rendered_and_closing_lines(tmp_path: Path) -> None:
    lines = plan(
        tmp_path,
        """\
        inputs:
          repo: string
        input_schema: {type: string}
        output: '.answer'
        timeout: 90
        steps:
          - id: classify
            prompt: "Classify {{ input }} for {{ inputs.repo }}"
          - prompt: "Use {{ steps.classify }} and {{ input }}"
            model: raw-model-id
        """,
        inputs={"repo": "lait"},
    )
    assert lines == [
        HEADER,
        "input_schema: inline schema",
        'inputs: {"repo":"lait"}',
        "[1] classify  (prompt)",
        "    prompt: Classify the prompt for lait",
        "    model: fast-1 @ http://fast.example/v1",
        "    tools: grep",
        "[2] step-2 (prompt)",
        "    prompt: Use {{ steps.classify }} and {{ input }}" + UNRENDERED,
        "    model: raw-model-id @ http://config.example/v1",
        "    tools: grep",
        "output: .answer",
        "timeout: 90s (whole workflow)",
    ]


def test_input_of_a_later_step_and_a_step_with_input_are_not_known(tmp_path: Path) -> None:
    lines = plan(
        tmp_path,
        """\
        steps:
          - prompt: "{{ input }}"
            input: '.x'
        """,
        initial={"x": 1},
    )
    assert lines[1:4] == ["[1] step-1 (prompt)", "    input: .x", "    prompt: {{ input }}" + UNRENDERED]


def test_each_over_steps_is_never_rendered_empty(tmp_path: Path) -> None:
    lines = plan(
        tmp_path,
        """\
        steps:
          - prompt: "{{#each steps.a}}- {{ this }}{{/each}}"
        """,
    )
    assert lines[2] == "    prompt: {{#each steps.a}}- {{ this }}{{/each}}" + UNRENDERED


def test_prompt_details_system_fallback_schemas_retry_timeout(tmp_path: Path) -> None:
    lines = plan(
        tmp_path,
        """\
        default:
          system: "You help with {{ inputs.topic }}."
          retry: {max_attempts: 3, delay_seconds: 2, backoff: 1.5}
          timeout: 30
          mcp: [notes]
        models:
          fast:
            - provider: {base_url: "http://workflow.example/v1"}
              model_id: wf-fast
        inputs:
          topic: {type: string, default: jq}
        schemas:
          answer: {type: object}
        steps:
          - id: a
            prompt: hi
            output_schema: answer
            input_schema: {file: in.json}
            skills: [style]
          - id: b
            prompt: hi
            system: own
            output_schema: {type: object}
            retry: {max_attempts: 2}
            timeout: 5
          - id: c
            prompt: hi
            output_schema: answer
            schema_name: custom
          - id: d
            jq: '.'
        """,
        inputs={"topic": "jq"},
    )
    assert lines == [
        HEADER,
        'inputs: {"topic":"jq"}',
        "[1] a  (prompt)",
        "    prompt: hi",
        "    system: You help with jq.",
        "    input_schema: file in.json",
        "    output_schema: 'answer' (from 'schemas:') (name: answer)",
        "    model: wf-fast @ http://workflow.example/v1",
        "    mcp: notes",
        "    skills: style",
        "    tools: grep",
        "    retry: max_attempts=3, delay_seconds=2, backoff=1.5",
        "    timeout: 30s",
        "[2] b  (prompt)",
        "    prompt: hi",
        "    system: own",
        "    output_schema: inline schema (name: structured_output)",
        "    model: wf-fast @ http://workflow.example/v1",
        "    mcp: notes",
        "    tools: grep",
        "    retry: max_attempts=2, delay_seconds=0, backoff=1",
        "    timeout: 5s",
        "[3] c  (prompt)",
        "    prompt: hi",
        "    system: You help with jq.",
        "    output_schema: 'answer' (from 'schemas:') (name: custom)",
        "    model: wf-fast @ http://workflow.example/v1",
        "    mcp: notes",
        "    tools: grep",
        "    retry: max_attempts=3, delay_seconds=2, backoff=1.5",
        "    timeout: 30s",
        "[4] d  (jq)",
        "    jq: .",
    ]


def test_control_steps_nest_numbered_as_the_run_numbers_them(tmp_path: Path) -> None:
    """Spec 1.9: switch cases, groups and sequential loop bodies continue the count; parallel
    branches and concurrent items count from 1; after a loop the number depends on the run."""
    lines = plan(
        tmp_path,
        """\
        steps:
          - id: route
            switch:
              - when: '.a'
                steps:
                  - jq: '1'
              - when: '.b'
                steps:
                  - stop: true
          - switch:
              - when: '.c'
                steps:
                  - jq: '2'
            else:
              - jq: '3'
          - id: both
            parallel:
              left:
                - run: [echo, "{{ inputs.x }}", "{{ input }}"]
              right:
                - write: "out-{{ loop.index }}.txt"
          - for_each: '.items'
            max_concurrency: 3
            steps:
              - jq: '.'
          - while: '. < 3'
            max_iterations: 5
            steps:
              - jq: '. + 1'
              - when: '. == 2'
                break: true
          - until: '.done'
            max_iterations: 2
            steps:
              - group:
                  - jq: '{done: true}'
        """,
        inputs={"x": "X"},
    )
    assert lines == [
        HEADER,
        'inputs: {"x":"X"}',
        "[1] route  (switch)",
        "    case 1: when .a",
        "        [2] step-2 (jq)",
        "            jq: 1",
        "    case 2: when .b",
        "        [2] step-3 (stop)",
        "            -> ends the workflow with the current value",
        "    else: (none; no matching case is a runtime error)",
        "[3] step-4 (switch)",
        "    case 1: when .c",
        "        [4] step-5 (jq)",
        "            jq: 2",
        "    else:",
        "        [4] step-6 (jq)",
        "            jq: 3",
        "[5] both  (parallel)",
        "    branch 'left':",
        "        [1] step-8 (run)",
        "            run: echo X {{ input }}" + UNRENDERED,
        "    branch 'right':",
        "        [1] step-9 (write)",
        "            write: out-{{ loop.index }}.txt" + UNRENDERED,
        "[6] step-10 (for_each)",
        "    items: .items",
        "    max_concurrency: 3",
        "        [1] step-11 (jq)",
        "            jq: .",
        "[7] step-12 (while)",
        "    while . < 3, max_iterations: 5",
        "        " + LOOP_NOTE,
        "        [8] step-13 (jq)",
        "            jq: . + 1",
        "        [9] step-14 (break)",
        "            when: . == 2",
        "            -> ends the innermost loop with the current value",
        "[?] step-15 (until)",
        "    until .done, max_iterations: 2",
        "        [?] step-16 (group)",
        "            [?] step-17 (jq)",
        "                jq: {done: true}",
        UNKNOWN_NOTE,
    ]


def test_numbers_after_a_switch_a_skipped_or_retried_group_and_on_error(tmp_path: Path) -> None:
    """A number stays known when every path to a step runs as many steps before it (a case that
    stops does not count; a skipped step without nested steps changes nothing)."""
    lines = plan(
        tmp_path,
        """\
        steps:
          - switch:
              - when: '.a'
                steps:
                  - jq: '1'
              - when: '.b'
                steps:
                  - stop: true
            else:
              - jq: '2'
          - when: '.x'
            jq: '.'
          - id: after_equal_cases
            jq: '.'
          - when: '.y'
            group:
              - stop: true
          - jq: '"after a skipped group that always stops"'
          - when: '.z'
            group:
              - jq: '.'
          - jq: '"after a group that may be skipped"'
        """,
    )
    numbered = [line for line in lines if line.lstrip().startswith("[")]
    assert numbered == [
        "[1] step-1 (switch)",
        "        [2] step-2 (jq)",
        "        [2] step-3 (stop)",
        "        [2] step-4 (jq)",
        "[3] step-5 (jq)",
        "[4] after_equal_cases  (jq)",
        "[5] step-7 (group)",
        "    [6] step-8 (stop)",
        "[6] step-9 (jq)",
        "[7] step-10 (group)",
        "    [8] step-11 (jq)",
        "[?] step-12 (jq)",
        UNKNOWN_NOTE,
    ]
    lines = plan(
        tmp_path,
        """\
        steps:
          - jq: '.'
            on_error:
              - jq: '.error'
          - jq: '.'
          - switch:
              - when: '.a'
                steps:
                  - jq: '1'
            else:
              - jq: '2'
              - jq: '3'
          - jq: '.'
        """,
    )
    numbered = [line for line in lines if line.lstrip().startswith("[")]
    assert numbered == [
        "[1] step-1 (jq)",
        "        [2] step-2 (jq)",
        "[?] step-3 (jq)",
        "[?] step-4 (switch)",
        "        [?] step-5 (jq)",
        "        [?] step-6 (jq)",
        "        [?] step-7 (jq)",
        "[?] step-8 (jq)",
        UNKNOWN_NOTE,
    ]


def test_group_passes_the_known_input_to_its_first_step(tmp_path: Path) -> None:
    lines = plan(
        tmp_path,
        """\
        steps:
          - group:
              - run: [echo, "{{ input }}"]
            retry: {max_attempts: 2, delay_seconds: 1}
            on_error:
              - jq: '.error'
        """,
        initial="hello",
    )
    assert lines[1:] == [
        "[1] step-1 (group)",
        "    [2] step-2 (run)",
        "        run: echo hello",
        "    retry: max_attempts=2, delay_seconds=1, backoff=1",
        "    on_error:",
        "        [?] step-3 (jq)",
        "            jq: .error",
        UNKNOWN_NOTE,
    ]


def test_actions_without_a_model(tmp_path: Path) -> None:
    lines = plan(
        tmp_path,
        """\
        steps:
          - workflow: ./child.yml
            with: '{a: 1}'
          - ask: "Which version of {{ inputs.p }}?"
            choices: [a, b]
          - ask: "Sure?"
            default: "yes"
          - decide:
              urgent: {type: noul}
              team: {type: choice, criteria: {a: null, b: null}}
            model: jev-1
          - run: [python3, -c, "print(1)"]
            env: {B: "1", A: "2"}
            cwd: sub
        """,
        inputs={"p": "lait"},
    )
    assert lines[2:] == [
        "[1] step-1 (workflow)",
        "    workflow: ./child.yml (not expanded; run 'lait run --dry-run' on it directly)",
        "    with: {a: 1}",
        "[2] step-2 (ask)",
        "    ask: Which version of lait?",
        "    choices: a, b",
        "    default: none  (fails when stdin is not an interactive terminal)",
        "[3] step-3 (ask)",
        "    ask: Sure?",
        "    default: yes  (used when stdin is not an interactive terminal)",
        "[4] step-4 (decide)",
        "    decide: urgent (noul), team (choice)",
        "    model: jev-1",
        "    (running 'decide' steps is not supported by this version of lait)",
        "[5] step-5 (run)",
        "    run: python3 -c print(1)",
        "    env: A, B",
        "    cwd: sub",
    ]


def test_agents_inline_path_registry_and_unregistered(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "local.md").write_text(
        "---\nmodel: fast\nmcp: [notes]\n---\nYou review.\n", encoding="utf-8"
    )
    registered = tmp_path / "agents" / "reg.md"
    registered.write_text("---\nmodel: reg-model\ntools: []\n---\nYou register.\n", encoding="utf-8")
    config = CONFIG.model_copy(update={"agents": {"reg": str(registered)}})
    lines = plan(
        tmp_path,
        """\
        agents:
          editor:
            system: You edit.
            model: inline-model
        steps:
          - agent: editor
          - agent: ./agents/local.md
            subagents: [helper]
          - agent: reg
          - agent: nowhere
        """,
        config=config,
    )
    assert lines[1:] == [
        "[1] step-1 (agent)",
        "    agent: editor (inline, from 'agents:')",
        "    model: inline-model @ http://config.example/v1",
        "    tools: grep",
        "[2] step-2 (agent)",
        "    agent: ./agents/local.md",
        "    model: fast-1 @ http://fast.example/v1",
        "    mcp: notes",
        "    subagents: helper",
        "    tools: grep",
        "[3] step-3 (agent)",
        "    agent: reg (registered in lait.config.yml)",
        "    model: reg-model @ http://config.example/v1",
        "[4] step-4 (agent)",
        "    agent: nowhere",
        "    (agent 'nowhere' is not registered; the run would fail)",
    ]


def test_a_broken_agent_file_is_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "bad.md").write_text("---\ntemperature: 9\n---\nx\n", encoding="utf-8")
    with pytest.raises(
        PlanError, match=r"step 'step-1 \(agent\)': failed to load agent file ./bad.md: .*bad.md:2:14: "
    ):
        plan(tmp_path, "steps:\n  - agent: ./bad.md\n")
    with pytest.raises(PlanError, match="no such file"):
        plan(tmp_path, "steps:\n  - agent: ./missing.md\n")


def test_model_resolution_errors_are_the_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(
        ConfigurationError, match=r"^model is required for step 'x'; set 'model' on the step, the"
    ):
        plan(tmp_path, "steps:\n  - id: x\n    prompt: hi\n", config=Config())
    (tmp_path / "a.md").write_text("---\n---\nbody\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="on the step, its agent definition, the workflow's"):
        plan(tmp_path, "steps:\n  - agent: ./a.md\n", config=Config())
    monkeypatch.delenv("PLAN_TEST_UNSET", raising=False)
    config = Config.model_validate(
        {"models": {"m": [{"provider": {"base_url": "${PLAN_TEST_UNSET}/v1"}, "model_id": "x"}]}}
    )
    with pytest.raises(ConfigurationError, match="PLAN_TEST_UNSET"):
        plan(tmp_path, "steps:\n  - prompt: hi\n    model: m\n", config=config)
    monkeypatch.setenv("PLAN_TEST_UNSET", "http://env.example")
    assert "    model: x @ http://env.example/v1" in plan(
        tmp_path, "steps:\n  - prompt: hi\n    model: m\n", config=config
    )
