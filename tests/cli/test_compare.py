"""`lait compare` (docs/cli.md; issue 17 item 6) against two scripted servers: the
plain blocks in --model order with time, usage and cost; --json; --markdown; one failing model does
not hide the other and the exit code is the failure's (4 for a model API error)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, error, text

USAGE = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}


@pytest.fixture
def first() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as s:
        yield s


@pytest.fixture
def second() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as s:
        yield s


@pytest.fixture
def project(lait: Lait, first: ScriptedOpenAIServer, second: ScriptedOpenAIServer) -> Lait:
    for key in list(lait.env):
        if key.startswith(("OPENAI_", "LLM_")):
            del lait.env[key]
    lait.write(
        "lait.config.yml",
        f"""\
models:
  cheap:
    - provider: {{base_url: "{first.url}"}}
      model_id: cheap-model
      pricing: {{input_per_1m: 1.0, output_per_1m: 2.0}}
  other:
    - provider: {{base_url: "{second.url}"}}
      model_id: other-model
""",
    )
    return lait


def test_blocks_in_model_order(
    project: Lait, first: ScriptedOpenAIServer, second: ScriptedOpenAIServer
) -> None:
    first.push(text("answer one", usage=USAGE))
    second.push(text("answer two", usage=USAGE))
    run = project("compare", "--model", "cheap", "--model", "other", "--temperature", "0.5", "the question")
    assert run.returncode == 0, run.stderr
    blocks = run.stdout.split("\n\n")
    assert blocks[0].splitlines()[0] == "=== cheap (cheap-model) ==="
    assert blocks[0].splitlines()[1].startswith("time: ") and blocks[0].splitlines()[1].endswith("ms")
    assert blocks[0].splitlines()[2:] == [
        "usage: prompt=1000 completion=100 total=1100 ($0.001200)",
        "answer one",
    ]
    assert blocks[1].splitlines()[0] == "=== other (other-model) ==="
    assert blocks[1].splitlines()[2:] == ["usage: prompt=1000 completion=100 total=1100", "answer two"]
    for server, model_id in ((first, "cheap-model"), (second, "other-model")):
        body = server.bodies[0]
        assert (body["model"], body["temperature"]) == (model_id, 0.5)
        assert body["messages"] == [{"role": "user", "content": "the question"}]


def test_json_and_a_failure(project: Lait, first: ScriptedOpenAIServer, second: ScriptedOpenAIServer) -> None:
    first.push(text("answer one", usage=USAGE))
    second.push(error(400, "bad model"))
    run = project("compare", "--model", "cheap", "--model", "other", "--json", stdin=b"piped question\n")
    assert run.returncode == 4
    data = json.loads(run.stdout)
    assert [d["model"] for d in data] == ["cheap", "other"]
    assert data[0]["content"] == "answer one" and data[0]["cost_usd"] == pytest.approx(0.0012)
    assert data[0]["usage"] == USAGE and data[0]["error"] is None
    assert data[1]["content"] is None and data[1]["usage"] is None and data[1]["cost_usd"] is None
    assert "bad model" in data[1]["error"]
    assert first.bodies[0]["messages"] == [{"role": "user", "content": "piped question"}]


def test_markdown(project: Lait, first: ScriptedOpenAIServer, second: ScriptedOpenAIServer) -> None:
    first.push(text("answer one", usage=USAGE))
    second.push(text("answer two"))
    run = project("compare", "--model", "cheap", "--model", "other", "--markdown", "q")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("| model | model id | time |")
    assert lines[2].startswith("| cheap | cheap-model | ") and "| 0.001200 | ok |" in lines[2]
    assert lines[3].startswith("| other | other-model | ") and lines[3].endswith("| - | - | - | - | ok |")
    assert "## cheap\n\nanswer one" in run.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", "--model", "a", "q"], "lait: compare needs at least two --model options\n"),
        (
            ["compare", "--model", "a", "--model", "b", "--json", "--markdown", "q"],
            "lait: --json and --markdown cannot be used together\n",
        ),
    ],
)
def test_usage_errors(project: Lait, args: list[str], message: str) -> None:
    run = project(*args)
    assert (run.returncode, run.stderr) == (2, message)


def test_a_table_on_a_terminal(
    project: Lait, first: ScriptedOpenAIServer, second: ScriptedOpenAIServer
) -> None:
    import sys

    import pexpect

    from tests.cli.conftest import REPO

    first.push(text("answer one", usage=USAGE))
    second.push(text("answer two"))
    env = dict(project.env, TERM="xterm", PYTHONPATH=str(REPO), COLUMNS="160")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "lait_cli.main", "compare", "--model", "cheap", "--model", "other", "q"],
        cwd=str(project.cwd),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 160),
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    out = re.sub(r"\x1b\[[0-9;]*m", "", child.before)
    assert "┃ model" in out and "answer one" in out and "answer two" in out and "$0.001200" in out
    assert "===" not in out
