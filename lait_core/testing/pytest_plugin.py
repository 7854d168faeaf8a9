"""The pytest plugin: lait test files (docs/testing.md) collected as pytest items.

Opt-in: ``pytest --lait``, or ``lait = true`` in the pytest ini options. Without it the plugin only
declares its options and collects nothing; importing this module imports nothing beyond pytest and
the standard library (the lait engine is imported when a lait item runs).

Which files: those whose name matches ``lait_test_files`` (ini, glob patterns; default
``test_*.yml``, ``*_test.yml`` and ``*.test.yml``, and their ``.yaml`` forms, like pytest's
``python_files``; ``*.test.yml`` is the name lint and the editor know a test file by) -- unlike
``lait test DIR``, which takes every YAML file under DIR, because a Python project's tree holds
YAML files of every kind (CI configs, workflows, the config itself).

Each file is one item, run as ``lait test FILE`` runs it: replaying its cassette, with the
``lait.config.yml`` found upward from the test file's folder (plus the global config), tools that
need approval refused unless ``--lait-approve-tools``. A failing item's report lists each failing
assertion (``assertion N: <message>``), or the file's located problems.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DEFAULT_FILES = ("test_*.yml", "test_*.yaml", "*_test.yml", "*_test.yaml", "*.test.yml", "*.test.yaml")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lait", "lait test files")
    group.addoption("--lait", action="store_true", default=None, help="Collect lait test files as tests.")
    group.addoption(
        "--lait-approve-tools",
        action="store_true",
        default=False,
        help="Allow tool calls that need approval in lait test files.",
    )
    parser.addini("lait", type="bool", default=False, help="Collect lait test files as tests (as --lait).")
    parser.addini(
        "lait_test_files",
        type="args",
        default=list(DEFAULT_FILES),
        help="Glob patterns of lait test file names.",
    )


def _enabled(config: pytest.Config) -> bool:
    option = config.getoption("lait")
    return bool(option) if option is not None else bool(config.getini("lait"))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if not _enabled(config) or file_path.suffix not in (".yml", ".yaml"):
        return None
    patterns: list[str] = config.getini("lait_test_files")
    if not any(fnmatch.fnmatch(file_path.name, p) for p in patterns):
        return None
    file: LaitFile = LaitFile.from_parent(parent, path=file_path)
    return file


class LaitFailure(Exception):
    """The failures of one lait test file."""


class LaitFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        yield LaitItem.from_parent(self, name=self.path.name)


class LaitItem(pytest.Item):
    funcargs: dict[str, Any] = {}  # noqa: RUF012 -- never filled
    """Empty: some plugins' ``pytest_runtest_call`` wrappers (pytest-lsp 1.0) look for the fixture
    values of every item and break the run of an item that has none."""

    def runtest(self) -> None:
        import asyncio

        from lait_core.documents.config_file import ConfigMode, load_config
        from lait_core.testing.suite_runner import run_file

        loaded = load_config(ConfigMode.SEARCH, start=self.path.parent)
        problems = [d for doc in loaded.documents if doc.model is None for d in doc.diagnostics]
        if problems:
            raise LaitFailure(
                "\n".join(
                    f"{d.path}:{d.range.start.line + 1}:{d.range.start.character + 1}: {d.message}"
                    for d in problems
                )
            )
        approve = bool(self.config.getoption("lait_approve_tools"))
        result = asyncio.run(run_file(self.path, loaded.config, loaded.folder(self.path.parent), approve))
        if not result.passed:
            raise LaitFailure("\n".join(result.failures))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, LaitFailure):
            return f"lait test {self.path.name} failed:\n" + "\n".join(
                "  " + line for line in str(excinfo.value).splitlines()
            )
        return str(super().repr_failure(excinfo, style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, 0, f"lait test: {self.name}"
