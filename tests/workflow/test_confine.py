"""``confine: project``: write:/files:/images:/agent:/workflow: paths outside the project folder are a
run-time error (symbolic links resolved); without the setting nothing changes; a global
``confine: project`` cannot be lifted by a project."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from lait_core.documents.config_file import ConfigMode, load_config
from lait_core.engine.workflow import StepFailed
from tests.peers.openai_server import ScriptedOpenAIServer, text
from tests.workflow.conftest import Harness

OUTSIDE = "outside the project folder"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, llm_server: ScriptedOpenAIServer) -> Harness:
    root = tmp_path / "proj"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("the secret", encoding="utf-8")
    (tmp_path / "outside" / "a.md").write_text("---\nname: a\n---\nYou are a.\n", encoding="utf-8")
    (tmp_path / "outside" / "child.yml").write_text("steps:\n  - jq: '\"child ran\"'\n", encoding="utf-8")
    monkeypatch.chdir(root)
    harness = Harness(root, server=llm_server)
    harness.config_data = {"confine": "project"}
    return harness


async def test_write_from_model_output_cannot_leave_the_project(project: Harness) -> None:
    project.write("w.yml", "steps:\n  - write: '{{ input }}'\n")
    with pytest.raises(StepFailed, match=f"the 'write' path '../outside/x.txt' is {OUTSIDE}"):
        await project.run("w.yml", "../outside/x.txt")
    with pytest.raises(StepFailed, match=OUTSIDE):
        await project.run("w.yml", str(project.root.parent / "outside" / "y.txt"))
    assert sorted(os.listdir(project.root.parent / "outside")) == ["a.md", "child.yml", "secret.txt"]
    (project.root / "sub").mkdir()
    assert (await project.run("w.yml", "sub/../sub/x.txt")).value == "sub/../sub/x.txt"
    assert (project.root / "sub" / "x.txt").read_text(encoding="utf-8") == "sub/../sub/x.txt"


async def test_write_through_a_symbolic_link_is_refused(project: Harness) -> None:
    (project.root / "link").symlink_to(project.root.parent / "outside")
    project.write("w.yml", "steps:\n  - write: 'link/x.txt'\n")
    with pytest.raises(StepFailed, match=OUTSIDE):
        await project.run("w.yml", "data")
    assert not (project.root.parent / "outside" / "x.txt").exists()


async def test_without_confine_paths_are_unconfined(project: Harness) -> None:
    project.config_data = {}
    project.write("w.yml", "steps:\n  - write: '{{ input }}'\n")
    await project.run("w.yml", "../outside/x.txt")
    assert (project.root.parent / "outside" / "x.txt").read_text(encoding="utf-8") == "../outside/x.txt"


async def test_files_and_images_outside_are_refused_before_the_model_is_asked(
    project: Harness, llm_server: ScriptedOpenAIServer
) -> None:
    llm_server.push(text("never"))
    project.write("f.yml", "steps:\n  - prompt: read it\n    files: ['{{ input }}']\n")
    with pytest.raises(StepFailed, match=r"'files\[0\]' '../outside/secret.txt' is " + OUTSIDE):
        await project.run("f.yml", "../outside/secret.txt")
    project.write("i.yml", "steps:\n  - prompt: look\n    images: ['../outside/secret.txt']\n")
    with pytest.raises(StepFailed, match=r"'images\[0\]'.*" + OUTSIDE):
        await project.run("i.yml", "x")
    assert llm_server.requests == []
    (project.root / "notes.txt").write_text("inside", encoding="utf-8")
    project.write("ok.yml", "steps:\n  - prompt: read it\n    files: [notes.txt]\n")
    assert (await project.run("ok.yml", "x")).value == "never"
    assert "inside" in llm_server.bodies[0]["messages"][-1]["content"]


async def test_agent_and_workflow_files_outside_are_refused(project: Harness) -> None:
    project.write("a.yml", "steps:\n  - agent: ../outside/a.md\n")
    with pytest.raises(StepFailed, match=f"the agent file '.*a.md' is {OUTSIDE}"):
        await project.run("a.yml", "x")
    project.config_data["agents"] = {"far": str(project.root.parent / "outside" / "a.md")}
    project.write("r.yml", "steps:\n  - agent: far\n")
    with pytest.raises(StepFailed, match=f"the agent file of 'far' '.*' is {OUTSIDE}"):
        await project.run("r.yml", "x")
    project.write("c.yml", "steps:\n  - workflow: ../outside/child.yml\n")
    with pytest.raises(StepFailed, match=OUTSIDE):
        await project.run("c.yml", "x")
    project.write("inner.yml", "steps:\n  - jq: '\"inner ran\"'\n")
    project.write("c2.yml", "steps:\n  - workflow: ./inner.yml\n")
    assert (await project.run("c2.yml", "x")).value == "inner ran"


def test_a_project_cannot_lift_a_global_confine(tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    (xdg / "lait").mkdir(parents=True)
    (xdg / "lait" / "config.yml").write_text("confine: project\n", encoding="utf-8")
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "lait.config.yml").write_text("confine: none\n", encoding="utf-8")
    env = {"XDG_CONFIG_HOME": str(xdg)}
    assert load_config(ConfigMode.SEARCH, start=proj, environ=env).config.confine == "project"
    (xdg / "lait" / "config.yml").write_text("{}\n", encoding="utf-8")
    assert load_config(ConfigMode.SEARCH, start=proj, environ=env).config.confine == "none"
    (proj / "lait.config.yml").write_text("confine: project\n", encoding="utf-8")
    assert load_config(ConfigMode.SEARCH, start=proj, environ=env).config.confine == "project"


def test_cli_run_reports_the_confined_path(tmp_path: Path) -> None:
    import subprocess

    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "lait.config.yml").write_text("confine: project\n", encoding="utf-8")
    (proj / "w.yml").write_text("steps:\n  - write: '{{ input }}'\n", encoding="utf-8")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    done = subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "run", "w.yml", "../escaped.txt"],
        cwd=proj,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert "lait: " in done.stderr and OUTSIDE in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "escaped.txt").exists()
