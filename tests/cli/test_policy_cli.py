"""`lait policy test` as a real subprocess: one table of cases over every policy source (the merged
global + project ``tool_policy``, ``allowed_tools``, ``lait.lock``, ``--approve-tools``, none), the
rule that decided, exit codes for CI (``--expect``), malformed cases, and that nothing runs: the
configured MCP server is a program that would leave a file behind if it were started."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Lait

#       case                          approve verdict source           rule (contained in)
TABLE = [
    ('notes__read {"id": 1}', False, "allow", "tool_policy", "allow pattern 'notes__*'"),
    ("notes__delete", False, "deny", "tool_policy", "deny pattern '*__delete'"),
    ("shell__rm", False, "deny", "tool_policy", "deny pattern 'shell__*'"),  # from the global config
    (
        "other__x",
        False,
        "deny",
        "tool_policy",
        "no allow pattern matches; allow: notes__*, tool__*, gated__*, pinned__*",
    ),
    ("gated__write", False, "deny", "allowed_tools", "not in the server's allowed_tools"),
    ("gated__read", False, "allow", "tool_policy", "allow pattern 'gated__*'"),
    ("pinned__new", False, "deny", "lait.lock", "the tool is not pinned"),
    ("pinned__old", False, "allow", "tool_policy", "allow pattern 'pinned__*'"),
    ("tool__rg", True, "ask", "approval", "--approve-tools"),
    ("notes__delete", True, "deny", "tool_policy", "deny pattern '*__delete'"),  # never asked
    ("gated__write", True, "deny", "allowed_tools", "not in the server's allowed_tools"),
]


@pytest.fixture
def project(lait: Lait, tmp_path: Path) -> Lait:
    started = tmp_path / "started"
    server = {"command": "sh", "args": ["-c", f"touch {started}"]}
    lait.write(
        "lait.config.yml",
        json.dumps(
            {
                "mcp_servers": {
                    "notes": server,
                    "gated": {**server, "allowed_tools": ["read"]},
                    "pinned": server,
                },
                "tools": {"rg": {"command": ["rg", "{{pattern}}"]}},
                "tool_policy": {
                    "allow": ["notes__*", "tool__*", "gated__*", "pinned__*"],
                    "deny": ["*__delete"],
                },
            }
        ),
    )
    global_dir = Path(lait.env["XDG_CONFIG_HOME"]) / "lait"
    global_dir.mkdir(parents=True)
    (global_dir / "config.yml").write_text("tool_policy:\n  deny: ['shell__*']\n")
    pinned = {
        "notes": {"read": {}, "delete": {}},
        "gated": {"read": {}, "write": {}},
        "pinned": {"old": {}},  # 'new' is not pinned
    }
    lock = {"version": 1, "servers": {n: {"command": ["sh"], "tools": t} for n, t in pinned.items()}}
    lait.write("lait.lock", json.dumps(lock))
    return lait


@pytest.mark.parametrize(("case", "approve", "verdict", "source", "rule"), TABLE)
def test_each_policy_source(
    project: Lait, tmp_path: Path, case: str, approve: bool, verdict: str, source: str, rule: str
) -> None:
    args = ["--approve-tools"] if approve else []
    run = project(*args, "policy", "test", case, "--json")
    assert run.returncode == 0, run.stderr
    [result] = json.loads(run.stdout)
    assert (result["verdict"], result["source"], result["rule"]) == (verdict, source, rule)
    assert result["ends_run"] is (source in ("allowed_tools", "lait.lock"))
    if source == "tool_policy" and verdict == "deny":
        assert result["message"] == f"denied by 'tool_policy' in lait.config.yml ({rule})"
    if source == "lait.lock":
        assert "lait mcp lock --update pinned" in result["message"]
    assert not (tmp_path / "started").exists()  # nothing was started


def test_text_output_and_expect(project: Lait, tmp_path: Path) -> None:
    run = project("policy", "test", "notes__delete {}", "--tool", "notes__read")
    assert run.returncode == 0, run.stderr
    assert run.lines[0].split() == ["deny", "notes__delete", "tool_policy:", "deny", "pattern", "'*__delete'"]
    assert run.lines[1].strip() == "denied by 'tool_policy' in lait.config.yml (deny pattern '*__delete')"
    assert run.lines[2].split()[:2] == ["allow", "notes__read"]
    ok = project("policy", "test", "--tool", "notes__delete", "--tool", "shell__x", "--expect", "deny")
    assert ok.returncode == 0, ok.stderr
    wrong = project("policy", "test", "--tool", "notes__delete", "--tool", "notes__read", "--expect", "deny")
    assert wrong.returncode == 1
    assert wrong.stderr == "lait: 'notes__read' is allow, expected deny\n"
    assert not (tmp_path / "started").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["notes__read {nope"], "lait: 'notes__read {nope': the arguments are not valid JSON: "),
        (["notes__read [1]"], "lait: 'notes__read [1]': the arguments must be a JSON object"),
        ([], "lait: name at least one call"),
        (["--tool", "x", "--expect", "maybe"], "lait: --expect must be allow, ask or deny"),
    ],
)
def test_malformed_cases_exit_2(project: Lait, args: list[str], message: str) -> None:
    run = project("policy", "test", *args)
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr.startswith(message), run.stderr


def test_a_broken_lock_exits_3(project: Lait) -> None:
    project.write("lait.lock", "{")
    run = project("policy", "test", "--tool", "pinned__old")
    assert run.returncode == 3 and "lait.lock:1:2: not a lait.lock file" in run.stderr
