"""`--select/--extend-select/--ignore`, the `lint:` config section (selection, per-rule severity, other
tools' files) and baselines (`--baseline`, `--write-baseline`, `lint.baseline`), as real subprocesses."""

from __future__ import annotations

import json

from tests.cli.conftest import Lait

AGENT = "---\nmodle: qwen\ntemperature: 3\n---\nHi.\n"  # LAIT202 and LAIT204
CLAUDE = "---\nname: r\ndescription: R.\ncolour: red\n---\nR.\n"  # LAIT801 (a warning)


def codes(stdout: str) -> list[str]:
    return [line.split(": ")[1].split()[0] for line in stdout.splitlines() if ": LAIT" in line]


def test_select_ignore_and_prefixes(lait: Lait) -> None:
    lait.write("agents/a.md", AGENT)
    lait.write(".claude/agents/r.md", CLAUDE)
    assert sorted(codes(lait("lint", ".").stdout)) == ["LAIT202", "LAIT204", "LAIT801"]
    assert sorted(codes(lait("lint", "--select", "LAIT2", ".").stdout)) == ["LAIT202", "LAIT204"]
    run = lait("lint", "--select", "LAIT2", "--ignore", "LAIT204", ".")
    assert codes(run.stdout) == ["LAIT202"] and run.returncode == 3
    run = lait("lint", "--select", "LAIT202", "--extend-select", "LAIT8", ".")
    assert sorted(codes(run.stdout)) == ["LAIT202", "LAIT801"]
    # the more specific selector wins: ignore LAIT2 but select LAIT204
    run = lait("lint", "--select", "LAIT204", "--ignore", "LAIT2", ".")
    assert codes(run.stdout) == ["LAIT204"]
    run = lait("lint", "--ignore", "LAIT2,LAIT5", ".")
    assert codes(run.stdout) == ["LAIT801"] and run.returncode == 0  # a warning alone passes
    bad = lait("lint", "--select", "LAIT99", ".")
    assert bad.returncode == 2 and "unknown rule selector 'LAIT99'" in bad.stderr


def test_config_selection_severity_and_foreign_switch(lait: Lait) -> None:
    lait.write("agents/a.md", AGENT)
    lait.write(".claude/agents/r.md", CLAUDE)
    lait.write(
        "lait.config.yml",
        "lint:\n  ignore: [LAIT204]\n  severity: {LAIT202: warning, LAIT8: error}\n",
    )
    run = lait("lint", ".")
    lines = [line for line in run.stdout.splitlines() if "LAIT" in line]
    assert any("LAIT202 warning" in line for line in lines), lines
    assert any("LAIT801 error" in line for line in lines), lines
    assert not any("LAIT204" in line for line in lines)
    assert run.returncode == 3  # LAIT801 is an error here
    # the command line adds to the config's ignores
    assert lait("lint", "--ignore", "LAIT801", ".").returncode == 0
    lait.write("lait.config.yml", "lint:\n  foreign: false\n  ignore: [LAIT2]\n")
    run = lait("lint", ".")
    assert (run.returncode, codes(run.stdout)) == (0, []), run.stdout


def test_baseline_ignores_known_findings_even_after_lines_move(lait: Lait) -> None:
    agent = lait.write("agents/a.md", AGENT)
    lait.write("lait.config.yml", "models: {}\n")
    wrote = lait("lint", ".", "--write-baseline", "lait-baseline.json")
    assert wrote.returncode == 0 and "wrote 2 finding(s)" in wrote.stderr
    data = json.loads((lait.cwd / "lait-baseline.json").read_text())
    assert {f["code"] for f in data["findings"]} == {"LAIT202", "LAIT204"}
    assert all(f["path"] == "agents/a.md" for f in data["findings"])
    run = lait("lint", ".", "--baseline", "lait-baseline.json")
    assert (run.returncode, codes(run.stdout)) == (0, []), run.stdout
    assert "2 findings in the baseline not shown" in run.stderr
    # lines above move the findings: still known
    agent.write_text("---\nname: a\ndescription: A.\n" + AGENT[4:])
    run = lait("lint", ".", "--baseline", "lait-baseline.json")
    assert (run.returncode, codes(run.stdout)) == (0, []), run.stdout
    # a new finding fails, the known ones stay hidden
    agent.write_text("---\nname: a\ntop_p: 7\n" + AGENT[4:])
    run = lait("lint", ".", "--baseline", "lait-baseline.json")
    assert (run.returncode, codes(run.stdout)) == (3, ["LAIT204"]), run.stdout
    assert "top_p" in run.stdout
    # the same from the config, relative to it
    lait.write("lait.config.yml", "lint:\n  baseline: lait-baseline.json\n")
    assert codes(lait("lint", ".").stdout) == ["LAIT204"]


def test_baseline_errors(lait: Lait) -> None:
    lait.write("agents/a.md", AGENT)
    run = lait("lint", ".", "--baseline", "missing.json")
    assert run.returncode == 2 and "does not exist" in run.stderr
    lait.write("b.json", '{"version": 9}')
    run = lait("lint", ".", "--baseline", "b.json")
    assert run.returncode == 2 and "not a lait baseline file" in run.stderr
