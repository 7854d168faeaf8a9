"""What a person sees in a real VS Code (code-server, see test_vscode_e2e.py for the setup) when lait
does not apply or something is wrong:

* a folder that is not a lait project (a README.md and a GitHub Actions workflow) shows no lait
  status item and no message, and its lait-ls never starts;
* that folder's `lait.server.path` is a broken install (a lait-ls that fails on import): once the
  folder becomes a lait project, the failed start says its cause (the ModuleNotFoundError from the
  process's stderr) in the status item's state and in one message, and there is one output channel;
* in a lait project, a lait-ls killed again and again is restarted, then given up on: the status
  item says stopped, one message offers Restart, and Restart brings it back;
* a run that fails on its MCP server (tests/peers/mcp_failing_server.py) shows the server's stderr
  in its notification (with "Open run"), the output channel and the Runs view; a cancelled run is
  cancelled there, not failed; step output fields complete after `$steps.classify.`.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.editors.test_vscode_e2e import approval, run_rows
from tests.editors.vscode_project import ROOT, lait_ls_wrapper, prepare_project
from tests.editors.vscode_ui import Workbench, code_server, screenshot_if_failed, wait_for
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.processes import running_with_marker

ACTIONS = """name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pytest
"""

BROKEN_LAIT_LS = """#!/bin/sh
echo "$0" >> "{note}"
echo "lait-ls starting" >&2
exec python3 -I -c "import lait_ls_no_such_module"
"""
"""An install whose lait-ls fails on import (ModuleNotFoundError on stderr, exit 1)."""


@dataclass
class Plain:
    workbench: Workbench
    folder: Path
    started: Path
    """Each start of the broken lait-ls appends a line here."""

    def starts(self) -> int:
        return len(self.started.read_text().split()) if self.started.exists() else 0


@pytest.fixture(scope="class")  # ended before the next class starts its code-server
def plain(vsix: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Plain]:
    home = tmp_path_factory.mktemp("vscode-plain")
    folder = home / "repo"
    (folder / ".github" / "workflows").mkdir(parents=True)
    (folder / "README.md").write_text("# A project\n\nNothing about lait here.\n", encoding="utf-8")
    (folder / ".github" / "workflows" / "ci.yml").write_text(ACTIONS, encoding="utf-8")
    started = home / "started.txt"
    broken = home / "bin" / "lait-ls"
    broken.parent.mkdir()
    broken.write_text(BROKEN_LAIT_LS.format(note=started), encoding="utf-8")
    broken.chmod(0o755)
    settings = {"lait.server.path": str(broken)}
    with code_server(home, folder, vsix, settings, {}) as workbench:
        yield Plain(workbench, folder, started)


@pytest.fixture
def plain_workbench(plain: Plain, request: pytest.FixtureRequest) -> Iterator[Workbench]:
    yield plain.workbench
    screenshot_if_failed(request, plain.workbench)
    plain.workbench.escape_all()


def lait_items(workbench: Workbench) -> list[str]:
    return [t for t in workbench.status_texts() if "lait" in t.lower()]


def lait_toasts(workbench: Workbench) -> list[str]:
    return [t for t in workbench.notifications() if "lait" in t.lower()]


def toast_buttons(workbench: Workbench, containing: str) -> list[str]:
    toast = workbench.page.locator(".notifications-toasts .notification-toast", has_text=containing).first
    found: list[str] = toast.locator(".monaco-button").all_inner_texts()
    return [b.strip() for b in found]


def output_channels(workbench: Workbench) -> list[str]:
    """The names of the output channels, as "Output: Show Output Channels..." lists them."""
    workbench.run_command("Output: Show Output Channels...")
    shown = workbench.wait_quick_input("the list of output channels", lambda q: len(q.items) > 0)
    workbench.escape_all()
    return [item.split(",")[0].strip() for item in shown.items]


class TestNotALaitProject:
    """A README.md and a CI workflow; its lait.server.path is a broken install."""

    def test_a_folder_that_is_not_a_lait_project_shows_nothing(
        self, plain: Plain, plain_workbench: Workbench
    ) -> None:
        workbench = plain_workbench
        workbench.open_file("README.md")  # activates the extension (onLanguage:markdown)
        workbench.open_file(".github/workflows/ci.yml")
        # Long enough for the extension to activate, look for a lait.config.yml and check both files.
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            assert lait_items(workbench) == [], workbench.status_texts()
            assert not any("lait" in t.lower() for t in workbench.notifications()), workbench.notifications()
            time.sleep(0.25)
        assert plain.starts() == 0  # lait-ls never ran
        # No lait view in the activity bar, no graph button on the CI workflow.
        assert workbench.page.locator(".activitybar .action-item[aria-label^='lait']").count() == 0
        assert workbench.page.locator(".editor-actions [aria-label='Show workflow graph']").count() == 0
        # The extension was active all along: a lait.config.yml created in the folder starts lait-ls.
        (plain.folder / "lait.config.yml").write_text("default:\n  model: m\n", encoding="utf-8")
        wait_for("lait-ls to start once lait applies", lambda: plain.starts() >= 1, 30)

    def test_a_broken_install_says_why_it_did_not_start(
        self, plain: Plain, plain_workbench: Workbench
    ) -> None:
        """(After the test above made the folder a lait project.)"""
        workbench = plain_workbench
        cause = "ModuleNotFoundError: No module named 'lait_ls_no_such_module'"
        workbench.wait_status(r"^lait stopped$", 60)
        toast = wait_for(
            "the message of the failed start",
            lambda: next((t for t in lait_toasts(workbench) if cause in t), None),
            30,
        )
        assert "did not start" in toast and "(exit status 1)" in toast, toast
        assert {"Show Output", "Open Settings", "Restart"} <= set(toast_buttons(workbench, cause))
        # Only that message: not the language client's own ("Pending response rejected", "couldn't create connection").
        assert len(lait_toasts(workbench)) == 1, lait_toasts(workbench)
        # "Show Output" opens the one output channel, with the traceback in it.
        workbench.page.locator(".notifications-toasts .notification-toast", has_text=cause).first.hover()
        workbench.page.locator(
            ".notifications-toasts .notification-toast .monaco-button", has_text="Show Output"
        ).first.click()
        text = workbench.page.locator(".part.panel .view-lines")
        wait_for(
            "the traceback in the output channel",
            lambda: "Traceback (most recent call last)" in text.inner_text().replace("\u00a0", " "),
            15,
        )
        assert cause in text.inner_text().replace("\u00a0", " ")
        assert [name for name in output_channels(workbench) if "lait" in name.lower()] == ["lait"]


@dataclass
class Project:
    workbench: Workbench
    workspace: Path
    marker: str
    llm: ScriptedOpenAIServer


@pytest.fixture(scope="class")
def project(vsix: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    home = tmp_path_factory.mktemp("vscode-health")
    marker = uuid.uuid4().hex
    with ScriptedOpenAIServer() as llm:
        workspace = home / "project"
        prepare_project(workspace, llm.url)
        config = workspace / "lait.config.yml"
        config.write_text(
            config.read_text(encoding="utf-8").replace("mcp_servers:\n", FAILING_SERVER, 1), encoding="utf-8"
        )
        (workspace / "workflows" / "mcp-fail.yml").write_text(MCP_FLOW, encoding="utf-8")
        settings = {"lait.server.path": str(lait_ls_wrapper(home / "bin", marker)), "lait.debounce": 50}
        with code_server(home, workspace, vsix, settings, {}) as workbench:
            workbench.wait_status(READY)
            yield Project(workbench, workspace, marker, llm)
    wait_for("no process of lait-ls left", lambda: not running_with_marker(marker), 15)


@pytest.fixture
def workbench(project: Project, request: pytest.FixtureRequest) -> Iterator[Workbench]:
    yield project.workbench
    screenshot_if_failed(request, project.workbench)
    project.workbench.escape_all()


FAILING_SERVER = f"""mcp_servers:
  failing:  # tests/peers: fails on import before the handshake, its traceback on stderr
    command: {sys.executable}
    args: [-m, tests.peers.mcp_failing_server, start]
    cwd: {ROOT}
"""

MCP_FLOW = """name: mcp-fail
description: Uses an MCP server that cannot start.
steps:
  - id: use
    prompt: "{{ input }}"
    mcp: [failing]
"""

READY = r"^lait \d+\.\d+\.\d+ · lait\.config\.yml$"


def server_pid(project: Project) -> int | None:
    """The lait-ls process (the wrapper execs Python; its jq workers carry the marker too)."""
    for pid in running_with_marker(project.marker):
        try:
            if b"lait_ls.server" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except OSError:
            continue
    return None


class TestLaitProject:
    """The example project with a working lait-ls."""

    def test_a_server_killed_again_and_again_shows_stopped_with_restart(
        self, project: Project, workbench: Workbench
    ) -> None:
        workbench.open_file("workflows/triage.yml")
        killed: list[int] = []
        for _ in range(5):
            workbench.wait_status(READY, 60)
            pid = wait_for("the lait-ls process", lambda: server_pid(project), 30)
            assert pid not in killed
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            # The item leaves "ready" at once (restarting, or stopped after the fifth).
            workbench.wait_status(r"^lait (starting|stopped)$", 30)
        workbench.wait_status(r"^lait stopped$", 60)
        assert server_pid(project) is None  # not restarted a sixth time
        toast = wait_for(
            "the stopped message",
            lambda: next((t for t in lait_toasts(workbench) if "stopped" in t), None),
            20,
        )
        assert "killed by SIGKILL" in toast, toast
        assert toast_buttons(workbench, "lait-ls stopped")[:1] == ["Restart"]
        # One message, not the client's stack ("crashed 5 times", "Server initialization failed", ...).
        assert len(lait_toasts(workbench)) == 1, lait_toasts(workbench)
        # The status item's menu offers Restart too.
        workbench.page.locator(".statusbar-item", has_text="lait stopped").first.click()
        menu = workbench.wait_quick_input("the status menu", lambda q: len(q.items) >= 3)
        # (an item's label starts with its icon's name: "debug-restart  Restart lait-ls")
        titles = [i.split(",")[0].split("  ")[-1] for i in menu.items]
        assert titles[:3] == ["Restart lait-ls", "Show output", "Open settings"], menu
        assert "Trust this workspace" not in titles  # trusted: nothing to trust
        workbench.press("Enter")  # the first item
        workbench.wait_status(READY, 60)
        assert server_pid(project) is not None

    def test_a_failing_mcp_servers_stderr_is_in_the_runs_view(
        self, project: Project, workbench: Workbench
    ) -> None:
        cause = "ModuleNotFoundError: No module named 'lait_no_such_module'"
        project.llm.push(text("not reached"))
        workbench.open_file("workflows/mcp-fail.yml")
        lens = workbench.code_lens("Run workflow")
        lens.wait_for(timeout=20_000)
        lens.click()
        workbench.wait_quick_input(
            "the prompt", lambda q: "Prompt for the workflow" in q.message + q.placeholder
        )
        workbench.answer("go")
        toast = wait_for(
            "the failed run's notification",
            lambda: next((t for t in lait_toasts(workbench) if "mcp-fail failed" in t), None),
            60,
        )
        assert cause in toast, toast  # the cause, from the server's stderr
        assert "Open run" in toast_buttons(workbench, "mcp-fail failed")
        # The output channel has the server's stderr lines.
        channel = workbench.page.locator(".part.panel .view-lines")
        wait_for(
            "the stderr in the output channel",
            lambda: cause in channel.inner_text().replace("\u00a0", " "),
            15,
        )
        # The Runs view: the run failed, the stderr lines are rows of it.
        workbench.run_command("lait: Focus on Runs View")
        rows = wait_for(
            "the stderr in the Runs view",
            lambda: (
                (found := run_rows(workbench, "mcp-fail")) and any(r.label == cause for r in found) and found
            ),
            20,
        )
        assert rows[0].description.startswith("failed"), rows[0]
        labels = [r.label for r in rows]
        assert "Traceback (most recent call last):" in labels and "notes server starting" in labels, labels
        assert next(r for r in rows if r.label == cause).icon.startswith("codicon-error"), rows
        # "Open run" shows the run's output with the whole error.
        workbench.page.locator(
            ".notifications-toasts .notification-toast", has_text="mcp-fail failed"
        ).first.hover()
        workbench.page.locator(
            ".notifications-toasts .notification-toast .monaco-button", has_text="Open run"
        ).first.click()
        editor = workbench.page.locator(".editor-group-container.active .view-lines")
        wait_for("the run's output", lambda: cause in editor.inner_text().replace("\u00a0", " "), 15)
        workbench.run_command("View: Revert and Close Editor")
        assert project.llm.remaining == 1  # the model was never asked
        project.llm.clear()

    def test_a_cancelled_run_is_cancelled_not_failed(self, project: Project, workbench: Workbench) -> None:
        pids_file = project.workspace / "sleepy.pids"
        project.llm.push(
            tool_calls(call("tool__sleepy", {"script": str(project.workspace / "sleepy.py")}, id="s1"))
        )
        workbench.open_file("workflows/slow.yml")
        lens = workbench.code_lens("Run workflow")
        lens.wait_for(timeout=20_000)
        lens.click()
        workbench.wait_quick_input(
            "the prompt", lambda q: "Prompt for the workflow" in q.message + q.placeholder
        )
        workbench.answer("wait")
        approval(workbench, "tool__sleepy")
        workbench.pick("Allow once")
        wait_for(
            "the tool to start", lambda: pids_file.exists() and len(pids_file.read_text().split()) == 2, 30
        )
        progress = workbench.page.locator(
            ".notifications-toasts .notification-toast", has_text="lait: running slow"
        )
        progress.hover()
        progress.get_by_role("button", name="Cancel").click()
        toast = wait_for(
            "the cancelled run's notification",
            lambda: next((t for t in lait_toasts(workbench) if "slow was cancelled" in t), None),
            20,
        )
        assert "failed" not in toast
        workbench.run_command("lait: Focus on Runs View")
        rows = wait_for(
            "the cancelled run in the Runs view",
            lambda: (
                (found := run_rows(workbench, "slow"))
                and found[0].description.startswith("cancelled")
                and found
            ),
            20,
        )
        tool = next(r for r in rows if r.label.startswith("tool tool__sleepy"))
        assert tool.label == "tool tool__sleepy cancelled" and "codicon-circle-slash" in tool.icon, rows
        assert not any("failed" in f"{r.label} {r.description}" for r in rows), rows

    def test_step_output_fields_complete_after_steps_x(self, workbench: Workbench) -> None:
        workbench.open_file("workflows/triage.yml")
        typed = "when: '$steps.classify.'"
        workbench.replace_line(
            30, typed
        )  # the `details` step, after `classify` (output_schema: classification)
        workbench.goto(30, 5 + len(typed) - 1)  # before the closing quote
        labels = workbench.suggestions()
        names = {label.split(",")[0].strip() for label in labels}
        assert {"kind", "summary"} <= names, labels
        workbench.escape_all()
        workbench.run_command("File: Revert File")
        wait_for("the revert", lambda: not workbench.is_dirty(), 10)
