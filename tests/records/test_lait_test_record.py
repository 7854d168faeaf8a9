"""`lait test --record` (issue 14 item 5): the selected tests' cassettes are refreshed against the
live model (the scripted server), entries that did not change are left byte-for-byte alone, and
stderr reports which entries are new or changed; the report and exit code are those of the run."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.records.test_lait_test import PASSING
from tests.records.test_record_replay import USAGE, WORKFLOW, script


def entries(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))}


def test_record_creates_then_refreshes_only_what_changed(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", WORKFLOW)
    project.write("tests/t.yml", PASSING.replace("wf.yml", "../wf.yml").replace("tape", "../tape"))
    script(server)
    first = project("test", "--record", "tests/t.yml")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "tests/t.yml: PASS\n1 passed, 0 failed, 1 total\n"
    lines = first.stderr.splitlines()
    assert lines[-1] == "cassettes: 4 new, 0 changed, 0 unchanged"
    assert all(re.fullmatch(r"recorded tape/[0-9a-f]{64}\.json: new", line) for line in lines[:-1]), lines
    tape = project.cwd / "tape"
    before = entries(tape)
    assert sorted(f"recorded tape/{name}: new" for name in before) == sorted(lines[:-1])

    sent = len(server.bodies)
    replayed = project("test", "tests/t.yml")  # replays what was just recorded: no request
    assert (replayed.returncode, replayed.stdout) == (0, first.stdout)
    assert len(server.bodies) == sent

    # The model now answers the second for_each item differently: one entry changes, the others
    # keep their bytes (recorded_at included), and the test fails on the new answer.
    server.push(
        tool_calls(
            call("tool__shout", {"word": "cats"}, id="c1"), call("peer__add", {"a": 2, "b": 3}, id="c2")
        ),
        text("shouted and added", usage=USAGE),
        text("item one", usage=USAGE),
        text("item 2", usage=USAGE),
    )
    second = project("test", "--record", "tests/t.yml")
    assert second.returncode == 1
    assert second.stdout.splitlines()[:2] == [
        "tests/t.yml: FAIL",
        '  assertion 1: equals: expected "{\\"research\\":\\"shouted and added\\",\\"items\\":[\\"item one\\",\\"item two\\"]}", '
        'got "{\\"research\\":\\"shouted and added\\",\\"items\\":[\\"item one\\",\\"item 2\\"]}"',
    ]
    after = entries(tape)
    changed = [name for name in before if before[name] != after[name]]
    assert len(changed) == 1 and b'"item 2"' in after[changed[0]]
    assert second.stderr.splitlines() == [
        f"recorded tape/{changed[0]}: changed",
        "cassettes: 0 new, 1 changed, 3 unchanged",
    ]
