"""Control kinds: group, switch/else, parallel, for_each (sequential and concurrent), while/until,
break (docs/workflows.md)."""

from __future__ import annotations

import time

import pytest

from lait_core.engine.workflow import StepFailed
from tests.engine.conftest import live_group_members
from tests.workflow.conftest import Harness


async def test_group_value_is_the_last_value(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - id: g
            input: '{a: 1}'
            group:
              - jq: '.a + 1'
              - jq: '. * 3'
            output: '{g: .}'
        """,
    )
    assert (await wf.run("w.yml", "x")).value == {"g": 6}


async def test_switch_first_truthy_case_else_and_no_match(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - switch:
              - when: '. == "a"'
                steps: [{jq: '"case a"'}]
              - when: 'startswith("b")'
                steps: [{jq: '"case b"'}]
              - when: 'true'
                steps: [{jq: '"never: b matched first"'}]
            else:
              - jq: '"else"'
        """,
    )
    assert (await wf.run("w.yml", "a")).value == "case a"
    assert (await wf.run("w.yml", "bee")).value == "case b"
    assert "    -> case 2 matched" in wf.progress()
    wf.write(
        "e.yml",
        """
        steps:
          - switch:
              - when: '. == "a"'
                steps: [{jq: '"case a"'}]
            else:
              - id: fallback
                jq: '"else " + .'
          - jq: '[., $steps.fallback]'
        """,
    )
    assert (await wf.run("e.yml", "z")).value == ["else z", "else z"]
    assert "    -> no case matched, running 'else'" in wf.progress()
    wf.write("n.yml", "steps:\n  - id: sw\n    switch:\n      - when: 'false'\n        steps: [{jq: '1'}]\n")
    with pytest.raises(StepFailed, match=r"^step 'sw': no case matched and no 'else' is defined$"):
        await wf.run("n.yml", "z")


async def test_switch_shares_counter_and_recordings(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - switch:
              - when: 'true'
                steps:
                  - id: inside
                    jq: '"rec"'
          - jq: '$steps.inside'
        """,
    )
    assert (await wf.run("w.yml", "x")).value == "rec"
    assert wf.progress() == ["[1] step-1 (switch)", "    -> case 1 matched", "[2] inside", "[3] step-3 (jq)"]


async def test_parallel_results_in_declaration_order_and_copies_not_merged(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - id: before
            jq: '"b0"'
          - id: par
            parallel:
              slow:
                - run: [sh, -c, 'sleep 0.6; cat']
                - id: rec
                  jq: '{slow: ., saw: $steps.before}'
              fast:
                - jq: '. + "!"'
          - jq: '[.[]] + [$steps.rec, (. | keys_unsorted)]'
        """,
    )
    result = await wf.run("w.yml", "x")
    assert result.value == [{"slow": "b0", "saw": "b0"}, "b0!", None, ["slow", "fast"]]
    progress = wf.progress()
    assert "[slow] [1] step-3 (run)" in progress
    assert "[slow] [2] rec" in progress
    assert "[fast] [1] step-5 (jq)" in progress


async def test_parallel_fail_fast_cancels_siblings(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - id: par
            parallel:
              sleeper:
                - run: [sh, -c, 'sleep 30 & sleep 30; wait']
              failer:
                - run: [sh, -c, 'sleep 0.3; exit 7']
        """,
    )
    started = time.monotonic()
    with pytest.raises(
        StepFailed, match=r"^step 'par': step 'step-3 \(run\)': command 'sh' failed \(exit status: 7\)$"
    ):
        await wf.run("w.yml", "x")
    assert time.monotonic() - started < 20  # not the sleeper's 30 s
    assert len(wf.spawned) == 2
    assert all(live_group_members(p) == [] for p in wf.spawned)


async def test_for_each_sequential_loop_context_counter_and_break(wf: Harness) -> None:
    wf.write(
        "w2.yml",
        """
        input_schema: {type: object}
        steps:
          - id: loop
            for_each: '.items'
            steps:
              - jq: '{i: $loop.index, item: $loop.item, same: (. == $loop.item)}'
              - when: '.item == "c"'
                break: true
                output: '"broke at " + .item'
          - jq: '[., $loop]'
        """,
    )
    result = await wf.run("w2.yml", '{"items": ["a", "b", "c", "d"]}')
    assert result.value == [
        [
            {"i": 0, "item": "a", "same": True},
            {"i": 1, "item": "b", "same": True},
            "broke at c",
        ],
        None,
    ]
    progress = wf.progress()
    assert progress[:3] == ["[1] loop", "    -> iterating over 4 item(s)", "    -> item 1/4"]
    # the counter carries across items
    assert "[4] step-2 (jq)" in progress and "[7] step-3 (break)" in progress


async def test_for_each_needs_an_array_and_empty_gives_empty(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - id: f\n    for_each: '.'\n    steps: [{jq: '.'}]\n")
    with pytest.raises(StepFailed, match=r"^step 'f': 'for_each' must produce a JSON array, got a string$"):
        await wf.run("w.yml", "x")
    wf.write("e.yml", "steps:\n  - for_each: '[]'\n    steps: [{jq: 'error(\"never\")'}]\n")
    assert (await wf.run("e.yml", "x")).value == []


async def test_for_each_concurrent_item_order_limit_and_copies(wf: Harness) -> None:
    log = wf.root / "log"
    wf.write(
        "w.yml",
        f"""
        steps:
          - id: before
            jq: '"b"'
          - for_each: '[0.6, 0.1, 0.4, 0.1]'
            max_concurrency: 2
            steps:
              - run: [sh, -c, 'echo "start {{{{ loop.index }}}} $(date +%s.%N)" >> {log}; sleep {{{{ input }}}};
                      echo "end {{{{ loop.index }}}} $(date +%s.%N)" >> {log}; printf {{{{ loop.index }}}}']
              - id: mine
                jq: '{{i: ., before: $steps.before, other: $steps.mine}}'
          - jq: '[., $steps.mine]'
        """,
    )
    started = time.monotonic()
    result = await wf.run("w.yml", "x")
    elapsed = time.monotonic() - started
    items = [{"i": str(i), "before": "b", "other": None} for i in range(4)]
    assert result.value == [items, None]  # item order; recordings are per-item copies, never merged
    running = 0
    peak = 0
    for line in sorted(log.read_text().splitlines(), key=lambda s: float(s.split()[2])):
        running += 1 if line.startswith("start") else -1
        peak = max(peak, running)
    assert peak == 2
    assert 0.6 <= elapsed < 20
    progress = wf.progress()
    assert "[item-1] [1] step-3 (run)" in progress and "[item-4] [2] mine" in progress


async def test_for_each_concurrent_fail_fast(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - id: each
            for_each: '[30, 0]'
            max_concurrency: 4
            steps:
              - run: [sh, -c, 'sleep {{ input }}; exit 5']
        """,
    )
    started = time.monotonic()
    with pytest.raises(StepFailed, match="exit status: 5"):
        await wf.run("w.yml", "x")
    assert time.monotonic() - started < 20  # not the first item's 30 s
    assert all(live_group_members(p) == [] for p in wf.spawned)


async def test_while_checks_before_and_each_result_feeds_the_next(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        input_schema: {type: integer}
        steps:
          - while: '. < 5'
            max_iterations: 10
            steps:
              - jq: '. + 2 + ($loop.index * 0)'
        """,
    )
    assert (await wf.run("w.yml", "0")).value == 6
    assert (await wf.run("w.yml", "9")).value == 9  # zero iterations
    assert "    -> iteration 3/10" in (await _progress_after(wf, "w.yml", "0"))


async def _progress_after(wf: Harness, name: str, prompt: str) -> list[str]:
    await wf.run(name, prompt)
    return wf.progress()


async def test_while_max_iterations_exhaustion_is_an_error(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        input_schema: {type: integer}
        steps:
          - id: w
            while: 'true'
            max_iterations: 3
            steps: [{jq: '. + 1'}]
        """,
    )
    with pytest.raises(
        StepFailed, match=r"^step 'w': reached max_iterations \(3\) without satisfying 'while'$"
    ):
        await wf.run("w.yml", "0")
    # reaching the limit exactly when the condition turns false is fine
    wf.write(
        "ok.yml",
        "input_schema: {type: integer}\nsteps:\n  - while: '. < 3'\n    max_iterations: 3\n    steps: [{jq: '. + 1'}]\n",
    )
    assert (await wf.run("ok.yml", "0")).value == 3


async def test_until_checks_after_and_exhaustion(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        input_schema: {type: integer}
        steps:
          - until: 'true'
            max_iterations: 1
            steps: [{jq: '. + 100'}]
        """,
    )
    assert (await wf.run("w.yml", "0")).value == 100  # runs at least once
    wf.write(
        "x.yml",
        "steps:\n  - id: u\n    until: 'false'\n    max_iterations: 2\n    steps: [{jq: '.'}]\n",
    )
    with pytest.raises(StepFailed, match=r"reached max_iterations \(2\) without satisfying 'until'"):
        await wf.run("x.yml", "0")


async def test_break_in_while_through_group_and_switch(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        input_schema: {type: integer}
        steps:
          - id: loop
            while: 'true'
            max_iterations: 50
            steps:
              - jq: '. + 1'
              - group:
                  - switch:
                      - when: '. >= 3'
                        steps:
                          - output: '{stopped_at: .}'
                            break: true
                    else: [{jq: '.'}]
                output: '. + 0'  # would fail on the break value: not applied
            output: '{loop: .}'
          - jq: '[., "after"]'
        """,
    )
    assert (await wf.run("w.yml", "0")).value == [{"loop": {"stopped_at": 3}}, "after"]


async def test_break_in_on_error_ends_the_loop(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - for_each: '[1, 2, 3]'
            steps:
              - jq: 'if . == 2 then error("two") else . end'
                on_error:
                  - input: '.input'
                    break: true
        """,
    )
    assert (await wf.run("w.yml", "x")).value == [1, 2]


async def test_nested_loops_innermost_context(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - for_each: '[10, 20]'
            steps:
              - for_each: '[1, 2]'
                steps:
                  - jq: '$loop.item + $loop.index'
              - jq: '[., $loop.item]'
        """,
    )
    assert (await wf.run("w.yml", "x")).value == [[[1, 3], 10], [[1, 3], 20]]


async def test_stop_inside_loops_ends_the_workflow(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        output: '{stopped: .}'
        steps:
          - for_each: '[1, 2, 3]'
            steps:
              - while: 'true'
                max_iterations: 5
                steps:
                  - when: '. == 2'
                    input: '"stopped at two"'
                    stop: true
                  - break: true
          - jq: '"not reached"'
        """,
    )
    assert (await wf.run("w.yml", "x")).value == {"stopped": "stopped at two"}


async def test_named_outputs_survive_break_and_stop(wf: Harness) -> None:
    """A named step records its value before an inner `break`/`stop` bubbles up through it: a
    `switch` and a `group` branch, an `on_error` list, a loop ended by `stop`."""
    wf.write(
        "w.yml",
        """
        steps:
          - while: 'true'
            max_iterations: 5
            steps:
              - id: route
                switch:
                  - when: '. == "x"'
                    steps:
                      - jq: '"routed"'
                      - break: true
                else: [{jq: '.'}]
                output: '"not applied"'
          - id: grouped
            while: 'true'
            max_iterations: 5
            steps:
              - id: g
                group:
                  - jq: '{n: 1}'
                  - break: true
          - id: handled
            for_each: '[1]'
            steps:
              - id: risky
                jq: 'error("boom")'
                on_error:
                  - input: '.error'
                    break: true
          - jq: '{route: $steps.route, g: $steps.g, risky: $steps.risky, handled: $steps.handled}'
        """,
    )
    assert (await wf.run("w.yml", "x")).value == {
        "route": "routed",
        "g": {"n": 1},
        "risky": "'jq': boom",
        "handled": ["'jq': boom"],
    }
    # `stop` in a child workflow ends the child; the child's `output:` sees what the named
    # steps the stop passed through recorded.
    wf.write(
        "child.yml",
        """
        output: '{inner: $steps.inner, outer: $steps.outer}'
        steps:
          - id: outer
            for_each: '[1, 2]'
            steps:
              - id: inner
                switch:
                  - when: '. == 2'
                    steps: [{jq: '. * 10'}, {stop: true}]
                else: [{jq: '.'}]
        """,
    )
    wf.write("parent.yml", "steps:\n  - id: c\n    workflow: child.yml\n  - jq: '$steps.c'\n")
    assert (await wf.run("parent.yml", "x")).value == {"inner": 20, "outer": 20}
