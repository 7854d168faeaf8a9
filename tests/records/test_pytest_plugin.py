"""The pytest plugin (issue 14 item 4): the real ``pytest`` runs on a temporary Python project
whose lait test files (recorded here against the scripted model server, stopped before pytest runs)
are collected as items when opted in (``--lait`` or ``lait = true`` in the ini file); each
assertion failure shows in pytest's report. Without the opt-in only the Python tests run and no lait
module beyond the plugin's own is imported."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer
from tests.records.test_lait_test import FAILING, PASSING, recorded

PY_TEST = "def test_python():\n    assert 1 + 1 == 2\n"
CONFTEST = """\
import json, sys

def pytest_sessionfinish(session):
    with open("modules.json", "w") as f:
        json.dump(sorted(m for m in sys.modules if m.startswith("lait")), f)
"""


def pytest_run(project: Lait, *args: str) -> subprocess.CompletedProcess[str]:
    installed = any(ep.name == "lait" for ep in importlib.metadata.entry_points(group="pytest11"))
    plugin = [] if installed else ["-p", "lait_core.testing"]  # a checkout not pip-installed
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *plugin, *args],
        cwd=project.cwd,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def test_pytest_collects_lait_test_files_when_opted_in(project: Lait, server: ScriptedOpenAIServer) -> None:
    recorded(project, server)
    up = {"wf.yml": "../wf.yml", "tape": "../tape"}
    ok, bad = PASSING, FAILING
    for old, new in up.items():
        ok, bad = ok.replace(old, new), bad.replace(old, new)
    project.write("tests/test_ok.yml", ok)
    project.write("tests/test_bad.yml", bad)
    project.write("tests/ci.yml", "not: a lait test\n")  # not a test file name: never collected
    project.write("tests/test_py.py", PY_TEST)
    project.write("conftest.py", CONFTEST)

    plain = pytest_run(project, "tests")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert plain.stdout.splitlines()[-1].startswith("1 passed")
    assert json.loads((project.cwd / "modules.json").read_text()) == [
        "lait_core",
        "lait_core.testing",
        "lait_core.testing.pytest_plugin",
    ]

    opted = pytest_run(project, "--lait", "-rf", "tests")
    assert opted.returncode == 1, opted.stdout + opted.stderr
    out = opted.stdout
    assert out.splitlines()[-1].startswith("1 failed, 2 passed")
    assert "FAILED tests/test_bad.yml::test_bad.yml" in out
    assert "lait test test_bad.yml failed:" in out
    assert '  assertion 1: equals: expected "nope", got ' in out
    assert "  assertion 9: llm_judge: not supported in lait test (use lait eval)" in out
    assert "ci.yml" not in out

    project.write("pytest.ini", "[pytest]\nlait = true\nlait_test_files = test_ok.yml\n")
    ini = pytest_run(project, "tests")
    assert ini.returncode == 0, ini.stdout + ini.stderr
    assert ini.stdout.splitlines()[-1].startswith("2 passed")
