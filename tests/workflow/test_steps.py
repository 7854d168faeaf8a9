"""Leaf step kinds: jq, run (argv templates, stdin = text form, env/cwd, failures), write, ask,
decide, and the text form at text boundaries (docs/workflows.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lait_core.engine.workflow import DecideNotSupported, StepFailed
from tests.workflow.conftest import Harness


async def test_jq_step_typed_values_and_globals(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        inputs:
          n: integer
        steps:
          - id: first
            jq: '{text: ., n: $inputs.n, loop: $loop}'
          - jq: '[$steps.first.n, $steps.missing, .text]'
        """,
    )
    result = await wf.run("w.yml", None, inputs={"n": "3"})
    assert result.value == [3, None, None]
    wf.write("v.yml", "steps:\n  - jq: '{a: [1, \"x\"], b: null}'\n")
    result = await wf.run("v.yml", "p")
    assert result.value == {"a": [1, "x"], "b": None}
    assert result.text == '{"a":[1,"x"],"b":null}'


async def test_jq_exactly_one_value(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - jq: '.[]'\n")
    with pytest.raises(StepFailed) as info:
        await wf.run("w.yml", "x")
    assert "step 'step-1 (jq)'" in str(info.value)
    wf.write("w2.yml", "steps:\n  - input: '[1,2]'\n    jq: '.[]'\n")
    with pytest.raises(StepFailed, match="produced 2 values; exactly one is required"):
        await wf.run("w2.yml", "x")
    wf.write("w3.yml", "steps:\n  - jq: 'empty'\n")
    with pytest.raises(StepFailed, match="produced no value"):
        await wf.run("w3.yml", "x")


async def test_strings_that_look_like_json_are_not_reparsed(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - run: [printf, '{"a": 1}']
          - id: kept
            jq: 'type'
          - input: '$steps.kept'
            jq: '.'
        """,
    )
    assert (await wf.run("w.yml", "x")).value == "string"
    wf.write("w2.yml", "steps:\n  - run: [printf, '{\"a\": 1}']\n    output: 'fromjson | .a'\n")
    assert (await wf.run("w2.yml", "x")).value == 1


async def test_run_step_argv_templates_stdin_text_form_and_newline(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - jq: '{name: "a b", list: [1, 2]}'
          - id: argv
            run: [sh, -c, 'printf "%s|%s|" "$0" "$1"; cat; printf "\\n\\n"', '{{ input.name }}', '{{ input.list }}']
        """,
    )
    result = await wf.run("w.yml", "x")
    # one trailing newline removed, not two; stdin is the compact JSON text form
    assert result.value == 'a b|[1,2]|{"name":"a b","list":[1,2]}\n'


async def test_run_step_env_expansion_and_cwd(wf: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    (wf.root / "sub").mkdir()
    monkeypatch.setenv("LAIT_WF_TEST", "expanded")
    wf.write(
        "w.yml",
        """
        steps:
          - run: [sh, -c, 'printf "%s|%s|%s" "$GREETING" "$PWD" "$HOME_KEPT"']
            env:
              PATH: '${PATH}'
              GREETING: 'hi ${LAIT_WF_TEST}'
              HOME_KEPT: '${HOME}'
            cwd: sub
        """,
    )
    result = await wf.run("w.yml", "x")
    greeting, pwd, home = result.value.split("|")
    assert greeting == "hi expanded"
    assert Path(pwd).resolve() == (wf.root / "sub").resolve()
    assert home == os.environ["HOME"]
    assert wf.spawned, "on_spawn saw the child"


CANARY = "LAIT_CANARY_SECRET"


async def test_run_step_env_is_an_allowlist(wf: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """Like a shell tool's `env:` (seed 001): a non-empty `env:` is the child's whole environment."""
    monkeypatch.setenv(CANARY, "canary-7f3a9c")
    wf.write(
        "w.yml",
        """
        steps:
          - id: listed
            run: [env]
            env:
              PATH: '${PATH}'
              SAFE: 'ok'
          - id: granted
            run: [env]
            env:
              PATH: '${PATH}'
              LAIT_CANARY_SECRET: '${LAIT_CANARY_SECRET}'
          - id: inherited
            run: [env]
          - jq: '[$steps.listed, $steps.granted, $steps.inherited]'
        """,
    )
    listed, granted, inherited = (await wf.run("w.yml", "x")).value
    names = {line.split("=", 1)[0] for line in listed.splitlines()}
    assert "canary-7f3a9c" not in listed
    assert names == {"PATH", "SAFE"}, "HOME, keys and the canary are absent unless listed"
    assert f"{CANARY}=canary-7f3a9c" in granted.splitlines()
    assert "HOME" not in {line.split("=", 1)[0] for line in granted.splitlines()}
    # no env: lait's environment is inherited unchanged
    assert f"{CANARY}=canary-7f3a9c" in inherited.splitlines()


async def test_run_step_allowlist_without_path(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - id: r\n    run: [env]\n    env:\n      SAFE: ok\n")
    with pytest.raises(StepFailed, match=r"'env' not found on the PATH of the step's env allowlist"):
        await wf.run("w.yml", "x")
    wf.write("abs.yml", "steps:\n  - run: [/usr/bin/env]\n    env:\n      SAFE: ok\n")
    assert (await wf.run("abs.yml", "x")).value == "SAFE=ok"


async def test_run_step_unset_env_var_is_an_error(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - run: ['true']\n    env:\n      X: '${LAIT_SURELY_UNSET_VAR}'\n")
    with pytest.raises(StepFailed, match="LAIT_SURELY_UNSET_VAR"):
        await wf.run("w.yml", "x")


async def test_run_step_failure_includes_stderr_and_status(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - id: boom\n    run: [sh, -c, 'echo bad thing >&2; exit 3']\n")
    with pytest.raises(StepFailed) as info:
        await wf.run("w.yml", "x")
    message = str(info.value)
    assert message.startswith("step 'boom': command 'sh' failed (exit status: 3)")
    assert "bad thing" in message


async def test_run_never_uses_a_shell(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - run: [echo, '$HOME; echo `id`']\n")
    assert (await wf.run("w.yml", "x")).value == "$HOME; echo `id`"


async def test_run_missing_program(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - run: [lait-no-such-program-xyz]\n")
    with pytest.raises(StepFailed, match="failed to spawn 'lait-no-such-program-xyz'"):
        await wf.run("w.yml", "x")


async def test_write_step_writes_text_form_and_passes_value(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - jq: '{k: [1]}'
          - write: 'out-{{ input.k }}.json'
          - write: 'plain.txt'
            input: '"text"'
        """,
    )
    result = await wf.run("w.yml", "x")
    assert result.value == "text"
    assert (wf.root / "out-[1].json").read_text() == '{"k":[1]}'
    assert (wf.root / "plain.txt").read_text() == "text"


async def test_write_never_creates_parent_directories(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - write: 'nodir/x.txt'\n")
    with pytest.raises(StepFailed, match=r"cannot write 'nodir/x\.txt'"):
        await wf.run("w.yml", "x")
    assert not (wf.root / "nodir").exists()


async def test_ask_step_answers_defaults_and_choices(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - id: q
            ask: 'Continue with {{ input }}?'
            choices: [yes, no]
            default: 'no'
        """,
    )
    assert (await wf.run("w.yml", "plan")).value == "no"
    assert (await wf.run("w.yml", "plan", answers={"Continue with plan?": "yes"})).value == "yes"
    with pytest.raises(StepFailed, match="the answer 'maybe' is not one of the choices: yes, no"):
        await wf.run("w.yml", "plan", answers={"Continue with plan?": "maybe"})
    wf.write("n.yml", "steps:\n  - ask: 'Name?'\n")
    with pytest.raises(StepFailed, match="not an interactive terminal"):
        await wf.run("n.yml", "x")


async def test_decide_step_is_valid_but_not_runnable(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - jq: '1'
          - id: d
            decide:
              urgent: {type: noul}
        """,
    )
    with pytest.raises(StepFailed) as info:
        await wf.run("w.yml", "x")
    assert isinstance(info.value.__cause__, DecideNotSupported)
    assert "decide steps are not supported yet" in str(info.value)


async def test_run_step_missing_cwd(wf: Harness) -> None:
    wf.write("w.yml", "steps:\n  - id: r\n    run: [pwd]\n    cwd: nowhere\n")
    with pytest.raises(StepFailed, match=r"^step 'r': 'cwd' 'nowhere' is not a directory$"):
        await wf.run("w.yml", "x")
