"""`--show-usage` on `lait run` and `lait agent run` includes the cost when the models have
`pricing`, as chat does (issue 17 item 8): summed over every request of the run; a lower bound
when only some models are priced; no cost at all when none is (an unknown cost is never 0)."""

from __future__ import annotations

import pytest

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, text

USAGE = {"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200}


@pytest.fixture
def project(lait_no_model_env: Lait, server: ScriptedOpenAIServer) -> Lait:
    lait = lait_no_model_env
    lait.write(
        "lait.config.yml",
        f"""\
base_url: "{server.url}"
default: {{model: priced}}
models:
  priced:
    - provider: {{base_url: "{server.url}"}}
      model_id: p-model
      pricing: {{input_per_1m: 2.0, output_per_1m: 10.0}}
""",
    )
    lait.write("two.yml", "steps:\n  - prompt: 'a {{ input }}'\n  - prompt: 'b {{ input }}'\n")
    lait.write("mixed.yml", "steps:\n  - prompt: 'a'\n  - prompt: 'b'\n    model: raw-model\n")
    lait.write("agent.md", "---\ndescription: an agent\nmodel: priced\n---\nHelp.\n")
    return lait


def test_run_sums_the_cost_of_every_request(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("one", usage=USAGE), text("two", usage=USAGE))
    run = project("run", "two.yml", "x", "--show-usage")
    assert run.returncode == 0, run.stderr
    # 2 requests x (1000 x 2.0 + 200 x 10.0) / 1e6 = 0.008
    assert run.stderr.splitlines()[-1] == "usage: prompt=2000 completion=400 total=2400 cost=$0.008000"


def test_run_with_an_unpriced_model_gives_a_lower_bound(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("one", usage=USAGE), text("two", usage=USAGE))
    run = project("run", "mixed.yml", "x", "--show-usage")
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines()[-1] == (
        "usage: prompt=2000 completion=400 total=2400 cost>=$0.004000 (some models have no pricing)"
    )


def test_agent_run_shows_the_cost(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("done", usage=USAGE))
    run = project("agent", "run", "agent.md", "hi", "--show-usage")
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines()[-1] == "usage: prompt=1000 completion=200 total=1200 cost=$0.004000"


def test_no_pricing_no_cost(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("raw.yml", "default: {model: raw-model}\nsteps:\n  - prompt: 'a'\n")
    server.push(text("one", usage=USAGE))
    run = project("run", "raw.yml", "x", "--show-usage")
    assert run.stderr.splitlines()[-1] == "usage: prompt=1000 completion=200 total=1200"
