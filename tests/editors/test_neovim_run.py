"""Running a workflow from headless Neovim 0.11 with editors/neovim/lait.lua: `:LaitRun` asks for the
inputs, the shell tool's approval and the MCP server's elicitation come up through a scripted
vim.ui.select / vim.ui.input (allow once / for the session / deny, answer with a re-asked invalid
field / decline / Escape = cancel), the `ask:` step through vim.ui.select, and the output buffer
holds the progress and the result."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from lait_ls.run import EDITOR_DENIAL
from tests.editors.test_neovim import _nvim
from tests.lsp.run_support import pid_alive, write_project
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

WORKFLOW = """name: notes-flow
inputs:
  topic: string
  count:
    type: integer
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

ANSWERS = [
    "",  # Prompt (optional): none
    "food",  # topic
    "2",  # count
    "Allow once",  # tool__shout
    "Allow for this session",  # notes__save_note
    "Answer",  # elicitation 1
    "Milk",  # title
    "9",  # priority: more than the maximum 5, asked again
    "2",
    "Decline",  # elicitation 2 (no approval: session grant)
    None,  # elicitation 3: Escape = cancel
    "Deny",  # tool__shout again
    "yes",  # the ask step
]


def run_nvim(
    tmp_path: Path, workflow: Path, answers: list[str | None], command: str = "LaitRun", **extra_env: str
) -> dict[str, Any]:
    nvim = _nvim()
    out = tmp_path / "out.json"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "LAIT_LS_CMD": json.dumps([sys.executable, "-m", "lait_ls.server"]),
        "LAIT_MODULE": str(ROOT / "editors" / "neovim" / "lait.lua"),
        "LAIT_FILE": str(workflow),
        "LAIT_ANSWERS": json.dumps(answers),
        "LAIT_COMMAND": command,
        "LAIT_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        **extra_env,
    }
    proc = subprocess.run(
        [nvim, "--headless", "--clean", "-c", f"luafile {HERE / 'run.lua'}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert out.exists(), f"nvim wrote nothing (rc {proc.returncode}): {proc.stderr[-2000:]}"
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert seen["ok"], seen["error"]
    assert seen["attached"] and seen["finished"], seen
    assert seen["unused_answers"] == []
    return seen


def workflow_file(tmp_path: Path) -> Path:
    workflow = tmp_path / "workflows" / "notes.yml"
    workflow.parent.mkdir()
    workflow.write_text(WORKFLOW, encoding="utf-8")
    return workflow


def test_neovim_dry_run(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        seen = run_nvim(tmp_path, workflow_file(tmp_path), ["", "tea", ""], "LaitDryRun")
        assert seen["result"]["status"] == "ok"
        assert seen["result"]["output"].startswith("dry run: showing the execution plan only")
        assert "Work on tea" in seen["result"]["output"]
        assert seen["output"][-1].startswith("==> ok in ")
        assert llm.bodies == []


def test_neovim_cancel_leaves_no_process(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids.txt"
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm, pid_file=pid_file)
        workflow = tmp_path / "workflows" / "wait.yml"
        workflow.parent.mkdir()
        workflow.write_text(
            'steps:\n  - prompt: "wait"\n    tools: [sleepy]\n    mcp: [notes]\n', encoding="utf-8"
        )
        llm.push(tool_calls(call("tool__sleepy", {})), text("never"))
        seen = run_nvim(tmp_path, workflow, ["go", "Allow once"], LAIT_CANCEL_AFTER=f"{pid_file}:3")
        assert seen["cancel_ready"]
        assert seen["result"]["status"] == "cancelled"
        pids = [int(p) for p in pid_file.read_text().split()]
        assert len(pids) == 3
        # nvim does not wait for its server to exit: give the server a moment to finish
        deadline = time.monotonic() + 10
        while any(pid_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(pid_alive(p) for p in pids), [p for p in pids if pid_alive(p)]


def test_neovim_runs_a_workflow_with_dialogs(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        workflow = workflow_file(tmp_path)
        llm.push(
            tool_calls(call("tool__shout", {"text": "hi"})),
            tool_calls(call("notes__save_note", {"text": "milk"})),
            tool_calls(call("notes__save_note", {"text": "eggs"})),
            tool_calls(call("notes__save_note", {"text": "bread"})),
            tool_calls(call("tool__shout", {"text": "again"})),
            text("worked"),
        )
        seen = run_nvim(tmp_path, workflow, ANSWERS)

        result = seen["result"]
        assert result["status"] == "ok", result
        assert json.loads(result["output"]) == {"answer": "worked", "kept": "yes", "count": 2}

        prompts = seen["prompts"]
        assert [p["kind"] for p in prompts] == ["input"] * 3 + ["select"] * 3 + ["input"] * 3 + ["select"] * 4
        assert prompts[1]["prompt"].startswith("topic (required)")
        assert prompts[2]["default"] == "1"
        shout = prompts[3]
        assert shout["items"] == ["Allow once", "Allow for this session", "Deny"]
        assert shout["prompt"].startswith("lait: allow tool tool__shout?")
        assert "command: " in shout["prompt"] and shout["prompt"].endswith(" hi")
        # the exact argv: the -c program is one word, quoted
        assert " -c 'import sys; print(sys.argv[1].upper())' hi" in shout["prompt"]
        assert prompts[4]["prompt"].startswith("lait: allow tool notes__save_note (MCP server notes)?")
        assert prompts[5]["prompt"] == "lait: MCP server notes asks: Save the note 'milk'?"
        assert prompts[6]["prompt"].startswith("Title (required) — Title of the note")
        assert prompts[8]["prompt"].startswith("at most 5; Priority (required)")
        assert prompts[-1] == {
            "kind": "select",
            "prompt": "Keep the result for food?",
            "items": ["yes", "no"],
        }

        tool_results = [
            m["content"].split("\n\n")[0] for m in llm.bodies[-1]["messages"] if m["role"] == "tool"
        ]
        assert tool_results == [
            "HI",
            "saved 'Milk' (priority 2): milk",
            "not saved: decline",
            "not saved: cancel",
            EDITOR_DENIAL,
        ]

        output = seen["output"]
        assert output[0] == "==> notes-flow"
        assert "[1] work" in output and '    -> tool tool__shout({"text":"hi"})' in output
        assert "    <- tool__shout: HI" in output
        assert f"    -> tool tool__shout denied: {EDITOR_DENIAL}" in output
        assert output[-2] == result["output"] and output[-1].startswith("==> ok in ")


FORM = {
    "runId": "r",
    "server": "deploy",
    "mode": "form",
    "message": "Where to?",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "env": {
                "type": "string",
                "oneOf": [{"const": "prod", "title": "Production"}, {"const": "dev", "title": "Dev"}],
            },
            "force": {"type": "boolean"},
            "regions": {"type": "array", "items": {"enum": ["eu", "us", "ap"]}, "minItems": 1, "maxItems": 2},
            "replicas": {"type": "integer", "minimum": 1},
            "note": {"type": "string", "maxLength": 5},
        },
        "required": ["env", "force", "regions", "replicas"],
    },
    "propertyOrder": ["env", "force", "regions", "replicas", "note"],
}


DEFAULTS = {
    "runId": "r",
    "server": "shop",
    "mode": "form",
    "message": "Your pizza?",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "size": {
                "type": "string",
                "title": "Size",
                "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large (l)"}],
                "default": "l",
            },
            "extras": {"type": "array", "items": {"enum": ["ham", "olive"]}, "default": ["olive", "ham"]},
            "note": {"type": "string", "default": "none"},
        },
        "required": ["size"],
    },
    "propertyOrder": ["size", "extras", "note"],
}


def test_neovim_dialogs_on_their_own(tmp_path: Path) -> None:
    """Every field kind of an elicitation form, validation re-asks, leave-out, decline / cancel /
    Escape in a field, URL mode, the ask and approval answers."""
    nvim = _nvim()
    cases = [
        {
            "dialog": "elicit",
            "params": FORM,
            "answers": ["Answer", "Production", "No", "(done)", "us", "eu", "(done)", "1.5", "0", "3", ""],
        },
        {
            "dialog": "elicit",
            "params": FORM,
            "answers": ["Answer", "Dev", "Yes", "ap", "(done)", "2", "toolong", "ok"],
        },
        {"dialog": "elicit", "params": FORM, "answers": ["Decline"]},
        {"dialog": "elicit", "params": FORM, "answers": [None]},
        {"dialog": "elicit", "params": FORM, "answers": ["Answer", "Dev", None]},
        {
            "dialog": "elicit",
            "params": {
                "runId": "r",
                "server": "s",
                "mode": "url",
                "message": "Sign in",
                "url": "https://x.test",
            },
            "answers": ["Decline"],
        },
        {
            "dialog": "elicit",
            "params": {"runId": "r", "server": "s", "mode": "carrier-pigeon", "message": "?"},
            "answers": [],
        },
        {"dialog": "elicit", "params": DEFAULTS, "answers": ["Answer", "Large (l) (default)", "(done)", ""]},
        {
            "dialog": "elicit",
            "params": {
                "runId": "r",
                "server": "s",
                "mode": "url",
                "message": "Sign in",
                "url": "https://x.test",
                "retriesCall": True,
            },
            "answers": ["Cancel"],
        },
        {
            "dialog": "ask",
            "params": {"runId": "r", "question": "Q?", "choices": ["a", "b"], "default": "b"},
            "answers": ["a"],
        },
        {
            "dialog": "ask",
            "params": {"runId": "r", "question": "Name?", "default": "anon"},
            "answers": [None],
        },
        {
            "dialog": "approve",
            "params": {"runId": "r", "tool": "tool__x", "arguments": "{}"},
            "answers": [None],
        },
    ]
    out = tmp_path / "out.json"
    env = {
        **os.environ,
        "LAIT_MODULE": str(ROOT / "editors" / "neovim" / "lait.lua"),
        "LAIT_CASES": json.dumps(cases),
        "LAIT_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    proc = subprocess.run(
        [nvim, "--headless", "--clean", "-c", f"luafile {HERE / 'elicit.lua'}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.exists(), f"nvim wrote nothing (rc {proc.returncode}): {proc.stderr[-2000:]}"
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert seen["ok"], seen["error"]
    assert seen["results"] == [
        {
            "action": "accept",
            "content": {"env": "prod", "force": False, "regions": ["us", "eu"], "replicas": 3},
        },
        {
            "action": "accept",
            "content": {"env": "dev", "force": True, "regions": ["ap"], "replicas": 2, "note": "ok"},
        },
        {"action": "decline"},
        {"action": "cancel"},
        {"action": "cancel"},
        {"action": "decline"},
        {"action": "decline"},
        # the note (input pre-filled with its default, emptied) is left out: lait-ls fills in the default
        {"action": "accept", "content": {"size": "l", "extras": ["olive", "ham"]}},
        {"action": "cancel"},
        {"answer": "a"},
        None,
        {"decision": "deny"},
    ]
    prompts = [p["prompt"] for p in seen["prompts"]]
    assert prompts[0] == "lait: MCP server deploy asks: Where to?"
    assert prompts[1].startswith("env (required)")
    assert seen["prompts"][1]["items"] == ["Production", "Dev"]
    assert seen["prompts"][2]["items"] == ["Yes", "No"]
    assert prompts[3].startswith("regions (required) [0 chosen]")
    assert prompts[4].startswith("at least 1; regions (required) [0 chosen]")
    assert seen["prompts"][5]["items"] == ["eu", "ap", "(done)"]  # "us" is taken
    assert prompts[7].startswith("replicas (required)")
    assert prompts[8].startswith("not an integer; replicas")
    assert prompts[9].startswith("at least 1; replicas")
    assert prompts[10].startswith("note (optional, empty = leave out)")
    assert any(p.startswith("at most 5 characters; note") for p in prompts)
    size = next(p for p in seen["prompts"] if p["prompt"].startswith("Size (required)"))
    assert size["items"] == ["Large (l) (default)", "Small"]  # SEP-1034: the default first, marked
    extras = next(p for p in seen["prompts"] if p["prompt"].startswith("extras"))
    assert "[default: olive, ham]" in extras["prompt"]
    notes = [p.get("default") for p in seen["prompts"] if p["prompt"].startswith("note (optional")]
    assert notes[-1] == "none"  # the input is pre-filled with the default
    assert "lait: s: Sign in (the tool call is retried when you are done there)" in prompts
    ask_choice = next(p for p in seen["prompts"] if p["prompt"] == "Q?")
    assert ask_choice["items"] == ["b", "a"]  # the default first


EACH = """name: each-fruit
steps:
  - id: each
    for_each: '[., "pear"]'
    steps:
      - id: shout_item
        prompt: "Shout {{ loop.item }}"
        tools: [shout]
"""


def test_neovim_laitruns_lists_the_steps_with_their_status(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        workflow = tmp_path / "workflows" / "each.yml"
        workflow.parent.mkdir()
        workflow.write_text(EACH, encoding="utf-8")
        usage = {"usage": {"prompt_tokens": 40, "completion_tokens": 10, "total_tokens": 50}}
        llm.push(
            tool_calls(call("tool__shout", {"text": "apple"}, id="c1"), **usage),
            text("APPLE", **usage),
            tool_calls(call("tool__shout", {"text": "pear"}, id="c2"), **usage),
            text("PEAR", **usage),
        )
        seen = run_nvim(tmp_path, workflow, ["apple", "Allow for this session"], LAIT_RUNS="[3] shout_item")
    assert seen["result"]["status"] == "ok"
    assert seen["runs_buffer"].endswith("lait://runs")
    # Durations vary: compare the lines without them.
    lines = [re.sub(r"  \d+\.\ds", "", line) for line in seen["runs"]]
    assert lines == [
        "each-fruit  ok  200 tokens",
        "  [1] each (for_each)  ok  200 tokens",
        "    iterating over 2 item(s)",
        "    item 1/2",
        "    [2] shout_item (prompt)  ok  100 tokens",
        "      approval asked: tool__shout  session",
        '      tool tool__shout {"text":"apple"}  ok  -> APPLE',
        "    item 2/2",
        "    [3] shout_item (prompt)  ok  100 tokens",
        '      tool tool__shout {"text":"pear"}  ok  -> PEAR',
    ], seen["runs"]
    # <CR> on a step opens its workflow file at the step (line 6, 1-based; column 8, 0-based: where its mapping starts).
    assert seen["jumped"] == {"file": str(workflow.resolve()), "cursor": [6, 8]}
