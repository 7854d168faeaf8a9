"""The VS Code extension (editors/vscode): it compiles under `strict`, its node:test unit tests pass, and
`vsce package` produces a .vsix; and its dialog and run modules drive a real lait-ls through a whole
workflow run (lens -> input form -> lait/run -> approvals, elicitation, ask -> output channel text).

Node and npm are required: a missing toolchain fails these tests with a message, it never skips them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

from lait_ls.run import EDITOR_DENIAL
from tests.editors.vscode_build import npm, tool
from tests.lsp.run_support import ROOT, write_project
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls


def test_unit_tests_pass(compiled: Path) -> None:
    proc = npm("test", timeout=120)
    counts = dict(re.findall(r"^# (pass|fail|cancelled|skipped|todo) (\d+)$", proc.stdout, re.M))
    assert counts.get("fail") == "0" and counts.get("cancelled") == "0", proc.stdout[-3000:]
    assert int(counts.get("pass", "0")) >= 45, proc.stdout[-3000:]
    assert counts.get("skipped") == "0"


def test_vsix_packages(vsix: Path) -> None:
    """One bundled script (tools/bundle.js), mermaid's browser build for the graph view, the manifest,
    README, CHANGELOG and icons: nothing else, and small enough (mermaid is most of it)."""
    with zipfile.ZipFile(vsix) as z:
        names = {n for n in z.namelist() if n.startswith("extension/")}
        manifest = json.loads(z.read("extension/package.json"))
        bundle = z.read("extension/dist/extension.js").decode()
        mermaid = z.read("extension/dist/mermaid.min.js").decode()
    assert "flowchart" in mermaid and vsix.stat().st_size < 2_000_000
    assert names == {
        "extension/package.json",
        "extension/readme.md",
        "extension/changelog.md",
        "extension/images/icon.png",
        "extension/images/runs.svg",
        "extension/dist/extension.js",
        "extension/dist/mermaid.min.js",
        "extension/dist/mermaid.LICENSE.txt",
    }
    assert manifest["main"] == "./dist/extension.js" and manifest["icon"] == "images/icon.png"
    # The language client is inside the bundle; vscode is the editor's.
    assert "vscode-languageclient" in bundle and 'require("vscode")' in bundle
    assert {c["command"] for c in manifest["contributes"]["commands"]} >= {
        "lait.runWorkflow",
        "lait.runAgent",
        "lait.dryRun",
    }


WORKFLOW = """name: notes-flow
description: Shout, save notes, ask.
inputs:
  topic: string
  count:
    type: integer
    minimum: 1
    default: 1
steps:
  - id: work
    prompt: "Work on {{ inputs.topic }}"
    tools: [shout]
    mcp: [notes]
  - id: keep
    ask: "Keep the result for {{ inputs.topic }}?"
    choices: ["yes", "no"]
  - jq: '{answer: $steps.work, kept: $steps.keep, count: $inputs.count}'
"""

ROUNDS = [
    tool_calls(call("tool__shout", {"text": "hi"}, id="c1")),
    tool_calls(call("notes__save_note", {"text": "buy milk"}, id="c2")),
    tool_calls(call("notes__save_note", {"text": "eggs"}, id="c3")),
    tool_calls(call("notes__save_note", {"text": "bread"}, id="c4")),
    tool_calls(call("tool__shout", {"text": "again"}, id="c5")),
    text("worked"),
]

# What the person does, in the order the dialogs come.
ANSWERS: list[Any] = [
    "",  # prompt (optional: the workflow declares inputs)
    "food",  # topic
    "0",  # count: below its minimum -> asked again
    "3",
    "Allow once",  # tool__shout("hi")
    "Allow for this session",  # notes__save_note: no more approvals for it
    "Answer",  # elicitation 1: the form
    "Milk",
    "9",  # priority 1..5 -> asked again
    "2",
    "Decline",  # elicitation 2
    "<ESC>",  # elicitation 3: Escape = cancel
    "Deny",  # tool__shout("again")
    "yes",  # ask: choices
]


def _drive(
    node_out: Path,
    tmp_path: Path,
    llm: ScriptedOpenAIServer,
    answers: list[Any],
    *,
    file: str = "workflows/notes.yml",
    content: str = WORKFLOW,
    lens: str = "lait.runWorkflow",
) -> dict[str, Any]:
    """Writes the project, runs out/e2e/driveRun.js against a real lait-ls, returns what it saw."""
    write_project(tmp_path, llm)
    path = tmp_path / file
    path.parent.mkdir(exist_ok=True)
    path.write_text(content, encoding="utf-8")
    out = tmp_path / "out.json"
    spec = {
        "server": [sys.executable, "-m", "lait_ls.server"],
        "rootUri": tmp_path.as_uri(),
        "fileUri": path.as_uri(),
        "lens": lens,
        "answers": answers,
        "out": str(out),
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    proc = subprocess.run(
        [tool("node"), str(node_out / "e2e" / "driveRun.js"), str(tmp_path / "spec.json")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and out.exists(), proc.stderr[-3000:]
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return seen


def test_a_workflow_runs_from_the_lens_with_every_dialog(compiled: Path, tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        llm.push(*ROUNDS)
        seen = _drive(compiled, tmp_path, llm, ANSWERS)
        tool_results = [
            [m["content"].split("\n\n")[0] for m in body["messages"] if m["role"] == "tool"][-1:]
            for body in llm.bodies[1:]
        ]

    assert seen["serverInfo"]["name"] == "lait-ls"
    assert seen["status"]["configFile"] == str(tmp_path / "lait.config.yml")
    assert seen["status"]["configError"] is None
    # The lens carries the input form's spec.
    assert seen["target"]["prompt"] == "optional"
    assert [i["name"] for i in seen["target"]["inputs"]] == ["topic", "count"]
    assert seen["result"] == {
        "runId": "e2e-1",
        "status": "ok",
        "output": json.dumps({"answer": "worked", "kept": "yes", "count": 3}, separators=(",", ":")),
    }
    assert seen["unusedAnswers"] == 0
    # What the model received back for each tool call: every dialog answer had its effect.
    assert tool_results == [
        ["HI"],
        ["saved 'Milk' (priority 2): buy milk"],
        ["not saved: decline"],
        ["not saved: cancel"],
        [EDITOR_DENIAL],
    ]
    calls = seen["calls"]
    approvals = [c for c in calls if (c.get("title") or "").startswith("lait: allow ")]
    assert [c["title"] for c in approvals] == [
        "lait: allow tool__shout?",
        "lait: allow notes__save_note?",
        "lait: allow tool__shout?",
    ]
    assert "runs: " in approvals[0]["placeholder"] and approvals[0]["placeholder"].endswith(" hi")
    assert "MCP server 'notes'" in approvals[1]["placeholder"]
    validations = [c.get("validation") for c in calls if c["method"] == "input"]
    assert "enter a number ≥ 1" in validations and "enter a number ≤ 5" in validations
    elicit_firsts = [c for c in calls if c.get("labels") == ["Answer", "Decline", "Cancel"]]
    assert len(elicit_firsts) == 3 and elicit_firsts[0]["placeholder"] == "Save the note 'buy milk'?"
    ask = calls[-1]
    assert ask["labels"] == ["yes", "no"] and ask["placeholder"] == "Keep the result for food?"

    output = seen["output"]
    lines = output.splitlines()
    assert lines[0] == "==> notes-flow: Shout, save notes, ask."
    assert "[1] work" in lines and "[2] keep" in lines
    assert "approval needed: tool tool__shout" in lines
    assert any(line.startswith("    argv: ") and line.endswith(" hi") for line in lines)
    assert "    <- tool__shout: HI" in lines
    assert any(line.startswith("    -> tool tool__shout denied: ") for line in lines)
    assert "MCP server 'notes' asks: Save the note 'buy milk'?" in lines
    assert lines.index("approval needed: tool tool__shout") < lines.index("    <- tool__shout: HI")
    assert lines.index("[2] keep") < lines.index("[3] step-3 (jq)")
    assert lines[-2] == '{"answer":"worked","kept":"yes","count":3}'
    assert re.fullmatch(r"==> ok in \d+\.\ds", lines[-1]), lines[-3:]
    assert seen["eventTypes"][0] == "runStarted" and seen["eventTypes"][-1] == "runFinished"


def test_cancelling_the_run_dismisses_the_open_dialog(compiled: Path, tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        llm.push(*ROUNDS)
        seen = _drive(compiled, tmp_path, llm, ["", "food", "", "<HANG>"])
        requests = len(llm.bodies)
    # The run request ended as cancelled (-32800), the approval dialog was closed, none is left.
    assert seen["result"]["errorCode"] == -32800, seen["result"]
    hung = seen["calls"][-1]
    assert hung["title"] == "lait: allow tool__shout?" and hung["dismissed"] is True
    assert seen["pendingDialogs"] == 0
    assert requests == 1  # the model was never asked again
    assert re.fullmatch(r"==> cancelled( in \d+\.\ds)?", seen["output"].splitlines()[-1]), seen["output"]
    # The server is still there for the next request.
    assert seen["statusAfter"]["configFile"] == str(tmp_path / "lait.config.yml")


AGENT = """---
name: greeter
description: Greets.
tools: [shout]
---
Greet the user warmly.
"""


def test_an_agent_runs_from_its_lens_and_its_answer_streams_into_the_output(
    compiled: Path, tmp_path: Path
) -> None:
    with ScriptedOpenAIServer() as llm:
        llm.push(
            tool_calls(call("tool__shout", {"text": "hello"}, id="c1")), text("Hello, Ann! Nice to meet you.")
        )
        seen = _drive(
            compiled,
            tmp_path,
            llm,
            ["", "greet Ann", "Allow once"],
            file="agents/greeter.md",
            content=AGENT,
            lens="lait.runAgent",
        )
        first_request = llm.bodies[0]
    assert seen["target"]["kind"] == "agent" and seen["target"]["prompt"] == "required"
    # An empty prompt is refused by the form and asked again.
    prompts = [c for c in seen["calls"] if c["method"] == "input"]
    assert [c.get("validation") for c in prompts] == ["enter a prompt", None]
    assert first_request["messages"][-1] == {"role": "user", "content": "greet Ann"}
    assert seen["result"] == {"runId": "e2e-1", "status": "ok", "output": "Hello, Ann! Nice to meet you."}
    assert seen["eventTypes"].count("text") > 1  # streamed in pieces
    lines = seen["output"].splitlines()
    assert "    <- tool__shout: HELLO" in lines
    # The streamed answer is in the output once, followed by the run's status.
    assert lines[-2] == "Hello, Ann! Nice to meet you."
    assert seen["output"].count("Nice to meet you") == 1
    assert re.fullmatch(r"==> ok in \d+\.\ds", lines[-1])
