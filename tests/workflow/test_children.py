"""Child workflows (`workflow:` steps; docs/workflows.md): path vs registry, `with:` binding, per-file
scopes, `stop` local to the child, child `output`/`timeout`, cycles, depth 32, validation and the
placement check of children called from concurrent contexts."""

from __future__ import annotations

import pytest

from lait_core.engine.workflow import StepFailed, WorkflowLoadError, WorkflowTimedOut
from tests.workflow.conftest import Harness


async def test_child_with_binding_scope_stop_and_output(wf: Harness) -> None:
    wf.write(
        "flows/child.yml",
        """
        name: child
        description: does the child thing
        inputs:
          greeting: string
          times: {type: integer, default: 2}
        output: '{result: ., inputs: $inputs, own: $steps.inner}'
        steps:
          - id: inner
            jq: '[$inputs.greeting, ., $steps.parent_rec]'
          - stop: true
          - jq: '"not reached"'
        """,
    )
    wf.write(
        "main.yml",
        """
        inputs:
          secret: {type: string, default: s}
        steps:
          - id: parent_rec
            jq: '"p"'
          - id: call
            input: '{v: 1}'
            workflow: flows/child.yml
            with: '{greeting: "hi"}'
          - jq: '[., $steps.inner, $steps.call.own]'
        """,
    )
    result = await wf.run("main.yml", None)
    child = {
        "result": ["hi", {"v": 1}, None],
        "inputs": {"greeting": "hi", "times": 2},
        "own": ["hi", {"v": 1}, None],
    }
    assert result.value == [child, None, child["own"]]
    progress = wf.progress()
    assert progress[:4] == [
        "[1] parent_rec",
        "[2] call",
        "    -> child: does the child thing",
        "    [1] inner",
    ]
    assert "    [2] step-2 (stop)" in progress
    assert "[3] step-3 (jq)" in progress


async def test_with_must_be_an_object_and_binds_declared_inputs(wf: Harness) -> None:
    wf.write("child.yml", "inputs:\n  a: string\nsteps:\n  - jq: '$inputs.a'\n")
    wf.write("bad.yml", "steps:\n  - id: c\n    workflow: ./child.yml\n    with: '[1]'\n")
    with pytest.raises(StepFailed, match=r"^step 'c': 'with' must produce an object, got an array$"):
        await wf.run("bad.yml", "x")
    wf.write("unknown.yml", "steps:\n  - id: c\n    workflow: ./child.yml\n    with: '{a: \"x\", b: 1}'\n")
    with pytest.raises(StepFailed, match="unknown input 'b'; the workflow declares: a"):
        await wf.run("unknown.yml", "x")
    wf.write("missing.yml", "steps:\n  - id: c\n    workflow: ./child.yml\n")
    with pytest.raises(StepFailed, match="missing required input 'a'"):
        await wf.run("missing.yml", "x")
    wf.write("typed.yml", "steps:\n  - id: c\n    workflow: ./child.yml\n    with: '{a: 5}'\n")
    with pytest.raises(StepFailed, match=r"inputs\.a must be of type string \(got integer\)"):
        await wf.run("typed.yml", "x")


async def test_child_input_schema_validates_the_step_input(wf: Harness) -> None:
    wf.write("child.yml", "input_schema: {type: object, required: [n]}\nsteps:\n  - jq: '.n'\n")
    wf.write("main.yml", "steps:\n  - id: c\n    input: '{n: 4}'\n    workflow: child.yml\n")
    assert (await wf.run("main.yml", "x")).value == 4
    wf.write("bad.yml", "steps:\n  - id: c\n    workflow: child.yml\n")
    with pytest.raises(StepFailed, match="input must be of type object"):
        await wf.run("bad.yml", "x")


async def test_child_paths_are_relative_to_the_calling_file(wf: Harness) -> None:
    wf.write("a/one.yml", "steps:\n  - workflow: ../b/two.yml\n")
    wf.write("b/two.yml", "steps:\n  - workflow: three.yml\n")
    wf.write("b/three.yml", "steps:\n  - jq: '\"deep \" + .'\n")
    assert (await wf.run("a/one.yml", "x")).value == "deep x"


async def test_registry_child_resolves_against_the_config_dir(wf: Harness) -> None:
    wf.write("lib/named.yml", "steps:\n  - jq: '\"named \" + .'\n")
    wf.config_data = {"workflows": {"named": "lib/named.yml"}}
    wf.write("sub/main.yml", "steps:\n  - workflow: named\n")
    assert (await wf.run("sub/main.yml", "x")).value == "named x"
    wf.write("sub/unknown.yml", "steps:\n  - id: c\n    workflow: nope\n")
    with pytest.raises(
        StepFailed,
        match=r"workflow 'nope' is not registered under 'workflows:' in lait\.config\.yml; use a path",
    ):
        await wf.run("sub/unknown.yml", "x")


async def test_cycle_detection(wf: Harness) -> None:
    wf.write("a.yml", "steps:\n  - id: to_b\n    workflow: b.yml\n")
    wf.write("b.yml", "steps:\n  - id: to_a\n    workflow: ./a.yml\n")
    with pytest.raises(StepFailed) as info:
        await wf.run("a.yml", "x")
    assert str(info.value) == "step 'to_b': step 'to_a': 'workflow: ./a.yml' would create a cycle"
    wf.write("self.yml", "steps:\n  - id: me\n    workflow: self.yml\n")
    with pytest.raises(StepFailed, match="would create a cycle"):
        await wf.run("self.yml", "x")


async def test_depth_limit_32(wf: Harness) -> None:
    for i in range(40):
        wf.write(f"d{i}.yml", f"steps:\n  - jq: '. + 1'\n  - workflow: d{i + 1}.yml\n")
    wf.write("d40.yml", "steps:\n  - jq: '.'\n")
    # the top file is depth 0; d9 ... d40 are depths 1 ... 32
    wf.write("ok32.yml", "input_schema: {type: integer}\nsteps:\n  - workflow: d9.yml\n")
    assert (await wf.run("ok32.yml", "0")).value == 31
    wf.write("too_deep.yml", "input_schema: {type: integer}\nsteps:\n  - workflow: d8.yml\n")
    with pytest.raises(StepFailed, match="exceeds the maximum workflow nesting depth of 32"):
        await wf.run("too_deep.yml", "0")


async def test_invalid_child_fails_before_it_runs(wf: Harness) -> None:
    marker = wf.root / "ran"
    wf.write("child.yml", f"steps:\n  - run: [touch, '{marker}']\n  - jq: '.['\n")
    wf.write("main.yml", "steps:\n  - id: c\n    workflow: child.yml\n")
    with pytest.raises(StepFailed) as info:
        await wf.run("main.yml", "x")
    assert isinstance(info.value.__cause__, WorkflowLoadError)
    assert "child.yml:3:11: LAIT402" in str(info.value) and "LAIT402" in str(info.value)
    assert not marker.exists()


async def test_child_placement_checked_when_called_concurrently(wf: Harness) -> None:
    wf.write("asker.yml", "steps:\n  - ask: 'Name?'\n    default: n\n")
    wf.write("writer.yml", "steps:\n  - write: fixed.txt\n")
    wf.write("par.yml", "steps:\n  - id: p\n    parallel:\n      a: [{workflow: asker.yml}]\n")
    with pytest.raises(StepFailed, match="'ask' cannot run inside a 'parallel' branch"):
        await wf.run("par.yml", "x")
    wf.write(
        "each.yml",
        "steps:\n  - for_each: '[1,2]'\n    max_concurrency: 2\n    steps: [{workflow: writer.yml}]\n",
    )
    with pytest.raises(StepFailed, match="with a fixed path cannot run inside a concurrent 'for_each'"):
        await wf.run("each.yml", "x")
    assert not (wf.root / "fixed.txt").exists()
    wf.write("seq.yml", "steps:\n  - workflow: asker.yml\n")
    assert (await wf.run("seq.yml", "x")).value == "n"


async def test_child_timeout_and_caller_on_error(wf: Harness) -> None:
    wf.write("slow.yml", "timeout: 1\nsteps:\n  - run: [sleep, '20']\n")
    wf.write("main.yml", "steps:\n  - id: c\n    workflow: slow.yml\n    on_error:\n      - jq: '.error'\n")
    assert (await wf.run("main.yml", "x")).value == "workflow timed out after 1s ('timeout')"
    wf.write("plain.yml", "steps:\n  - id: c\n    workflow: slow.yml\n")
    with pytest.raises(StepFailed) as info:
        await wf.run("plain.yml", "x")
    assert isinstance(info.value.__cause__, WorkflowTimedOut)


async def test_children_are_loaded_once_per_run(wf: Harness) -> None:
    wf.write("child.yml", "steps:\n  - jq: '. * 2'\n")
    wf.write("main.yml", "steps:\n  - for_each: '[1, 2, 3]'\n    steps: [{workflow: child.yml}]\n")
    assert (await wf.run("main.yml", "x")).value == [2, 4, 6]
