"""`lait workflow list` and `lait skill list` (docs/cli.md): registry entries in name
order with their descriptions, paths relative to the working directory, broken entries listed with a
warning (exit 0), nothing registered, and `--config` after the subcommand."""

from __future__ import annotations

from tests.cli.conftest import EXAMPLES, Lait


def test_the_example_project(lait: Lait) -> None:
    workflows = lait("workflow", "list", cwd=EXAMPLES)
    assert (workflows.returncode, workflows.stderr) == (0, "")
    assert workflows.stdout == (
        "offline  workflows/offline.yml  Search a folder with the grep tool on the built-in embedded model, offline.\n"
        "release  workflows/release.yml  Summarize merged changes in parallel and write release notes to a file.\n"
        "triage   workflows/triage.yml   Classify an incoming issue, ask for missing details and draft a reply.\n"
    )
    skills = lait("skill", "list", cwd=EXAMPLES)
    assert (skills.returncode, skills.stderr) == (0, "")
    assert skills.stdout == (
        "release-notes  skills/release-notes  How this project writes release notes (sections, tone, links).\n"
    )


def test_broken_entries_are_listed_with_a_warning(lait: Lait) -> None:
    lait.write(
        "conf/lait.config.yml",
        "workflows:\n  ok: ../flows/ok.yml\n  invalid: ../flows/invalid.yml\n  missing: ../flows/missing.yml\n"
        "skills:\n  file: ../skills/file.md\n  dir: ../skills/dir\n  empty: ../skills/empty\n",
    )
    lait.write("flows/ok.yml", "name: ok\nsteps:\n  - jq: '.'\n")
    lait.write("flows/invalid.yml", "steps: []\n")
    lait.write("skills/file.md", "---\ndescription: A file skill.\n---\nBody.\n")
    lait.write("skills/dir/SKILL.md", "Just a body, no frontmatter.\n")
    (lait.cwd / "skills" / "empty").mkdir()
    run = lait("workflow", "list", "--config", "conf/lait.config.yml")
    assert run.returncode == 0
    assert run.stdout.splitlines() == [
        "invalid  flows/invalid.yml  (broken: line 1:8: 'steps' must contain at least one step)",
        "missing  flows/missing.yml  (broken: no such file)",
        "ok       flows/ok.yml",
    ]
    assert run.stderr.splitlines() == [
        "warning: workflows.invalid (flows/invalid.yml): line 1:8: 'steps' must contain at least one step",
        "warning: workflows.missing (flows/missing.yml): no such file",
    ]
    skills = lait("--config", "conf/lait.config.yml", "skill", "list")
    assert skills.returncode == 0
    lines = skills.stdout.splitlines()
    assert lines[0] == "dir    skills/dir"
    assert lines[1] == "empty  skills/empty    (broken: the directory has no SKILL.md)"
    assert lines[2] == "file   skills/file.md  A file skill."
    assert skills.stderr == "warning: skills.empty (skills/empty): the directory has no SKILL.md\n"


def test_nothing_registered(lait: Lait) -> None:
    run = lait("--no-config", "workflow", "list")
    assert (run.returncode, run.stdout) == (0, "")
    assert run.stderr == "lait: no workflows are registered under 'workflows:' in lait.config.yml\n"
    broken = lait.write("lait.config.yml", "workflows: [oops]\n")
    bad = lait("skill", "list")
    assert bad.returncode == 3
    assert bad.stderr.startswith(f"{broken}:1:12: LAIT102 error: ")
