"""The extension inside a real VS Code: code-server 4.100.3 (VS Code 1.100) shown in Debian's chromium
and driven through its UI by Playwright, with the packaged .vsix installed and the example project
open (its model endpoint pointed at the scripted OpenAI-compatible server, plus a shell tool and the
eliciting MCP server of tests/peers).

One code-server for the whole module (starting one takes about 15 s); the tests run in file order
and each leaves the workbench as it found it (dialogs closed, files saved or reverted). The project
also has a workflow with a problem that is never opened (the Problems panel lists it: pull
diagnostics) and one with jq in every scalar style (coloured by lait-ls's semantic tokens).
Installed by .ci/install-vscode-peer; a missing piece fails with the command to run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lait_ls.run import EDITOR_DENIAL
from tests.editors.vscode_project import lait_ls_wrapper, prepare_project
from tests.editors.vscode_ui import TreeRow, UiTimeout, Workbench, code_server, screenshot_if_failed, wait_for
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.processes import running_with_marker

ROOT = Path(__file__).resolve().parents[2]

STALE = """name: stale
description: Never opened in the editor; its problem is listed all the same.
steps:
  - agent: summariser
"""
"""A workflow no test opens: its problem (LAIT319) comes from the workspace pull."""

COLOURS = """name: colours
description: $steps.x.ok and .y > 1
steps:
  - id: x
    jq: '{ok: true, y: 2}'
  - id: check
    when: $steps.x.ok and .y > 1
    jq: |
      $steps.x | {ok, y: (.y + 1)}
  - id: quoted
    when: '$steps.x.ok and .y > 1'
    prompt: |
      $steps.x | {ok, y: (.y + 1)}
"""
"""jq in a plain, a literal block and a single-quoted scalar (lines 7, 9, 11); the same texts as a
plain description (line 2) and a literal block prompt (line 13), which are not jq."""


class Session:
    def __init__(self, workbench: Workbench, llm: ScriptedOpenAIServer, workspace: Path, marker: str) -> None:
        self.workbench = workbench
        self.llm = llm
        self.workspace = workspace
        self.marker = marker


@pytest.fixture(scope="module")
def session(vsix: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    home = tmp_path_factory.mktemp("vscode-e2e")
    marker = uuid.uuid4().hex
    with ScriptedOpenAIServer() as llm:
        workspace = home / "project"
        prepare_project(workspace, llm.url)
        (workspace / "workflows" / "stale.yml").write_text(STALE, encoding="utf-8")
        (workspace / "workflows" / "colours.yml").write_text(COLOURS, encoding="utf-8")
        settings = {"lait.server.path": str(lait_ls_wrapper(home / "bin", marker)), "lait.debounce": 50}
        with code_server(home, workspace, vsix, settings, {}) as workbench:
            workbench.wait_status(r"^lait \d+\.\d+\.\d+ · lait\.config\.yml$")
            yield Session(workbench, llm, workspace, marker)
    wait_for("no process of lait-ls left", lambda: not running_with_marker(marker), 15)


@pytest.fixture
def workbench(session: Session, request: pytest.FixtureRequest) -> Iterator[Workbench]:
    yield session.workbench
    screenshot_if_failed(request, session.workbench)
    session.workbench.escape_all()


def lint_json(workspace: Path, relative: str) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "lint", "--format", "json", relative],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(workspace.parent)},
    )
    assert proc.returncode in (0, 3), proc.stderr
    found: list[dict[str, Any]] = json.loads(proc.stdout)
    return found


def problem_rows(problems: list[Any]) -> list[tuple[str, str, str, str, int, int]]:
    return sorted((p.file, p.severity, p.message, p.code, p.line, p.column) for p in problems)


def test_problems_panel_equals_lait_lint_for_an_edited_workflow(
    session: Session, workbench: Workbench
) -> None:
    workbench.open_file("workflows/triage.yml")
    # The workspace pull: a workflow that is not open has its problem listed, and nothing else.
    wait_for(
        "the problem of stale.yml, which is not open",
        lambda: (
            [(p.file, p.code, p.line, p.column) for p in workbench.problems()]
            == [("workflows/stale.yml", "LAIT319", 4, 12)]
        ),
        30,
    )
    # Two typos, typed into the editor (line numbers of examples/workflows/triage.yml).
    workbench.replace_line(27, "output_schema: clasification")
    workbench.replace_line(38, "- agent: reviewr")
    workbench.save()
    found = lint_json(session.workspace, ".")
    expected = sorted(
        (d["file"], d["severity"], d["message"], d["code"], d["line"], d["column"]) for d in found
    )
    triage = [d["code"] for d in found if d["file"] == "workflows/triage.yml"]
    assert len(triage) == 3 and set(triage) >= {"LAIT313", "LAIT319"}
    # The dependants that are not open show their problems too (the test, the eval, release.yml).
    assert {d["file"] for d in found} > {"workflows/triage.yml", "workflows/stale.yml"}
    seen: list[list[Any]] = [[]]

    def shown() -> bool:  # messages too, character for character (lait-ls runs in the workspace)
        seen[0] = problem_rows(workbench.problems())
        return seen[0] == expected

    try:
        wait_for("the Problems panel to equal `lait lint .`", shown, 30)
    except UiTimeout as e:
        raise UiTimeout(f"{e}: expected {expected}, shown {seen[0]}") from None


def triage_codes(workbench: Workbench) -> set[str]:
    return {p.code for p in workbench.problems() if p.file == "workflows/triage.yml"}


def test_a_quick_fix_is_applied(session: Session, workbench: Workbench) -> None:
    workbench.open_file("workflows/triage.yml")
    workbench.goto(38, 22)
    actions = workbench.code_actions()
    workbench.picture("vscode-quick-fix")
    assert actions[0] == "Replace with 'reviewer'"
    assert "Suppress LAIT319 on this line" in actions
    workbench.apply_code_action("Replace with 'reviewer'")
    workbench.wait_dirty()
    workbench.save()
    lines = (session.workspace / "workflows" / "triage.yml").read_text(encoding="utf-8").splitlines()
    assert lines[37] == "          - agent: reviewer"
    wait_for("LAIT319 gone", lambda: "LAIT319" not in triage_codes(workbench), 15)
    # The other typo is fixed the same way, and the file is clean again.
    workbench.goto(27, 24)
    assert workbench.code_actions()[0] == "Replace with 'classification'"
    workbench.apply_code_action("Replace with 'classification'")
    workbench.wait_dirty()
    workbench.save()
    assert (session.workspace / "workflows" / "triage.yml").read_text(encoding="utf-8") == (
        ROOT / "examples" / "workflows" / "triage.yml"
    ).read_text(encoding="utf-8")
    # Only the problem of the workflow that is not open is left.
    wait_for(
        "no problems but stale.yml's",
        lambda: [(p.file, p.code) for p in workbench.problems()] == [("workflows/stale.yml", "LAIT319")],
        15,
    )


def test_hover_shows_what_an_agent_name_resolves_to(workbench: Workbench) -> None:
    workbench.open_file("workflows/triage.yml")
    workbench.goto(38, 22)
    hover = workbench.hover_text("agent reviewer")
    assert "agent reviewer" in hover
    assert "Reviews a change and lists concrete problems with file and line." in hover
    assert "agents/reviewer.md" in hover


SPANS_BY_LINE = """() => {
    const lines = [...document.querySelectorAll('.editor-group-container.active .view-lines .view-line')];
    return lines.map(line => ({
        top: parseFloat(line.style.top || '0'),
        spans: [...line.querySelectorAll(':scope > span > span')].map(span => ({
            text: span.textContent.replace(/\\u00a0/g, ' '),
            color: getComputedStyle(span).color,
            cls: span.className,
        })),
    })).sort((a, b) => a.top - b.top).map(line => line.spans);
}"""
"""The rendered lines of the active editor, top to bottom: each a list of its spans (text, computed
colour, Monaco's token class)."""


def test_jq_strings_are_coloured(workbench: Workbench, tmp_path: Path) -> None:
    """lait-ls's semantic tokens colour jq with the default theme: `$steps` inside a jq string (plain,
    literal block and quoted scalar) is shown in another colour than the same text in a description
    and a prompt, which the YAML grammar colours exactly alike (it cannot tell jq from text)."""
    workbench.open_file("workflows/colours.yml")
    jq_lines, text_lines = (7, 9, 11), (2, 13)
    seen: list[list[list[dict[str, str]]]] = [[]]

    def steps_span(line: int) -> dict[str, str] | None:
        spans = seen[0][line - 1] if line <= len(seen[0]) else []
        return next((span for span in spans if span["text"].strip().startswith("$steps")), None)

    def coloured() -> bool:
        seen[0] = workbench.page.evaluate(SPANS_BY_LINE)
        found = [steps_span(line) for line in (*jq_lines, *text_lines)]
        if any(span is None for span in found):
            return False
        jq = {span["color"] for span in found[: len(jq_lines)] if span}
        text = {span["color"] for span in found[len(jq_lines) :] if span}
        return len(jq) == 1 and len(text) == 1 and jq != text

    try:
        wait_for("$steps coloured as a variable in the jq strings only", coloured, 30)
    except UiTimeout as e:
        shown = {line: seen[0][line - 1] for line in (*jq_lines, *text_lines) if line <= len(seen[0])}
        raise UiTimeout(f"{e}; the lines showed {shown}") from None
    assert "".join(s["text"] for s in seen[0][6]).strip() == "when: $steps.x.ok and .y > 1"
    assert "".join(s["text"] for s in seen[0][1]).strip() == "description: $steps.x.ok and .y > 1"
    for line in jq_lines:  # exactly `$steps` is the variable, `.x` is coloured apart from it
        span = steps_span(line)
        assert span is not None and span["text"] == "$steps", seen[0][line - 1]
    # The description's and the prompt's text is one string-coloured span (no token inside).
    for line in text_lines:
        span = steps_span(line)
        assert span is not None and "$steps.x" in span["text"], seen[0][line - 1]
    # The jq variable's colour is not the string colour of the quote that opens its scalar.
    quote = next(span for span in seen[0][10] if span["text"].strip().startswith("'"))
    assert quote["color"] != (steps_span(11) or {})["color"]
    picture = tmp_path / "vscode-jq-colours.png"
    workbench.screenshot(picture)
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot of the coloured jq: {picture}")
    workbench.picture("vscode-jq-colours")


def test_completion_in_an_mcp_list_offers_the_configured_servers(workbench: Workbench) -> None:
    workbench.open_file("workflows/offline.yml")
    # `tools: [grep]` (line 10) gets a sibling `mcp: []`, the cursor inside the brackets.
    workbench.goto(10, 18)
    workbench.press("Enter")
    workbench.page.keyboard.insert_text("mcp: [")
    labels = workbench.suggestions()
    names = [label.split(",")[0].strip() for label in labels]
    assert {"notes", "everything", "asker"} <= set(names), labels
    assert "grep" not in names and "reviewer" not in names
    workbench.escape_all()
    workbench.run_command("File: Revert File")
    wait_for("the revert", lambda: not workbench.is_dirty(), 10)


def approval(workbench: Workbench, tool: str) -> str:
    # The title shows before the list renders its items: wait for both.
    q = workbench.wait_quick_input(
        f"the approval of {tool}", lambda q: q.title == f"lait: allow {tool}?" and len(q.items) >= 3
    )
    assert q.items[:3] == ["Allow once", "Allow for this session", "Deny"] or [
        i.split(",")[0] for i in q.items
    ][:3] == ["Allow once", "Allow for this session", "Deny"], q
    return q.placeholder


def test_run_workflow_with_approvals_and_an_elicitation_form(session: Session, workbench: Workbench) -> None:
    llm = session.llm
    llm.push(
        tool_calls(call("tool__shout", {"text": "one"}, id="c1")),
        tool_calls(call("tool__shout", {"text": "two"}, id="c2")),
        tool_calls(call("tool__shout", {"text": "three"}, id="c3")),
        tool_calls(call("asker__save_note", {"text": "spam"}, id="c4")),
        tool_calls(call("asker__save_note", {"text": "buy milk"}, id="c5")),
        tool_calls(call("asker__save_note", {"text": "eggs"}, id="c6")),
        tool_calls(call("asker__save_note", {"text": "bread"}, id="c7")),
        text("all done"),
    )
    before = len(llm.bodies)
    workbench.open_file("workflows/shout.yml")
    lens = workbench.code_lens("Run workflow")
    lens.wait_for(timeout=20_000)
    lens.click()
    prompt = workbench.wait_quick_input(
        "the prompt", lambda q: "Prompt for the workflow" in q.message + q.placeholder
    )
    assert prompt.title.startswith("lait: Run workflow shout-and-save")
    workbench.answer("shopping")
    # Allow once, then for the session: the third call of the same tool asks nothing.
    assert approval(workbench, "tool__shout").endswith(" one")
    workbench.picture("vscode-approval")
    workbench.pick("Allow once")
    approval(workbench, "tool__shout")
    workbench.pick("Allow for this session")
    # Deny one MCP call, allow the tool for the session, then answer its elicitations.
    assert "MCP server 'asker'" in approval(workbench, "asker__save_note")
    workbench.pick("Deny")
    approval(workbench, "asker__save_note")
    workbench.pick("Allow for this session")
    workbench.wait_quick_input(
        "the elicitation", lambda q: "Save the note 'buy milk'?" in q.placeholder + q.title
    )
    workbench.pick("Answer")
    workbench.wait_quick_input(
        "the title field", lambda q: "title" in (q.message + q.placeholder + q.title).lower()
    )
    workbench.answer("Milk")
    workbench.wait_quick_input(
        "the priority field", lambda q: "priority" in (q.message + q.placeholder + q.title).lower()
    )
    workbench.answer("2")
    workbench.wait_quick_input(
        "the second elicitation", lambda q: "Save the note 'eggs'?" in q.placeholder + q.title
    )
    workbench.pick("Decline")
    workbench.wait_quick_input(
        "the third elicitation", lambda q: "Save the note 'bread'?" in q.placeholder + q.title
    )
    workbench.press("Escape")
    wait_for("the run to end", lambda: llm.remaining == 0 and len(llm.bodies) == before + 8, 30)
    results = [
        [m["content"] for m in body["messages"] if m["role"] == "tool"][-1]
        for body in llm.bodies[before + 1 :]
    ]
    assert [r.split("\n\n")[0] for r in results] == [
        "ONE",
        "TWO",
        "THREE",
        EDITOR_DENIAL,
        "saved 'Milk' (priority 2): buy milk",
        "not saved: decline",
        "not saved: cancel",
    ]
    assert workbench.quick_input() is None


def test_cancel_leaves_no_process(session: Session, workbench: Workbench) -> None:
    pids_file = session.workspace / "sleepy.pids"
    session.llm.push(
        tool_calls(call("tool__sleepy", {"script": str(session.workspace / "sleepy.py")}, id="s1"))
    )
    workbench.open_file("workflows/slow.yml")
    lens = workbench.code_lens("Run workflow")
    lens.wait_for(timeout=20_000)
    lens.click()
    workbench.wait_quick_input("the prompt", lambda q: "Prompt for the workflow" in q.message + q.placeholder)
    workbench.answer("wait")
    approval(workbench, "tool__sleepy")
    workbench.pick("Allow once")
    pids = wait_for(
        "the tool and its child to start",
        lambda: [int(p) for p in pids_file.read_text().split()] if pids_file.exists() else None,
        30,
    )
    assert len(pids) == 2
    lait_ls = set(running_with_marker(session.marker))
    assert set(pids) <= lait_ls
    toast = workbench.page.locator(".notifications-toasts .notification-toast", has_text="lait: running slow")
    toast.wait_for(timeout=10_000)
    toast.hover()
    toast.get_by_role("button", name="Cancel").click()
    wait_for(
        "the tool and its child to end", lambda: not set(pids) & set(running_with_marker(session.marker)), 15
    )
    # Only lait-ls itself is left, and it still answers.
    left = running_with_marker(session.marker)
    commands = [Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode() for pid in left]
    assert all("lait_ls.server" in c for c in commands), commands
    wait_for("the notification to close", lambda: toast.count() == 0, 15)
    time.sleep(0.2)
    assert re.search(r"lait \d", " ".join(workbench.status_texts()))


def run_rows(workbench: Workbench, name: str) -> list[TreeRow]:
    """The Runs view's rows of the newest run called ``name`` (its own row first)."""
    rows = workbench.tree_rows("Runs")
    start = next((i for i, r in enumerate(rows) if r.level == 1 and r.label == name), None)
    if start is None:
        return []
    end = next((i for i in range(start + 1, len(rows)) if rows[i].level == 1), len(rows))
    return rows[start:end]


def test_run_view_shows_a_for_each_with_a_shell_tool(session: Session, workbench: Workbench) -> None:
    llm = session.llm
    asked = {
        "usage": {"prompt_tokens": 40, "completion_tokens": 10, "total_tokens": 50},
        "stream_usage": True,
    }
    answered = {
        "usage": {"prompt_tokens": 25, "completion_tokens": 5, "total_tokens": 30},
        "stream_usage": True,
    }
    llm.push(
        tool_calls(call("tool__upper", {"text": "apple"}, id="u1"), **asked),
        text("APPLE shouted", **answered),
        tool_calls(call("tool__upper", {"text": "pear"}, id="u2"), **asked),
        text("PEAR shouted", **answered),
    )
    workbench.open_file("workflows/each.yml")
    lens = workbench.code_lens("Run workflow")
    lens.wait_for(timeout=20_000)
    lens.click()
    workbench.wait_quick_input("the prompt", lambda q: "Prompt for the workflow" in q.message + q.placeholder)
    workbench.answer("apple")  # the prompt is the first item
    approval(workbench, "tool__upper")
    workbench.pick("Allow for this session")  # the second item asks nothing
    wait_for("the run to end", lambda: llm.remaining == 0, 30)
    workbench.run_command("lait: Focus on Runs View")

    expected = [
        (1, "each-fruit", "ok · 160 tokens"),
        (2, "[1] each", "for_each · ok · 160 tokens"),
        (3, "iterating over 2 item(s)", ""),
        (3, "item 1/2", ""),
        (3, "[2] shout_item", "prompt · ok · 80 tokens"),
        (4, "approval asked: tool__upper", "allowed for this session"),
        (4, "tool tool__upper", '{"text":"apple"} → APPLE'),
        (3, "item 2/2", ""),
        (3, "[3] shout_item", "prompt · ok · 80 tokens"),
        (4, "tool tool__upper", '{"text":"pear"} → PEAR'),
    ]
    last: list[list[tuple[int, str, str]]] = [[]]

    def final() -> list[TreeRow] | None:
        # VS Code fetches an expanded item's children after it renders the item: the run can show
        # "ok" a moment before its steps' children are there, so wait for the whole tree.
        rows = run_rows(workbench, "each-fruit")
        last[0] = [(r.level, r.label, re.sub(r" · \d+\.\ds", "", r.description)) for r in rows]
        return rows if last[0] == expected else None

    try:
        rows = wait_for("the run's final state in the Runs view", final, 30)
    except UiTimeout:
        assert last[0] == expected  # shows the difference
        raise
    assert [r.icon for r in rows if r.label.startswith("[")] == ["codicon-pass"] * 3
    assert "codicon-pass" in rows[0].icon
    if os.environ.get("LAIT_UPDATE_IMAGES") == "1":  # a wider side bar for the README's picture
        workbench.widen_side_bar(560)
    workbench.picture("vscode-run-view")
    # A click on a step reveals it in the workflow file (line 7 of each.yml).
    workbench.open_file("workflows/shout.yml")
    workbench.tree_row("Runs", "[3] shout_item").click()
    wait_for("each.yml at the step", lambda: any(t.startswith("Ln 7,") for t in workbench.status_texts()), 10)
    assert workbench.page.locator(".tab.active", has_text="each.yml").count() == 1
    # "Run again" asks nothing (same prompt); "Open output" shows the run's progress lines.
    llm.push(
        tool_calls(call("tool__upper", {"text": "apple"}, id="u3")),
        text("again"),
        tool_calls(call("tool__upper", {"text": "pear"}, id="u4")),
        text("again"),
    )
    before = len(llm.bodies)
    row = workbench.tree_row("Runs", "each-fruit")
    row.hover()
    row.locator(".action-label[aria-label='Run again']").click()
    wait_for("the second run to end", lambda: llm.remaining == 0, 30)
    assert llm.bodies[before]["messages"][-1]["content"] == "Shout apple"
    wait_for(
        "two each-fruit runs, the newest ok",
        lambda: (
            [r.label for r in workbench.tree_rows("Runs") if r.level == 1][:2] == ["each-fruit"] * 2
            and run_rows(workbench, "each-fruit")[0].description.startswith("ok")
        ),
        20,
    )
    row = workbench.tree_row("Runs", "each-fruit")
    row.hover()
    row.locator(".action-label[aria-label='Open output']").click()
    text_area = workbench.page.locator(".editor-group-container.active .view-lines")
    wait_for(
        "the run's output", lambda: "[2] shout_item" in text_area.inner_text().replace("\u00a0", " "), 10
    )
    assert "==> ok" in text_area.inner_text().replace("\u00a0", " ")
    workbench.run_command("View: Revert and Close Editor")


def test_workflow_graph_shows_the_nodes_and_links_them_to_their_steps(
    session: Session, workbench: Workbench
) -> None:
    workbench.open_file("workflows/each.yml")
    workbench.run_command("lait: Show workflow graph")
    frame = workbench.webview()
    nodes = frame.locator("#graph[data-state=shown] g.node")

    def texts() -> list[str]:
        return [" ".join(t.split()) for t in nodes.all_text_contents()]

    shown = wait_for("the graph's nodes", lambda: texts() if len(texts()) == 4 else None, 30)
    assert shown[0] == "start" and shown[-1] == "end", shown
    assert shown[1].startswith("each (for_each)") and shown[2].startswith("shout_item (prompt)"), shown
    # start and end stand for no step: only the two steps are links.
    links = frame.locator("g.node.lait-link")
    assert links.count() == 2
    workbench.picture("vscode-graph")
    # A click on a step's node reveals the step (line 7 of each.yml) in the editor.
    frame.locator("g.node.lait-link", has_text="shout_item").click()
    wait_for("each.yml at the step", lambda: any(t.startswith("Ln 7,") for t in workbench.status_texts()), 10)
    # Saving the file updates the graph.
    original = (session.workspace / "workflows" / "each.yml").read_text(encoding="utf-8")
    workbench.replace_line(7, "- id: yell_item")
    workbench.save()
    wait_for(
        "the renamed step in the graph", lambda: any(t.startswith("yell_item (prompt)") for t in texts()), 20
    )
    workbench.replace_line(7, "- id: shout_item")
    workbench.save()
    assert (session.workspace / "workflows" / "each.yml").read_text(encoding="utf-8") == original
    wait_for("the graph back", lambda: any(t.startswith("shout_item (prompt)") for t in texts()), 20)
    workbench.run_command("View: Close All Editors")


def test_a_trace_file_opens_in_the_run_view(session: Session, workbench: Workbench) -> None:
    llm = session.llm
    llm.push(
        tool_calls(call("tool__upper", {"text": "kiwi"}, id="t1")),
        text("KIWI"),
        tool_calls(call("tool__upper", {"text": "pear"}, id="t2")),
        text("PEAR"),
    )
    trace = session.workspace / "each.trace.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "lait_cli.main",
            "run",
            "workflows/each.yml",
            "kiwi",
            "--trace-file",
            str(trace),
        ],
        cwd=session.workspace,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(session.workspace.parent)},
    )
    assert proc.returncode == 0, proc.stderr
    workbench.run_command("lait: Open run trace")
    workbench.wait_quick_input("the file dialog", lambda q: "run trace" in q.title)
    workbench.page.locator(".quick-input-widget input").first.fill(str(trace))

    def accepted() -> bool:
        # The simple file dialog checks the typed path asynchronously; Enter before that is ignored.
        if workbench.quick_input() is None:
            return True
        workbench.press("Enter")
        return False

    wait_for("the file dialog to take the path", accepted, 20, every=1.0)

    def rows() -> list[TreeRow] | None:
        found = run_rows(workbench, "each.trace.jsonl")
        return found if len(found) >= 3 else None

    shown = [(r.level, r.label, r.description) for r in wait_for("the trace in the Runs view", rows, 20)]
    assert shown[0][1:] == ("each.trace.jsonl", shown[0][2]) and shown[0][2].startswith("trace · ok")
    labels = [(level, label) for level, label, _ in shown]
    assert (2, "shout_item") in labels, shown
    assert labels.count((3, "tool tool__upper")) == 2, shown
    assert any(level == 3 and label.startswith("model ") for level, label in labels), shown
