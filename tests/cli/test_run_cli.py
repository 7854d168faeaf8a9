"""`lait run FILE|NAME [PROMPT]` as a real subprocess against the scripted OpenAI-compatible server
(docs/workflows.md, docs/cli.md): progress on stderr and the
result alone on stdout, `--json`, `-o`, `--show-usage`, registry names, `--input` binding and the
stdin rules, `--dry-run` calling nothing, located errors for invalid files, and the exit codes of
failing, erroring and timed-out runs (a timed-out `run:` leaves no process behind)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, error, text

DEMO = """\
name: demo
description: A small demo.
steps:
  - id: ask
    prompt: "Say something about {{ input }}"
  - id: shape
    jq: '{text: ., n: 2}'
  - id: each
    for_each: '[range(.n)]'
    steps:
      - run: [python3, -c, "import sys; print('item', sys.stdin.read())"]
  - jq: '{first: $steps.ask, items: .}'
"""
USAGE = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}


@pytest.fixture
def project(lait_no_model_env: Lait, server: ScriptedOpenAIServer) -> Lait:
    """A project whose default model is served by the scripted server."""
    lait = lait_no_model_env
    lait.write("lait.config.yml", f"base_url: {server.url}\ndefault: {{model: test-model}}\n")
    lait.write("wf.yml", DEMO)
    return lait


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


def written_pids(folder: Path, *names: str) -> list[int]:
    """The pids a shell writes to the files ``names`` (in that order), once the last one's line is
    complete: ``echo $$ > f`` creates ``f`` empty before it writes the line."""
    deadline = time.monotonic() + 30
    last = folder / names[-1]
    while not (last.exists() and last.read_bytes().endswith(b"\n")):
        assert time.monotonic() < deadline, f"{last} was never written"
        time.sleep(0.02)
    return [int((folder / name).read_text()) for name in names]


# -- a successful run ----------------------------------------------------------------------------
def test_progress_goes_to_stderr_and_the_result_alone_to_stdout(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    server.push(text("hello world", usage=USAGE))
    run = project("run", "wf.yml", "cats", "--show-usage")
    assert run.returncode == 0, run.stderr
    assert run.stdout == '{"first":"hello world","items":["item 0","item 1"]}\n'
    assert run.stderr.splitlines() == [
        "==> demo: A small demo.",
        "[1] ask",
        "[2] shape",
        "[3] each",
        "    -> iterating over 2 item(s)",
        "    -> item 1/2",
        "[4] step-4 (run)",
        "    -> item 2/2",
        "[5] step-4 (run)",
        "[6] step-5 (jq)",
        "usage: prompt=3 completion=2 total=5",
    ]
    assert server.bodies == [
        {
            "model": "test-model",
            "messages": [{"role": "user", "content": "Say something about cats"}],
            "stream": False,
        }
    ]


def test_json_and_output_file(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("one", usage=USAGE), text("two"))
    run = project("run", "wf.yml", "x", "--json", "-o", "out.json")
    assert (run.returncode, run.stdout) == (0, ""), run.stderr
    payload = json.loads((project.cwd / "out.json").read_text())
    assert payload == {
        "content": '{"first":"one","items":["item 0","item 1"]}',
        "reasoning": None,
        "usage": USAGE,
    }
    to_stdout = project("run", "wf.yml", "x", "-o", "-")
    assert to_stdout.stdout == '{"first":"two","items":["item 0","item 1"]}\n'


def test_an_output_file_that_cannot_be_written_is_refused_before_the_run(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    (project.cwd / "outdir").mkdir()
    project.write("agent.md", "---\ndescription: Says hi.\n---\nSay hi.\n")
    for command in (["run", "wf.yml", "x"], ["agent", "run", "agent.md", "x"]):
        into_dir = project(*command, "-o", "outdir")
        assert (into_dir.returncode, into_dir.stdout) == (2, "")
        assert into_dir.stderr == "lait: -o 'outdir' is a directory; name a file to write the result to\n"
        no_folder = project(*command, "-o", "nope/out.txt")
        assert no_folder.returncode == 2
        assert no_folder.stderr == "lait: -o 'nope/out.txt': the folder 'nope' does not exist\n"
    assert server.bodies == []  # no model call was spent on a result with nowhere to go


def test_a_string_result_is_printed_as_is(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("plain.yml", "steps:\n  - prompt: '{{ input }}'\n  - jq: '. + \"!\"'\n")
    server.push(text('"quoted" answer'))
    run = project("run", "plain.yml", "hi")
    assert (run.returncode, run.stdout) == (0, '"quoted" answer!\n'), run.stderr


def test_a_registered_name_runs_and_an_existing_file_wins_with_a_note(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    config = project.cwd / "lait.config.yml"
    config.write_text(
        config.read_text() + "workflows:\n  named: flows/named.yml\n  wf.yml: flows/named.yml\n"
    )
    project.write("flows/named.yml", "steps:\n  - jq: '\"named: \" + .'\n")
    sub = project.cwd / "sub"
    sub.mkdir()
    by_name = project("run", "named", "v", cwd=sub)
    assert (by_name.returncode, by_name.stdout, by_name.stderr) == (0, "named: v\n", "[1] step-1 (jq)\n")
    server.push(text("file"))
    both = project("run", "wf.yml", "v")
    assert both.returncode == 0, both.stderr
    assert both.stderr.startswith(
        "note: 'wf.yml' is both a file and a registered workflow name; running the file\n"
    )
    missing = project("run", "nothing", "v")
    assert missing.returncode == 1
    assert missing.stderr == (
        "lait: workflow 'nothing' not found: no such file, and no workflow of that name is registered"
        " under 'workflows:' in lait.config.yml (registered: named, wf.yml)\n"
    )


# -- inputs and stdin --------------------------------------------------------------------------
INPUTS = """\
inputs:
  id: string
  n: {type: integer, description: how many}
  flag: {type: boolean, default: false}
steps:
  - jq: '{id: $inputs.id, n: $inputs.n, flag: $inputs.flag, v: .}'
"""


def test_inputs_bind_from_the_command_line(project: Lait) -> None:
    project.write("in.yml", INPUTS)
    run = project("run", "in.yml", "--input", "id=0012", "--input", "n=1", "--input", "n=3")
    assert (run.returncode, run.stdout) == (0, '{"id":"0012","n":3,"flag":false,"v":null}\n'), run.stderr
    unknown = project("run", "in.yml", "--input", "id=1", "--input", "n=1", "--input", "zz=1")
    assert (unknown.returncode, unknown.stderr) == (
        1,
        "lait: unknown input 'zz'; the workflow declares: id, n, flag\n",
    )
    missing = project("run", "in.yml", "--input", "id=1")
    assert (missing.returncode, missing.stderr) == (1, "lait: missing required input 'n' (how many)\n")
    malformed = project("run", "in.yml", "--input", "id")
    assert (malformed.returncode, malformed.stderr) == (
        2,
        "lait: --input 'id' must have the form KEY=VALUE\n",
    )
    no_inputs = project("run", "wf.yml", "x", "--input", "a=1")
    assert no_inputs.returncode == 1
    assert no_inputs.stderr.endswith("lait: input 'a' was provided, but the workflow declares no 'inputs:'\n")


def test_stdin_rules(project: Lait) -> None:
    project.write("echo.yml", "steps:\n  - jq: '.'\n")
    both = project("run", "echo.yml", "prompt", stdin=b"piped\r\n\n")
    assert (both.returncode, both.stdout) == (0, "prompt\n\npiped\n"), both.stderr
    dash = project("run", "echo.yml", "-", stdin=b"only piped\n")
    assert (dash.returncode, dash.stdout) == (0, "only piped\n")
    piped = project("run", "echo.yml", stdin=b"from stdin")
    assert (piped.returncode, piped.stdout) == (0, "from stdin\n")
    blank = project("run", "echo.yml", "p", stdin=b"  \n\t\n")
    assert (blank.returncode, blank.stdout) == (0, "p\n")
    none = project("run", "echo.yml", stdin=b"   \n")
    assert none.returncode == 2
    assert none.stderr.startswith("lait: a PROMPT is required; provide one or pipe input via stdin")
    project.write("in.yml", INPUTS)
    null = project("run", "in.yml", "--input", "id=a", "--input", "n=0")
    assert null.stdout == '{"id":"a","n":0,"flag":false,"v":null}\n'


def test_input_schema_types_the_prompt(project: Lait) -> None:
    project.write(
        "typed.yml",
        "input_schema: {type: object, required: [a]}\nsteps:\n  - jq: '.a + 1'\n",
    )
    ok = project("run", "typed.yml", '{"a": 41}')
    assert (ok.returncode, ok.stdout) == (0, "42\n"), ok.stderr
    bad = project("run", "typed.yml", "not json")
    assert bad.returncode == 1
    assert "PROMPT is not valid JSON" in bad.stderr
    wrong = project("run", "typed.yml", '{"b": 1}')
    assert wrong.returncode == 1
    assert "input is missing required field(s): a" in wrong.stderr
    dry_wrong = project("run", "typed.yml", '{"b": 1}', "--dry-run")
    assert dry_wrong.returncode == 1
    assert "input is missing required field(s): a" in dry_wrong.stderr
    project.write(
        "typed_inputs.yml",
        "inputs: {k: string}\ninput_schema: {type: object, required: [a]}\nsteps:\n  - jq: '$inputs.k'\n",
    )
    without = project("run", "typed_inputs.yml", "--input", "k=v")
    assert (without.returncode, without.stdout) == (0, "v\n"), without.stderr
    dry_without = project("run", "typed_inputs.yml", "--input", "k=v", "--dry-run")
    assert dry_without.returncode == 0, dry_without.stderr
    assert "input_schema: inline schema" in dry_without.stdout.splitlines()


# -- dry run -----------------------------------------------------------------------------------
def test_dry_run_prints_the_plan_and_calls_nothing(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write(
        "side.yml",
        textwrap.dedent(
            """\
            inputs:
              who: string
            steps:
              - run: [python3, -c, "open('touched', 'w').write('x')"]
              - prompt: "Hello {{ inputs.who }}: {{ input }}"
            """
        ),
    )
    run = project("run", "side.yml", "--dry-run", "--input", "who=Ann")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "dry run: showing the execution plan only; no model, MCP server, or command process will be invoked",
        'inputs: {"who":"Ann"}',
        "[1] step-1 (run)",
        "    run: python3 -c open('touched', 'w').write('x')",
        "[2] step-2 (prompt)",
        "    prompt: Hello {{ inputs.who }}: {{ input }}  [unrendered: depends on a value not known before the run]",
        f"    model: test-model @ {server.url}",
    ]
    assert server.requests == []
    assert not (project.cwd / "touched").exists()
    first = project("run", "wf.yml", "cats", "--dry-run")
    assert "    prompt: Say something about cats" in first.stdout.splitlines()
    no_model = project("--no-config", "run", "wf.yml", "cats", "--dry-run")
    assert no_model.returncode == 1
    assert no_model.stderr == (
        "lait: model is required for step 'ask'; set 'model' on the step, the workflow's default.model,"
        " or default.model in lait.config.yml\n"
    )
    assert server.requests == []


def test_dry_run_numbers_steps_as_the_run_does(project: Lait) -> None:
    """Steps inside a group and a switch case continue the parent's count in the run (docs/workflows.md),
    so the plan numbers them so too, and both name each step the same: the run's error names
    `step-7 (jq)` (the file's 7th step), shown `[6] step-7 (jq)` in the run and in the plan."""
    project.write(
        "nested.yml",
        textwrap.dedent(
            """\
            steps:
              - jq: '{kind: "b"}'
              - group:
                  - jq: '.'
                  - switch:
                      - when: '.kind == "a"'
                        steps:
                          - jq: '.'
                      - when: '.kind == "b"'
                        steps:
                          - jq: '. + {m: 2}'
                          - jq: 'error("boom")'
                    else:
                      - jq: '.'
                      - jq: '.'
              - jq: '.m'
            """
        ),
    )
    dry = project("--no-config", "run", "nested.yml", "x", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    plan = [line.strip() for line in dry.stdout.splitlines()]
    run = project("--no-config", "run", "nested.yml", "x")
    assert run.returncode == 1
    assert run.stderr.splitlines()[-1] == (
        "lait: step 'step-2 (group)': step 'step-4 (switch)': step 'step-7 (jq)': 'jq': boom"
    )
    progress = [line for line in run.stderr.splitlines() if line.startswith("[")]
    assert progress == [
        "[1] step-1 (jq)",
        "[2] step-2 (group)",
        "[3] step-3 (jq)",
        "[4] step-4 (switch)",
        "[5] step-6 (jq)",
        "[6] step-7 (jq)",
    ]
    for line in progress:  # the run's lines are the plan's
        assert line in plan, (line, plan)
    failing = plan.index("[6] step-7 (jq)", plan.index('case 2: when .kind == "b"'))
    assert plan[failing + 1] == 'jq: error("boom")'
    # after a switch whose cases run different numbers of steps, the counter depends on the run; the
    # name does not
    assert plan[-3:-1] == ["[?] step-10 (jq)", "jq: .m"]
    assert plan[-1].startswith("[?]: numbered only at run time")


# -- failures ----------------------------------------------------------------------------------
def test_an_invalid_file_prints_located_errors_and_runs_nothing(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    project.write(
        "bad.yml",
        "steps:\n  - run: [python3, -c, \"open('touched', 'w')\"]\n  - id: x\n    jq: '.['\n  - bogus: 1\n",
    )
    run = project("run", "bad.yml", "x")
    assert run.returncode == 3
    lines = run.stderr.splitlines()
    assert lines[0].startswith("bad.yml:4:") and " LAIT402 error: " in lines[0]
    assert lines[1].startswith("bad.yml:5:5: LAIT308 error: a step needs exactly one of:")
    assert lines[2] == "lait: 'bad.yml' is not a valid workflow (2 errors)"
    assert not (project.cwd / "touched").exists()
    assert project("run", "bad.yml", "x", "--dry-run").returncode == 3
    yaml = project.write("yaml.yml", "steps: [\n")
    broken = project("run", str(yaml), "x")
    assert broken.returncode == 3
    assert broken.stderr.startswith(f"{yaml}:")
    assert server.requests == []


def test_a_failing_step_names_its_label_and_exits_1(project: Lait) -> None:
    project.write(
        "fail.yml",
        "steps:\n  - id: outer\n    group:\n      - id: boom\n        run: [python3, -c, 'import sys; sys.exit(3)']\n",
    )
    run = project("run", "fail.yml", "x")
    assert run.returncode == 1
    last = run.stderr.splitlines()[-1]
    assert last.startswith("lait: step 'outer': step 'boom': ")
    assert "Traceback" not in run.stderr


def test_a_model_api_error_exits_4(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(error(401, "bad key"))
    run = project("run", "wf.yml", "x")
    assert run.returncode == 4
    assert run.stderr.splitlines()[-1].startswith("lait: step 'ask': ")
    assert "bad key" in run.stderr


def test_a_timed_out_step_exits_5_and_leaves_no_process(project: Lait) -> None:
    project.write(
        "slow.yml",
        textwrap.dedent(
            """\
            steps:
              - id: slow
                timeout: 1
                run: [sh, -c, "sleep 60 & echo $! > child.pid; echo $$ > shell.pid; wait"]
            """
        ),
    )
    started = time.monotonic()
    run = project("run", "slow.yml", "x")
    assert time.monotonic() - started < 30
    assert run.returncode == 5
    assert run.stderr.splitlines()[-1] == "lait: step 'slow' timed out after 1s (attempt 1/1)"
    pids = [int((project.cwd / name).read_text()) for name in ("child.pid", "shell.pid")]
    deadline = time.monotonic() + 5
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if alive(p)]
    for p in pids:  # never leave a stray sleep behind, even when the assertion failed
        if alive(p):
            os.kill(p, 9)


def test_a_workflow_timeout_exits_5(project: Lait) -> None:
    project.write("wt.yml", "timeout: 1\nsteps:\n  - run: [sleep, '30']\n")
    run = project("run", "wt.yml", "x")
    assert run.returncode == 5
    assert "workflow timed out after 1s ('timeout')" in run.stderr


def test_ctrl_c_cancels_the_run_and_its_processes(project: Lait) -> None:
    project.write(
        "long.yml",
        'steps:\n  - id: long\n    run: [sh, -c, "sleep 60 & echo $! > child.pid; echo $$ > shell.pid; wait"]\n',
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "run", "long.yml", "x"],
        cwd=project.cwd,
        env=project.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    pids: list[int] = []
    try:
        pids = written_pids(project.cwd, "child.pid", "shell.pid")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 5
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = [p for p in pids if alive(p)]
    for p in survivors:
        os.kill(p, signal.SIGKILL)
    assert proc.returncode == 130
    assert survivors == []
    assert out == b""
    text = err.decode()
    assert "lait: received Ctrl-C, stopping" in text
    assert text.splitlines()[-1] == "lait: interrupted"
    assert "Traceback" not in text
