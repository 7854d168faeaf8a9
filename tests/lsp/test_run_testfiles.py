"""The "▶ Run test" / "▶ Run eval" lenses: a test file replays its cassette (recorded here from the
scripted model server, which is stopped before the test runs) and an eval file calls the live
(scripted) model, through ``lait/run`` with ``kind: test|eval``; results arrive as run events."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from tests.lsp.conftest import open_doc
from tests.lsp.run_support import run_client, wait_until
from tests.peers.openai_server import ScriptedOpenAIServer, error, text
from tests.processes import running_with_marker

WF = "steps:\n  - id: draft\n    prompt: 'Write about {{ input }}'\n  - prompt: 'Shorten {{ steps.draft }}'\n"
TEST = """\
workflow: wf.yml
input: cats
replay: tape
assert:
  - type: contains
    value: briefly
  - type: step_output
    id: draft
    assert:
      - {type: equals, value: A long text about cats}
  - type: usage
    max_total_tokens: 1000
"""


async def lenses(client: Any, path: Path) -> list[lsp.CodeLens]:
    uri = open_doc(client, path)
    result = await client.text_document_code_lens_async(
        lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    return list(result or [])


async def test_run_test_and_eval_lenses(tmp_path: Path) -> None:
    (tmp_path / "wf.yml").write_text(WF)
    test = tmp_path / "smoke.test.yml"
    test.write_text(TEST)
    evals = tmp_path / "cats.eval.yml"
    evals.write_text(
        "target:\n  model: m\n  prompt: 'Is {{ input }} an animal?'\n"
        "cases:\n  - input: cat\n    assert:\n      - {type: contains, value: yes}\n"
    )
    with ScriptedOpenAIServer() as llm:
        (tmp_path / "lait.config.yml").write_text(f"base_url: {llm.url}\ndefault: {{model: m}}\n")
        llm.push(text("A long text about cats"), text("Cats, briefly"))
        async with run_client(tmp_path, approve="never") as client:
            record = {
                "uri": (tmp_path / "wf.yml").as_uri(),
                "prompt": "cats",
                "runId": "rec",
                "record": "tape",
            }
            recorded = await client.protocol.send_request_async("lait/run", {**record, "history": False})
            assert recorded["status"] == "ok"

            # the lens on the test file's first key, and its argument
            (lens,) = await lenses(client, test)
            assert lens.command is not None
            assert (lens.command.title, lens.command.command) == ("▶ Run test", "lait.runTest")
            assert lens.range.start == lsp.Position(line=0, character=0)
            argument = lens.command.arguments[0] if lens.command.arguments else None
            assert argument == {"uri": test.as_uri(), "kind": "test", "prompt": "none", "inputs": []}

            llm.stop()  # the test replays: no model from here on
            params = {"uri": test.as_uri(), "kind": "test", "runId": "t1"}
            result = await client.protocol.send_request_async("lait/run", params)
            assert result == {
                "runId": "t1",
                "status": "ok",
                "output": f"{test}: PASS\n1 passed, 0 failed, 1 total\n",
            }
            events = client.events_of("t1")
            types = [e["type"] for e in events]
            assert types[0] == "runStarted" and types[-1] == "runFinished"
            assert [e["source"] for e in events if e["type"] == "modelAnswered"] == ["replay", "replay"]
            assert [e for e in events if e["type"] == "testResult"] == [
                {"type": "testResult", "file": str(test), "status": "pass", "failures": []}
            ]
            assert types.index("stepStarted") < types.index("testResult") < types.index("runFinished")

            # a failing assertion: the run fails with the report, the event lists the failure
            test.write_text(TEST.replace("value: briefly", "value: dogs"))
            failed = await client.protocol.send_request_async("lait/run", {**params, "runId": "t2"})
            message = 'assertion 1: contains: "dogs" not found in "Cats, briefly"'
            assert failed == {
                "runId": "t2",
                "status": "failed",
                "output": "",
                "error": f"lait: {test}: FAIL\n  {message}\n0 passed, 1 failed, 1 total",
            }
            (event,) = [e for e in client.events_of("t2") if e["type"] == "testResult"]
            assert event == {"type": "testResult", "file": str(test), "status": "fail", "failures": [message]}

    # an eval file runs against the live model, `repeat` times per case
    with ScriptedOpenAIServer() as llm:
        (tmp_path / "lait.config.yml").write_text(f"base_url: {llm.url}\ndefault: {{model: m}}\n")
        llm.push(text("yes, a mammal"), text("no"))
        async with run_client(tmp_path, approve="never") as client:
            (lens,) = await lenses(client, evals)
            assert lens.command is not None
            assert (lens.command.title, lens.command.command) == ("▶ Run eval", "lait.runEval")
            run = {"uri": evals.as_uri(), "kind": "eval", "runId": "e1", "repeat": 2}
            result = await client.protocol.send_request_async("lait/run", run)
            assert result["status"] == "failed"
            assert "case 1: 1/2 (50%) FAIL" in result["error"]
            (case,) = [e for e in client.events_of("e1") if e["type"] == "evalCase"]
            assert (case["case"], case["input"], case["passed"], case["total"], case["successRate"]) == (
                1,
                "cat",
                1,
                2,
                0.5,
            )
            assert sorted(r["passed"] for r in case["runs"]) == [False, True]


async def test_cancelled_test_run_leaves_no_process(tmp_path: Path) -> None:
    """A test file whose workflow runs a process that would outlive the test: cancelling the lens's
    ``lait/run`` kills its process group (the pid reaches the server through ``on_spawn``)."""
    marker = f"testlens-{uuid.uuid4().hex}"
    (tmp_path / "lait.config.yml").write_text("default: {model: m}\n")
    (tmp_path / "wf.yml").write_text("steps:\n  - run: [sh, -c, 'sleep 120 & sleep 120']\n")
    (tmp_path / "tape").mkdir()
    test = tmp_path / "slow.test.yml"
    test.write_text("workflow: wf.yml\ninput: go\nreplay: tape\nassert:\n  - {type: contains, value: x}\n")
    async with run_client(tmp_path, approve="never", env={"LAIT_TEST_MARKER": marker}) as client:
        future = client.protocol.send_request(
            "lait/run", {"uri": test.as_uri(), "kind": "test", "runId": "slow"}, msg_id="slow-1"
        )
        assert await wait_until(lambda: len(running_with_marker(marker)) >= 3, 30)  # server, sh, sleeps
        client.cancel_request(lsp.CancelParams(id="slow-1"))
        with pytest.raises(Exception, match="cancel"):
            await asyncio.wait_for(asyncio.wrap_future(future), 20)
        # only the server itself is left while it runs
        assert await wait_until(lambda: len(running_with_marker(marker)) <= 1, 10), running_with_marker(
            marker
        )
    assert await wait_until(lambda: not running_with_marker(marker), 10), running_with_marker(marker)


CANARY = "sk-canary-testlens-5e1"


async def test_no_canary_in_an_eval_runs_result_or_events(tmp_path: Path) -> None:
    """The model's error body echoes the configured key: the evalCase event's failures and the run's
    error show it masked."""
    with ScriptedOpenAIServer() as llm:
        (tmp_path / "lait.config.yml").write_text(
            f"default: {{model: m}}\nmodels:\n  m:\n    - provider: {{base_url: '{llm.url}', api_key: '${{KEY}}'}}\n"
            "      model_id: scripted\n"
        )
        evals = tmp_path / "k.eval.yml"
        evals.write_text("target: {model: m, prompt: hi}\ncases:\n  - input: x\n    assert: []\n")
        llm.push(error(401, f"invalid api key {CANARY}"))
        async with run_client(tmp_path, approve="never", env={"KEY": CANARY}) as client:
            result = await client.protocol.send_request_async(
                "lait/run", {"uri": evals.as_uri(), "kind": "eval", "runId": "k"}
            )
            events = client.events_of("k")
    assert result["status"] == "failed"
    (case,) = [e for e in events if e["type"] == "evalCase"]
    assert "invalid api key ***" in case["runs"][0]["failures"][0], case
    assert CANARY not in json.dumps(result) + json.dumps(events)
