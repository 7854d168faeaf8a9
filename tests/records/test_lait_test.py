"""`lait test` (docs/testing.md, issue 14): test files replay a workflow from a cassette
recorded here against the scripted model server (stopped before the tests run) and assert on the
output, the trajectory (tool calls, step outputs) and the usage; real `lait` subprocesses."""

from __future__ import annotations

import json

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer
from tests.records.test_record_replay import WORKFLOW, script

PASSING = """\
workflow: wf.yml
input: cats
replay: tape
assert:
  - type: equals
    value: {research: shouted and added, items: [item one, item two]}
  - type: contains
    value: shouted and
  - type: jq
    expr: '.items | length == 2'
  - type: tool_called
    name: tool__shout
    max: 1
    args_jq: '.word == "cats"'
  - type: usage
    max_prompt_tokens: 21
    max_total_tokens: 30
  - type: step_output
    id: research
    assert:
      - type: equals
        value: shouted and added
      - type: tool_called
        name: peer__add
"""

FAILING = """\
workflow: wf.yml
input: cats
replay: tape
assert:
  - type: equals
    value: nope
  - type: contains
    value: absent
  - type: jq
    expr: '.items | length == 3'
  - type: tool_called
    name: tool__shout
    args_jq: '.word == "dogs"'
  - type: tool_called
    name: peer__add
    min: 2
  - type: usage
    max_total_tokens: 20
  - type: step_output
    id: research
    assert:
      - type: contains
        value: cats
  - type: step_output
    id: nowhere
    assert: []
  - type: llm_judge
    criteria: is it good
  - type: contains
    value: item two
"""


def recorded(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", WORKFLOW)
    script(server)
    run = project("run", "wf.yml", "cats", "--record", "tape")
    assert run.returncode == 0, run.stderr
    server.stop()


def test_a_passing_file_passes_without_the_model(project: Lait, server: ScriptedOpenAIServer) -> None:
    recorded(project, server)
    project.write("tests/ok.yml", PASSING.replace("wf.yml", "../wf.yml").replace("tape", "../tape"))
    result = project("test", "tests/ok.yml")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "tests/ok.yml: PASS\n1 passed, 0 failed, 1 total\n"


def test_each_assertion_type_fails_with_its_message(project: Lait, server: ScriptedOpenAIServer) -> None:
    recorded(project, server)
    project.write("bad.yml", FAILING)
    result = project("test", "bad.yml")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "bad.yml: FAIL"
    assert lines[-1] == "0 passed, 1 failed, 1 total"
    body = lines[1:-1]
    assert [line.split(":", 1)[0] for line in body] == [f"  assertion {n}" for n in range(1, 10)]
    text = '"{\\"research\\":\\"shouted and added\\",\\"items\\":[\\"item one\\",\\"item two\\"]}"'
    assert body == [
        f'  assertion 1: equals: expected "nope", got {text}',
        f'  assertion 2: contains: "absent" not found in {text}',
        f"  assertion 3: jq: .items | length == 3 is not truthy on {text}",
        "  assertion 4: tool_called: no call of 'tool__shout' has arguments satisfying .word == \"dogs\"",
        "  assertion 5: tool_called: 'peer__add' was called 1 time(s), expected at least 2",
        "  assertion 6: usage: total tokens 30 > 20",
        '  assertion 7: step_output \'research\': assertion 1: contains: "cats" not found in "shouted and added"',
        "  assertion 8: step_output: no output of step 'nowhere'",
        "  assertion 9: llm_judge: not supported in lait test (use lait eval)",
    ]


def test_the_json_report_whole_and_a_replay_miss_names_the_step(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    recorded(project, server)
    up = PASSING.replace("tape", "../tape")
    project.write("suite/a_ok.yml", up.replace("wf.yml", "../wf.yml"))
    project.write("suite/b_edited.yml", up.replace("wf.yml", "../edited.yml"))
    project.write("edited.yml", WORKFLOW.replace("Research {{ input }}", "Study {{ input }}"))
    result = project("test", "--format", "json", "suite", "suite/a_ok.yml")  # named twice: run once
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    miss = report[1]["failures"][0]
    key = miss.split("(key ", 1)[1].split(")", 1)[0]
    assert len(key) == 64
    tape = project.cwd / "tape"
    assert report == [
        {"file": "suite/a_ok.yml", "status": "pass", "failures": []},
        {
            "file": "suite/b_edited.yml",
            "status": "fail",
            "failures": [
                f"step 'research': replay: no recording of the request of research to model 'main' (key {key}): expected "
                f"'{tape}/{key}.json'; record it with `lait test --record suite/b_edited.yml`"
            ],
        },
    ]


def test_unknown_keys_are_located_and_targets_are_checked(project: Lait) -> None:
    project.write(
        "suite/t.yml", "workflow: wf.yml\nreplay: tape\nasert: []\nassert:\n  - type: equals\n    valeu: 1\n"
    )
    project.write("suite/.hidden/x.yml", "not: a test\n")
    project.write("suite/node_modules/x.yml", "not: a test\n")
    project.write("suite/notes.txt", "ignored\n")
    result = project("test", "suite")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "suite/t.yml: FAIL"
    assert lines[-1] == "0 passed, 1 failed, 1 total"
    assert lines[1].startswith("  suite/t.yml:3:1: ") and "asert" in lines[1]
    assert "  suite/t.yml:5:5: 'assert[0]' is missing the required key 'value'" in lines
    assert any(line.startswith("  suite/t.yml:6:5: ") and "valeu" in line for line in lines)
    (project.cwd / "link.yml").symlink_to(project.cwd / "suite" / "t.yml")
    link = project("test", "link.yml")
    assert link.returncode == 1  # a general error, as a missing file (docs/cli.md)
    assert link.stderr == "lait: 'link.yml' is a symbolic link; name the file it points to\n"
    assert project("test", "missing.yml").stderr == "lait: no such file or directory 'missing.yml'\n"
