"""Workspace trust in a real VS Code (code-server with trust on, see test_vscode_e2e.py for the setup).

The workspace carries its own `.venv/bin/lait-ls` and a `.vscode/settings.json` that points
`lait.server.path` at it; the user's `lait-ls` is on the PATH of their login shell only (as when
VS Code is started from a desktop launcher), installed there by the first test after the extension
reported it missing. In Restricted Mode the extension must lint with the user's server and never
run the workspace's one; runs are refused with the reason; granting trust restarts lait-ls with the
usual discovery, which then picks the workspace's.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.editors.vscode_project import lait_ls_wrapper, prepare_project
from tests.editors.vscode_ui import Workbench, code_server, screenshot_if_failed, wait_for
from tests.peers.openai_server import ScriptedOpenAIServer
from tests.processes import running_with_marker

BROKEN = """name: broken
description: Uses an agent that does not exist.
steps:
  - agent: reviewr
"""


class Trust:
    def __init__(
        self, workbench: Workbench, workspace: Path, ran: Path, llm: ScriptedOpenAIServer, marker: str
    ) -> None:
        self.workbench = workbench
        self.workspace = workspace
        self.user_bin = workspace.parent / "user-bin"
        self.marker = marker
        self.ran = ran
        """Each lait-ls start appends its path here."""
        self.llm = llm

    def started(self) -> list[str]:
        return self.ran.read_text().split() if self.ran.exists() else []


@pytest.fixture(scope="module")
def trust(vsix: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Trust]:
    home = tmp_path_factory.mktemp("vscode-trust")
    user_marker, venv_marker = uuid.uuid4().hex, uuid.uuid4().hex
    ran = home / "started.txt"
    with ScriptedOpenAIServer() as llm:
        workspace = home / "project"
        prepare_project(workspace, llm.url)
        (workspace / "workflows" / "broken.yml").write_text(BROKEN, encoding="utf-8")
        lait_ls_wrapper(workspace / ".venv" / "bin", venv_marker, note=ran)
        (workspace / ".vscode").mkdir()
        (workspace / ".vscode" / "settings.json").write_text(
            json.dumps({"lait.server.path": ".venv/bin/lait-ls"}), encoding="utf-8"
        )
        # The user's lait-ls will be on the login shell's PATH, nowhere else (the first test puts it there).
        user_bin = home / "user-bin"
        user_bin.mkdir()
        (home / ".bash_profile").write_text(f'export PATH="{user_bin}:$PATH"\n', encoding="utf-8")
        settings = {
            "lait.debounce": 50,
            "security.workspace.trust.startupPrompt": "never",
            "security.workspace.trust.banner": "always",
        }
        env = {"HOME": str(home), "SHELL": "/bin/bash"}
        with code_server(home, workspace, vsix, settings, env, trust=True) as workbench:
            yield Trust(workbench, workspace, ran, llm, user_marker)
    for marker in (user_marker, venv_marker):
        wait_for("no process of lait-ls left", lambda m=marker: not running_with_marker(m), 15)  # type: ignore[misc]


@pytest.fixture
def workbench(trust: Trust, request: pytest.FixtureRequest) -> Iterator[Workbench]:
    yield trust.workbench
    screenshot_if_failed(request, trust.workbench)
    trust.workbench.escape_all()


def test_not_found_names_the_places_tried_until_a_restart_finds_it(
    trust: Trust, workbench: Workbench
) -> None:
    workbench.wait_status(r"lait-ls not found")
    toast = wait_for(
        "the not-found notification",
        lambda: next((t for t in workbench.notifications() if "lait-ls was not found" in t), None),
        30,
    )
    places = toast.split("lait-ls was not found in ", 1)[1].split(" (Restricted Mode", 1)[0].split(", ")
    assert places == ["PATH", "the login shell's PATH", "pipx and uv tool"] or places == [
        "PATH",
        "pipx and uv tool",
    ], toast
    assert "(Restricted Mode: lait-ls is not taken from the workspace" in toast
    assert trust.started() == []  # not the workspace's .venv/bin/lait-ls, which is right there
    # A warning with what fixes it, not an endless spinner.
    buttons = workbench.page.locator(
        ".notifications-toasts .notification-toast", has_text="lait-ls was not found"
    ).first.locator(".monaco-button")
    assert [b.strip() for b in buttons.all_inner_texts()] == ["Open Settings", "Retry", "Trust Workspace"]
    assert (
        workbench.page.locator(
            ".notifications-toasts .notification-toast .monaco-progress-container.active"
        ).count()
        == 0
    )
    # The user installs lait where their login shell finds it and presses Retry.
    lait_ls_wrapper(trust.user_bin, trust.marker, note=trust.ran)
    workbench.page.locator(
        ".notifications-toasts .notification-toast", has_text="lait-ls was not found"
    ).first.hover()
    buttons.filter(has_text="Retry").first.click()
    workbench.wait_status(r"^lait \d+\.\d+\.\d+ · lait\.config\.yml · restricted$")
    wait_for(
        "the not-found notification to close",
        lambda: not any("lait-ls was not found" in t for t in workbench.notifications()),
        10,
    )


def test_restricted_mode_lints_with_the_users_server_never_the_workspaces(
    trust: Trust, workbench: Workbench
) -> None:
    workbench.wait_status(r"^lait \d+\.\d+\.\d+ · lait\.config\.yml · restricted$")
    user_ls = str(trust.user_bin / "lait-ls")
    assert trust.started() == [user_ls]
    workbench.open_file("workflows/broken.yml")
    problems = wait_for("the lint of broken.yml", lambda: workbench.problems(), 30)
    assert [(p.code, p.line, p.column) for p in problems] == [("LAIT319", 4, 12)]
    assert "did you mean 'reviewer'?" in problems[0].message
    # Hover and completion work too.
    workbench.goto(4, 5)
    assert workbench.hover_text("agent ·")  # lait-ls's documentation of the `agent:` key
    assert trust.started() == [user_ls]  # the workspace's .venv/bin/lait-ls never ran


def test_runs_are_refused_with_the_reason_and_a_dry_run_works(trust: Trust, workbench: Workbench) -> None:
    workbench.open_file("workflows/shout.yml")
    dry = workbench.code_lens("Dry run")
    dry.wait_for(timeout=20_000)
    # No Run lens that could only say "disabled": Dry run, which starts nothing, is offered.
    assert workbench.code_lens("Run workflow").count() == 0
    dry.click()
    workbench.wait_quick_input("the prompt", lambda q: "Prompt for the workflow" in q.message + q.placeholder)
    workbench.answer("shopping")
    wait_for(
        "the dry run's notification",
        lambda: any("dry run of shout-and-save finished" in t for t in workbench.notifications()),
        30,
    )
    channel = workbench.page.locator(".part.panel .view-lines")
    wait_for("the plan in the output channel", lambda: "work" in channel.inner_text(), 10)
    workbench.escape_all()
    # A run asked for from the command palette is refused, saying why.
    # (the palette lists the recently used "Dry run workflow" first: its row is clicked by name)
    workbench.press("F1")
    workbench.page.locator(".quick-input-widget input").fill(">lait: Run workflow")
    row = workbench.page.locator(
        ".quick-input-widget .quick-input-list .monaco-list-row[aria-label^='lait: Run workflow']"
    ).first
    row.click(timeout=15_000)
    toast = wait_for(
        "the Restricted Mode warning",
        lambda: next((t for t in workbench.notifications() if "Restricted Mode" in t), None),
        15,
    )
    assert "running workflows and agents is disabled in Restricted Mode" in toast
    assert "Trust the workspace to run them" in toast
    assert workbench.quick_input() is None  # no prompt asked: nothing runs
    assert trust.llm.bodies == []


def test_granting_trust_restarts_with_the_usual_discovery(trust: Trust, workbench: Workbench) -> None:
    workbench.run_command("Workspaces: Manage Workspace Trust")
    button = workbench.page.locator(".workspace-trust-editor .monaco-button", has_text="Trust").first
    button.wait_for(timeout=15_000)
    button.click()
    venv_ls = str(trust.workspace / ".venv" / "bin" / "lait-ls")
    wait_for("the workspace's lait-ls to start", lambda: venv_ls in trust.started(), 30)
    workbench.wait_status(r"^lait \d+\.\d+\.\d+ · lait\.config\.yml$")
    # The workspace's lait.server.path now counts, and the restart already used it: nothing asks to
    # restart again.
    time.sleep(3)
    assert not any("restart the language server" in t for t in workbench.notifications()), (
        workbench.notifications()
    )
    workbench.open_file("workflows/broken.yml")
    problems = wait_for("the lint of broken.yml", lambda: workbench.problems(), 30)
    assert [(p.code, p.line, p.column) for p in problems] == [("LAIT319", 4, 12)]
