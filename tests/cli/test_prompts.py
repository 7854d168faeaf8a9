"""Named prompts (docs/cli.md; issue 17 item 4): `lait -p NAME`, `--var`,
`lait prompt list|run`, against the scripted server, asserting the exact request bodies."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, text


@pytest.fixture
def project(lait_no_model_env: Lait, server: ScriptedOpenAIServer) -> Lait:
    lait = lait_no_model_env
    lait.write(
        "lait.config.yml",
        f"""\
base_url: "{server.url}"
default:
  model: plain-model
models:
  fast:
    - provider: {{base_url: "{server.url}"}}
      model_id: fast-model
prompts:
  summary:
    template: "Summarize in {{{{ vars.words }}}} words ({{{{ vars.tone }}}}): {{{{ input }}}}"
    model: fast
    vars: {{words: "20", tone: plain}}
  hello:
    template: |
      Say hello to {{{{ input }}}}.
  broken:
    template: "{{{{ vars.missing }}}}"
""",
    )
    return lait


def _user(server: ScriptedOpenAIServer, index: int = -1) -> str:
    messages = server.bodies[index]["messages"]
    assert messages[-1]["role"] == "user"
    return str(messages[-1]["content"])


def test_p_renders_the_template_with_input_and_vars(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(*[text("done")] * 6)
    run = project("-p", "summary", "the text")
    assert (run.returncode, run.stdout) == (0, "done\n"), run.stderr
    assert _user(server) == "Summarize in 20 words (plain): the text"
    assert server.bodies[-1]["model"] == "fast-model"
    later_wins = project("--prompt-name", "summary", "x", "--var", "words=5", "--var", "words=7")
    assert later_wins.returncode == 0
    assert _user(server) == "Summarize in 7 words (plain): x"
    overridden = project("--model", "other-model", "-p", "summary", "y")
    assert overridden.returncode == 0
    assert server.bodies[-1]["model"] == "other-model"
    piped = project("-p", "hello", stdin=b"world\n")
    assert piped.returncode == 0
    assert _user(server) == "Say hello to world.\n"
    assert server.bodies[-1]["model"] == "plain-model"


def test_prompt_run_and_list(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("a"), text("b"))
    run = project("prompt", "run", "summary", "some text", "--var", "tone=dry")
    assert (run.returncode, run.stdout) == (0, "a\n"), run.stderr
    assert _user(server) == "Summarize in 20 words (dry): some text"
    assert server.bodies[-1]["model"] == "fast-model"
    as_json = project("prompt", "run", "hello", "you", "--json")
    assert json.loads(as_json.stdout)["content"] == "b"
    assert server.bodies[-1]["model"] == "plain-model"
    listed = project("prompt", "list")
    assert listed.returncode == 0
    assert [line.split()[0] for line in listed.lines] == ["summary", "hello", "broken"]
    assert listed.lines[0].split()[1] == "fast" and listed.lines[1].split()[1] == "-"
    data = json.loads(project("prompt", "list", "--json").stdout)
    assert data[0] == {
        "name": "summary",
        "model": "fast",
        "vars": {"words": "20", "tone": "plain"},
        "template": "Summarize in {{ vars.words }} words ({{ vars.tone }}): {{ input }}",
    }


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["-p", "sumary", "x"],
            1,
            "lait: unknown prompt 'sumary'; define it under 'prompts:' in lait.config.yml (configured: broken, hello, summary); did you mean 'summary'?\n",
        ),
        (["prompt", "run", "nope"], 1, "lait: unknown prompt 'nope'"),
        (["-p", "summary", "--var", "words", "x"], 2, "lait: --var 'words' must have the form KEY=VALUE\n"),
        (["--var", "a=b", "x"], 2, "lait: --var needs a named prompt (-p/--prompt-name NAME)\n"),
        (["-p", "broken", "x"], 1, "lait: prompts.broken.template: "),
    ],
)
def test_prompt_errors(
    project: Lait, server: ScriptedOpenAIServer, args: list[str], code: int, message: str
) -> None:
    run = project(*args)
    assert run.returncode == code
    assert run.stderr.startswith(message)
    assert server.bodies == []
