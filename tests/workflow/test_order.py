"""The execution order of one step (docs/workflows.md) and the details a reimplementation of the
original lait must not miss. This is the main test file of the workflow executor.

Spec section 6 point -> tests (tests/workflow/ unless noted; `decide` execution, checkpoints,
record/replay, cache, trace and test/eval are out of scope for now):

 1 v2 only, v1 rejected with a migration hint  test_inputs.py::test_version_1_is_rejected_before_running
 2 JSON-typed values, text form at boundaries  test_steps.py::test_jq_step_typed_values_and_globals,
                                                ::test_strings_that_look_like_json_are_not_reparsed,
                                                ::test_run_step_argv_templates_stdin_text_form_and_newline,
                                                test_inputs.py::test_prompt_typing_by_input_schema
 3 one-value jq rule, falsy, globals           test_steps.py::test_jq_exactly_one_value, ::test_jq_step_typed_values_and_globals,
                                                test_order.py::test_when_falsy_values
 4 strict handlebars templates                 test_order.py::test_templates_are_strict_in_steps
 5 step order when/input/action/output/on_error/id
                                                test_order.py (every test below)
 6 retry whole block, defaults only for model kinds, backoff, per-attempt timeout
                                                test_order.py::test_retry_backoff_and_same_incoming_value,
                                                ::test_default_retry_does_not_apply_to_run_steps,
                                                ::test_timeout_kills_the_process_tree_and_retries,
                                                ::test_on_error_runs_only_after_the_retries,
                                                test_llm_steps.py::test_default_retry_and_timeout_apply_to_prompt_steps,
                                                ::test_step_retry_replaces_the_default_block,
                                                test_step_details.py::test_backoff_multiplies_each_wait, ::test_each_wait_is_capped_at_3600_seconds,
                                                ::test_default_retry_and_timeout_apply_to_agent_steps
 7 nothing runs before the whole file validates test_inputs.py::test_nothing_runs_before_the_file_validates,
                                                test_children.py::test_invalid_child_fails_before_it_runs,
                                                ::test_child_placement_checked_when_called_concurrently
 8 concurrency: copies, order, fail-fast       test_control.py::test_parallel_*, ::test_for_each_concurrent_*
 9 loops: max_iterations, while/until, break   test_control.py::test_while_*, ::test_until_*, ::test_for_each_sequential_*
10 child workflows                             test_children.py (all)
11 agent reference heuristic, user message     test_llm_steps.py::test_agent_step_*
12 subagents                                   tests/engine/test_subagents.py (naming, both shapes, depth 16, cycles, own settings)
13 Structured Outputs                          test_llm_steps.py::test_prompt_output_schema_*
14 partial schema validator                    test_schema_validation.py (all), test_inputs.py::test_inputs_binding_rules,
                                                test_llm_steps.py::test_prompt_input_schema_blocks_the_call
15 ask/run/write/files rules                   test_steps.py::test_ask_*, ::test_run_never_uses_a_shell, ::test_write_never_creates_parent_directories,
                                                test_llm_steps.py::test_prompt_files_are_appended,
                                                test_ask_terminal.py (ask on a pty and with piped stdin),
                                                test_step_details.py::test_images_and_pdf_files_become_content_parts, ::test_files_must_be_utf8
16 progress lines and stdout contract          test_progress.py (all), test_cli_acceptance.py (stdout = result only, exit codes)
17 path bases                                  test_children.py::test_child_paths_are_relative_to_the_calling_file,
                                                ::test_registry_child_resolves_against_the_config_dir
18 dry run / graph                             tests/unit/test_plan.py, tests/cli/test_graph.py, tests/cli/test_run_cli.py (--dry-run);
                                                checkpoints, cassettes, cache, trace, test/eval are out of scope
19 config-level settings                       test_llm_steps.py::test_prompt_step_with_a_shell_tool,
                                                tests/engine/test_skills.py (progressive disclosure), tests/engine/test_conversation.py
20 resource limits                             test_steps.py::test_run_step_failure_includes_stderr_and_status (process caps live in process.py),
                                                jq limits in tests/unit/test_jq.py
"""

from __future__ import annotations

import asyncio
import time

import pytest

from lait_core.engine.llm.chat_types import Interrupted
from lait_core.engine.run.interaction import StepRetrying
from lait_core.engine.workflow import StepFailed, StepTimedOut, WorkflowTimedOut
from tests.engine.conftest import live_group_members
from tests.workflow.conftest import Harness


async def test_when_sees_the_incoming_value_and_skipped_steps_are_not_recorded(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - jq: '{flag: true, x: 5, off: false}'
          - id: used
            when: '.flag'
            input: '.x'
            jq: '. * 2'
            output: '{got: .}'
          - id: skipped
            when: '.off'
            jq: '"never"'
          - jq: '[., $steps.used, $steps.skipped]'
        """,
    )
    result = await wf.run("w.yml", "x")
    assert result.value == [{"got": 10}, {"got": 10}, None]
    assert "[3] skipped (skipped)" in wf.progress()


async def test_when_falsy_values(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - jq: '[]'
          - when: 'null'
            jq: '"null ran"'
          - when: '0'
            jq: '. + ["zero ran"]'
          - when: '""'
            jq: '. + ["empty string ran"]'
        """,
    )
    assert (await wf.run("w.yml", "x")).value == ["zero ran", "empty string ran"]


async def test_output_maps_the_kind_result(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - input: '"in"'
            run: [cat]
            output: '{stdout: ., was: $steps}'
        """,
    )
    assert (await wf.run("w.yml", "x")).value == {"stdout": "in", "was": {}}


async def test_on_error_input_shape_and_result_recorded(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - jq: '{n: 1}'
          - id: risky
            input: '"transformed"'
            run: [sh, -c, 'echo broken >&2; exit 2']
            on_error:
              - jq: '{handled: ., type: (.input | type)}'
          - jq: '$steps.risky.handled.input'
        """,
    )
    result = await wf.run("w.yml", "x")
    assert result.value == {"n": 1}  # the value that entered the step, before 'input:'
    progress = wf.progress()
    assert any(
        line.startswith("    -> step failed, running 'on_error': command 'sh' failed (exit status: 2)")
        for line in progress
    )


async def test_on_error_message_and_nested_chain(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - id: outer
            group:
              - id: inner
                jq: 'error("bad value")'
            on_error:
              - jq: '.error'
        """,
    )
    assert (await wf.run("w.yml", "x")).value == "step 'inner': 'jq': bad value"
    wf.write(
        "n.yml", "steps:\n  - id: outer\n    group:\n      - id: inner\n        jq: 'error(\"bad value\")'\n"
    )
    with pytest.raises(StepFailed) as info:
        await wf.run("n.yml", "x")
    assert str(info.value) == "step 'outer': step 'inner': 'jq': bad value"


async def test_failing_on_error_fails_the_step(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - id: a
            jq: 'error("first")'
            on_error:
              - id: handler
                jq: 'error("second")'
        """,
    )
    with pytest.raises(StepFailed, match=r"^step 'a': step 'handler': 'jq': second$"):
        await wf.run("w.yml", "x")


async def test_retry_backoff_and_same_incoming_value(wf: Harness) -> None:
    counter = wf.root / "count"
    wf.write(
        "w.yml",
        f"""
        steps:
          - jq: '"seed"'
          - id: flaky
            input: '. + "-in"'
            run: [sh, -c, 'n=$(cat {counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {counter};
                  cat; [ $n -ge 3 ] || exit 1']
            output: '. + "-out"'
            retry: {{max_attempts: 3, delay_seconds: 1, backoff: 0}}
        """,
    )
    started = time.monotonic()
    result = await wf.run("w.yml", "x")
    elapsed = time.monotonic() - started
    assert result.value == "seed-in-out"  # each attempt starts from the same incoming value
    assert counter.read_text().strip() == "3"
    assert wf.last is not None
    retries = wf.last.of_type(StepRetrying)
    assert [(r.attempt, r.max_attempts, r.delay) for r in retries] == [(1, 3, 1.0), (2, 3, 0.0)]
    assert 1.0 <= elapsed < 20
    assert (
        "    -> attempt 1/3 failed: command 'sh' failed (exit status: 1); retrying in 1.0s" in wf.progress()
    )


async def test_retry_exhausted_reports_the_last_error(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - id: f\n    run: [sh, -c, 'exit 4']\n    retry: {max_attempts: 2}\n")
    with pytest.raises(StepFailed, match=r"^step 'f': command 'sh' failed \(exit status: 4\)$"):
        await wf.run("w.yml", "x")
    assert wf.last is not None and len(wf.last.of_type(StepRetrying)) == 1


async def test_default_retry_does_not_apply_to_run_steps(wf: Harness) -> None:
    counter = wf.root / "count"
    wf.write(
        "w.yml",
        f"""
        default:
          retry: {{max_attempts: 3}}
          timeout: 1
        steps:
          - run: [sh, -c, 'echo x >> {counter}; sleep 1.5; exit 1']
        """,
    )
    with pytest.raises(StepFailed, match="exit status: 1"):
        await wf.run("w.yml", "x")
    assert counter.read_text().count("x") == 1  # neither default.retry nor default.timeout applied


async def test_timeout_kills_the_process_tree_and_retries(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - id: slow
            run: [sh, -c, 'sleep 30 & sleep 30; wait']
            timeout: 1
            retry: {max_attempts: 2}
        """,
    )
    started = time.monotonic()
    with pytest.raises(StepTimedOut) as info:
        await wf.run("w.yml", "x")
    elapsed = time.monotonic() - started
    assert str(info.value) == "step 'slow' timed out after 1s (attempt 2/2)"
    assert isinstance(info.value, Interrupted) and info.value.kind == "timed_out"
    assert 2.0 <= elapsed < 20  # not the sleeps' 30 s
    assert len(wf.spawned) == 2
    for pgid in wf.spawned:
        assert live_group_members(pgid) == [], "no process of the step is left"
    assert (
        "    -> attempt 1/2 failed: step 'slow' timed out after 1s (attempt 1/2); retrying in 0.0s"
        in wf.progress()
    )


async def test_timeout_then_on_error(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - id: slow
            run: [sleep, '20']
            timeout: 1
            on_error:
              - jq: '.error'
        """,
    )
    assert (await wf.run("w.yml", "in")).value == "step 'slow' timed out after 1s (attempt 1/1)"
    assert all(live_group_members(p) == [] for p in wf.spawned)


async def test_on_error_is_not_run_when_the_run_is_cancelled(wf: Harness) -> None:
    marker = wf.root / "handled"
    wf.write(
        "w.yml",
        f"""
        timeout: 1
        steps:
          - run: [sleep, '20']
            on_error:
              - run: [touch, '{marker}']
        """,
    )
    with pytest.raises(WorkflowTimedOut, match=r"workflow timed out after 1s \('timeout'\)"):
        await wf.run("w.yml", "x")
    assert not marker.exists()
    assert all(live_group_members(p) == [] for p in wf.spawned)


async def test_cancelling_the_run_kills_running_steps(wf: Harness) -> None:
    wf.write(
        "w.yml", "steps:\n  - parallel:\n      a: [{run: [sleep, '20']}]\n      b: [{run: [sleep, '20']}]\n"
    )
    task = asyncio.create_task(wf.run("w.yml", "x"))
    for _ in range(100):
        if len(wf.spawned) == 2:
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(wf.spawned) == 2
    assert all(live_group_members(p) == [] for p in wf.spawned)


async def test_ids_record_and_later_writes_overwrite(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - for_each: '[1, 2, 3]'
            steps:
              - id: last
                jq: '. * 10'
          - jq: '$steps.last'
        """,
    )
    assert (await wf.run("w.yml", "x")).value == 30


async def test_stop_output_and_top_level_output(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        output: '{final: ., seen: $steps.g}'
        steps:
          - jq: '{sufficient: true, answer: 42}'
          - id: g
            group:
              - id: s
                when: '.sufficient'
                output: '.answer'
                stop: true
            output: '"group output must not apply"'
          - jq: '"not reached"'
        """,
    )
    # `g` records the value it ended with (the stop's) before the stop bubbles up, as in the
    # reference (run_step records under `id` whatever flow the unit ended with).
    assert (await wf.run("w.yml", "x")).value == {"final": 42, "seen": 42}


async def test_stop_step_records_its_own_id(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        output: '$steps.s'
        steps:
          - id: s
            input: '"v"'
            stop: true
        """,
    )
    assert (await wf.run("w.yml", "x")).value == "v"


async def test_templates_are_strict_in_steps(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - id: t\n    run: [echo, '{{ inputs.nope }}']\n")
    with pytest.raises(StepFailed, match=r"^step 't': 'run\[1\]': "):
        await wf.run("w.yml", "x")
    wf.write("l.yml", "steps:\n  - run: [echo, '{{ loop.index }}']\n")
    with pytest.raises(StepFailed):
        await wf.run("l.yml", "x")
    wf.write(
        "ok.yml",
        "steps:\n  - jq: '{a: \"s\", n: 1.5, b: true, z: null}'\n  - run: [echo, '{{ input.a }} {{ input.n }} {{ input.b }} {{ input.z }} {{ json input.a }} {{ input }}']\n",
    )
    assert (await wf.run("ok.yml", "x")).value == 's 1.5 true null "s" {"a":"s","n":1.5,"b":true,"z":null}'


async def test_on_error_runs_only_after_the_retries(wf: Harness) -> None:
    log = wf.root / "log"
    wf.write(
        "w.yml",
        f"""
        steps:
          - id: s
            run: [sh, -c, 'echo attempt >> {log}; exit 1']
            retry: {{max_attempts: 3}}
            on_error:
              - run: [sh, -c, 'echo handler >> {log}; printf handled']
        """,
    )
    assert (await wf.run("w.yml", "x")).value == "handled"
    assert log.read_text().split() == ["attempt", "attempt", "attempt", "handler"]
