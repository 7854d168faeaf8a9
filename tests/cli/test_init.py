"""`lait init [workflow|agent] [PATH]` (docs/cli.md; issue 17 item 6): the starter files
lint clean (no warnings either), run on the built-in embedded model, and are never overwritten."""

from __future__ import annotations

import json

from tests.cli.conftest import Lait


def test_init_writes_lint_clean_starters(lait: Lait) -> None:
    for args, path in (
        ([], "lait.config.yml"),
        (["workflow"], "workflow.yml"),
        (["agent"], "agent.md"),
        (["workflow", "flows/triage.yml"], "flows/triage.yml"),
        (["agent", "agents/rewriter.md"], "agents/rewriter.md"),
    ):
        run = lait("init", *args)
        assert run.returncode == 0, run.stderr
        assert run.stderr.startswith(f"wrote {path}\n")
        assert (lait.cwd / path).is_file()
    lint = lait("lint", "--strict", "--format", "json", ".")
    assert (lint.returncode, json.loads(lint.stdout)) == (0, []), lint.stdout
    text = lait("lint", ".")
    assert text.stderr == "lait: 5 files checked, no problems\n"


def test_init_never_overwrites(lait: Lait) -> None:
    lait.write("lait.config.yml", "# mine\n")
    lait.write("agent.md", "mine\n")
    for args, path in (
        ([], "lait.config.yml"),
        (["agent"], "agent.md"),
        (["workflow", "agent.md"], "agent.md"),
    ):
        run = lait("init", *args)
        assert run.returncode == 1
        assert run.stderr == f"lait: '{path}' already exists; lait init never overwrites a file\n"
    assert (lait.cwd / "lait.config.yml").read_text() == "# mine\n"
    assert (lait.cwd / "agent.md").read_text() == "mine\n"


def test_a_path_needs_a_kind(lait: Lait) -> None:
    run = lait("init", "my.yml")
    assert run.returncode == 2
    assert "PATH requires a kind" in run.stderr
    assert list(lait.cwd.iterdir()) == []


def test_the_starters_run_on_the_embedded_model(lait: Lait) -> None:
    from tests.llm.conftest import require_peer

    require_peer()
    for args in ([], ["workflow"], ["agent"]):
        assert lait("init", *args).returncode == 0
    run = lait("run", "workflow.yml", "What is a lint tool?", timeout=600)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert isinstance(result["answer"], str) and result["characters"] == len(result["answer"])
    agent = lait(
        "agent", "run", "agent.md", "the build failed on friday because of a missing file", timeout=600
    )
    assert agent.returncode == 0, agent.stderr
    assert agent.stdout.strip()


def test_the_config_starters_commented_examples_lint_clean_once_uncommented(lait: Lait) -> None:
    """A new user uncomments `models:`, `tools:` and `prompts:` (the sections that name no other
    file and start nothing): still no finding, not even LAIT601 on the grep tool's pattern."""
    assert lait("init").returncode == 0
    lines = (lait.cwd / "lait.config.yml").read_text().splitlines()
    out: list[str] = []
    section = ""
    for line in lines:
        if line.startswith("# ") and line[2:3].isalpha() and ":" in line:
            section = line[2:].split(":")[0]
        if section in ("models", "tools", "prompts") and line.startswith("#"):
            line = line[2:] if line.startswith("# ") else line[1:]
        elif not line.startswith("#"):
            section = ""
        out.append(line)
    text = "\n".join(out) + "\n"
    assert "\ntools:" in text and "\nprompts:" in text and "\nmodels:" in text
    (lait.cwd / "lait.config.yml").write_text(text)
    lint = lait("lint", "--strict", "--format", "json", "lait.config.yml")
    assert (lint.returncode, json.loads(lint.stdout)) == (0, []), lint.stdout
