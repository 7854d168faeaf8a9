"""`lait eval FILE` (docs/testing.md, issue 14) against the scripted model server: cases x
``--repeat``, a model target and a workflow target, ``llm_judge`` (a strict Structured Outputs call
named ``llm_judge_score``), per-case pass rates, the text and JSON reports (the JSON asserted whole)
and exit codes; real `lait` subprocesses.

The runs of an eval are concurrent, so the server answers by the request's last message
(``ScriptedOpenAIServer.route``) instead of by arrival order; runs of one case that end
differently are compared in a fixed order (the report keeps each run's number, but which
concurrent run got which answer is not fixed)."""

from __future__ import annotations

import json
import sys
import uuid
from typing import Any

import pexpect

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, error, text, tool_calls
from tests.processes import running_with_marker
from tests.records.conftest import CANARY, assert_no_canary
from tests.records.test_record_replay import WORKFLOW as RECORDED_WORKFLOW

MODEL_EVAL = """\
target:
  model: main
  prompt: 'Say {{ input.word }}'
cases:
  - input: '{"word": "alpha"}'
    assert:
      - type: contains
        value: ALPHA
      - type: llm_judge
        criteria: It is shouted.
  - input: '{"word": "beta"}'
    assert:
      - type: equals
        value: BETA
      - type: llm_judge
        criteria: It is shouted.
        threshold: 0.9
  - input: '{"word": "gamma"}'
    assert:
      - type: contains
        value: GAMMA
"""


def judge(score: float, reasoning: str) -> dict[str, Any]:
    return text(json.dumps({"score": score, "reasoning": reasoning}))


def test_model_target_rates_judge_and_the_json_report_whole(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    project.write("evals/shout.yml", MODEL_EVAL)
    server.route("Say alpha", text("ALPHA!"), text("ALPHA!"))
    server.route("Say beta", text("BETA"), text("beta"))
    server.route("Say gamma", error(400, "bad request"), error(400, "bad request"))
    server.route("\nALPHA!\n", judge(0.9, "shouted"), judge(0.9, "shouted"))
    server.route("\nBETA\n", judge(0.8, "mostly"))
    server.route("\nbeta\n", judge(0.1, "quiet"))
    result = project("eval", "evals/shout.yml", "--repeat", "2", "--format", "json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    for case in report:
        case["runs"].sort(key=json.dumps)
    gamma = f"request to {server.url} failed: HTTP 400: bad request"  # a run error: its one failure
    assert report == [
        {
            "case": 1,
            "input": '{"word": "alpha"}',
            "passed": 2,
            "total": 2,
            "success_rate": 1.0,
            "runs": [{"passed": True, "failures": []}, {"passed": True, "failures": []}],
        },
        {
            "case": 2,
            "input": '{"word": "beta"}',
            "passed": 0,
            "total": 2,
            "success_rate": 0.0,
            "runs": [
                {
                    "passed": False,
                    "failures": [
                        'assertion 1: equals: expected "BETA", got "beta"',
                        "assertion 2: llm_judge: score 0.1 is below the threshold 0.9: quiet",
                    ],
                },
                {
                    "passed": False,
                    "failures": ["assertion 2: llm_judge: score 0.8 is below the threshold 0.9: mostly"],
                },
            ],
        },
        {
            "case": 3,
            "input": '{"word": "gamma"}',
            "passed": 0,
            "total": 2,
            "success_rate": 0.0,
            "runs": [{"passed": False, "failures": [gamma]}, {"passed": False, "failures": [gamma]}],
        },
    ]
    # The requests: the target is one call with no system prompt and no tools, the input parsed as
    # JSON for the template; the judge is a strict structured-output call.
    bodies = server.bodies
    targets = [b for b in bodies if b["messages"][-1]["content"].startswith("Say ")]
    assert (
        sorted(b["messages"][0]["content"] for b in targets)
        == ["Say alpha"] * 2 + ["Say beta"] * 2 + ["Say gamma"] * 2
    )
    assert all(len(b["messages"]) == 1 and "tools" not in b and "response_format" not in b for b in targets)
    judges = [b for b in bodies if b not in targets]
    assert len(judges) == 4
    for body in judges:
        assert [m["role"] for m in body["messages"]] == ["user"]
        prompt = body["messages"][0]["content"]
        assert "It is shouted." in prompt and '{"word": ' in prompt
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {
                "name": "llm_judge_score",
                "strict": True,
                "schema": {
                    "type": "object",
                    "properties": {"score": {"type": "number"}, "reasoning": {"type": "string"}},
                    "required": ["score", "reasoning"],
                    "additionalProperties": False,
                },
            },
        }
    # Progress without a terminal: one plain line per finished case, on stderr.
    assert sorted(result.stderr.splitlines()) == [
        "case 1: 2/2 runs passed",
        "case 2: 0/2 runs passed",
        "case 3: 0/2 runs passed",
    ]
    assert_no_canary(project.cwd)


WORKFLOW = """\
name: greet
inputs:
  style: {type: string}
steps:
  - id: hello
    prompt: "Greet {{ input }} in a {{ inputs.style }} way"
  - jq: '{greeting: $steps.hello}'
"""

WORKFLOW_EVAL = """\
target:
  workflow: ../wf.yml
  inputs: {style: warm}
cases:
  - input: Ada
    assert:
      - type: jq
        expr: '.greeting | startswith("Hello")'
      - type: step_output
        id: hello
        assert:
          - type: llm_judge
            criteria: It is warm.
            model: main
      - type: usage
        max_total_tokens: 10
"""


def test_workflow_target_partial_rate_and_the_text_report(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    project.write("wf.yml", WORKFLOW)
    project.write("evals/greet.yml", WORKFLOW_EVAL)
    usage = {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}
    server.route(
        "Greet Ada in a warm way", *[text("Hello Ada", usage=usage)] * 2, text("Bye Ada", usage=usage)
    )
    server.route("\nHello Ada\n", judge(1, "warm"), judge(0.5, "lukewarm"))
    server.route("\nBye Ada\n", judge(0.2, "cold"))
    result = project("eval", "evals/greet.yml", "--repeat", "3")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "case 1: 1/3 (33%) FAIL"
    assert lines[-1] == "0 of 1 case(s) fully passed"
    failures = sorted(line.split(": ", 1)[1] for line in lines[1:-1])
    assert all(line.startswith("  run ") for line in lines[1:-1])
    assert failures == [
        'assertion 1: jq: .greeting | startswith("Hello") is not truthy on "{\\"greeting\\":\\"Bye Ada\\"}"',
        "assertion 2: step_output 'hello': assertion 1: llm_judge: score 0.2 is below the threshold 0.7: cold",
        "assertion 2: step_output 'hello': assertion 1: llm_judge: score 0.5 is below the threshold 0.7: lukewarm",
    ]
    assert server.remaining == 0
    steps = [b for b in server.bodies if b["messages"][-1]["content"].startswith("Greet")]
    assert len(steps) == 3


def test_all_cases_pass_exit_zero_and_bad_files(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write(
        "ok.yml",
        "target: {model: main, prompt: '{{ input }}'}\ncases:\n  - input: hi\n    assert: [{type: contains, value: yo}]\n",
    )
    server.route("hi", *[text("yo")] * 3)
    result = project("eval", "ok.yml", "--repeat", "0")  # below 1 counts as 1
    assert (result.returncode, result.stdout) == (0, "case 1: 1/1 (100%) PASS\n1 of 1 case(s) fully passed\n")
    project.write("bad.yml", "target:\n  model: main\ncases:\n  - input: 1\n    asert: []\n")
    bad = project("eval", "bad.yml")
    assert (bad.returncode, bad.stdout) == (3, "")
    assert bad.stderr.splitlines() == [
        "bad.yml:2:3: 'target': needs 'workflow' (a workflow file) or both 'model' and 'prompt'",
        "bad.yml:4:12: 'cases[0].input' must be a string (got the integer 1)",
        "bad.yml:5:5: unknown key 'asert' in 'cases[0]'; did you mean 'assert'?",
        "lait: 'bad.yml' is not a valid eval file (3 errors)",
    ]
    missing = project("eval", "missing.yml")
    assert (missing.returncode, missing.stderr) == (1, "lait: no such file 'missing.yml'\n")
    fmt = project("eval", "ok.yml", "--format", "xml")
    assert (fmt.returncode, fmt.stderr) == (
        2,
        "lait: --format must be text, json, junit or github (got 'xml')\n",
    )


TRAJECTORY_EVAL = """\
target:
  workflow: wf.yml
cases:
  - input: cats
    assert:
      - type: tool_called
        name: tool__shout
        max: 1
        args_jq: '.word == "cats"'
      - type: tool_called
        name: peer__add
      - type: step_output
        id: research
        assert:
          - type: equals
            value: shouted and added
      - type: jq
        expr: '.items == ["item one", "item two"]'
"""


def test_trajectory_assertions_per_run_and_no_process_left(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    marker = uuid.uuid4().hex
    project.env["LAIT_TEST_MARKER"] = marker  # the MCP peer and the shell tool inherit it
    project.write("wf.yml", RECORDED_WORKFLOW)
    project.write("e.yml", TRAJECTORY_EVAL)
    calls = tool_calls(
        call("tool__shout", {"word": "cats"}, id="c1"), call("peer__add", {"a": 2, "b": 3}, id="c2")
    )
    server.route("Research cats", calls, calls)
    server.route("Item a", text("item one"), text("item one"))
    server.route("Item b", text("item two"), text("item two"))
    server.push(text("shouted and added"), text("shouted and added"))  # the answers after the tool round
    result = project("eval", "e.yml", "--repeat", "2")
    assert (result.returncode, result.stdout) == (0, "case 1: 2/2 (100%) PASS\n1 of 1 case(s) fully passed\n")
    after_tools = [b for b in server.bodies if b["messages"][-1]["role"] == "tool"]
    assert len(after_tools) == 2  # each run made its own tool round (its own trace)
    assert CANARY not in result.stdout + result.stderr
    assert_no_canary(project.cwd)
    assert running_with_marker(marker) == []


def test_a_progress_bar_on_a_terminal(project: Lait, server: ScriptedOpenAIServer) -> None:
    """On a terminal the progress is rich's bar (its line characters and the run count), not the
    plain per-case lines; the report follows."""
    project.write(
        "ok.yml", "target: {model: main, prompt: '{{ input }}'}\ncases:\n  - input: hi\n    assert: []\n"
    )
    server.route("hi", *[text("yo")] * 3)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "lait_cli.main", "eval", "ok.yml", "--repeat", "3"],
        cwd=str(project.cwd),
        env={**project.env, "TERM": "xterm-256color", "COLUMNS": "100"},
        encoding="utf-8",
        timeout=120,
    )
    output = child.read()
    child.close()
    assert child.exitstatus == 0, output
    assert "━" in output and "3/3" in output, output
    assert "runs passed" not in output
    assert output.replace("\r\n", "\n").endswith("case 1: 3/3 (100%) PASS\n1 of 1 case(s) fully passed\n"), (
        output
    )
