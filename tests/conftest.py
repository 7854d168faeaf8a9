"""Fixtures for the whole suite, and how pytest-xdist shares it out between workers (the README's
test command runs ``-n 2 --dist loadgroup``)."""

from collections.abc import Iterator
from typing import Any

import pytest

from lait_core import redact

SHARED_RESOURCES = {
    # One VS Code extension build (`npm run compile` writes editors/vscode/out in the checkout: two
    # workers must not run it at once), and one code-server + Chromium at a time.
    "compiled": "vscode",
    # One llama-cpp-python server with the real small model for all real-model tests.
    "real_llm": "real-llm",
}
"""Session fixtures whose users must all run in one xdist worker: fixture name -> group name."""


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook turns the groups into node-id suffixes
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test module that uses a fixture of ``SHARED_RESOURCES`` joins that resource's group
    (all its tests, so the module still runs whole in one worker). Without xdist the marks do
    nothing."""
    groups: dict[str, str] = {}
    for item in items:
        for fixture, group in SHARED_RESOURCES.items():
            if fixture in getattr(item, "fixturenames", ()):
                groups[module_of(item.nodeid)] = group
    for item in items:
        group = groups.get(module_of(item.nodeid))
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` here means: each test module is one unit of work that runs whole in one
    worker (as ``--dist loadfile``: module fixtures start once per run, and tests that rely on an
    earlier test of their file, e.g. tests/editors/test_vscode_e2e.py, keep their order), except
    that the modules of one ``xdist_group`` form one unit together. Units are handed out in
    collection order."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class ModuleOrGroupScheduling(LoadGroupScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            scope: str = super()._split_scope(nodeid)
            return module_of(scope) if scope == nodeid else scope

    config.option.loadscopereorder = False
    return ModuleOrGroupScheduling(config, log)


@pytest.fixture(autouse=True)
def _forget_remembered_secrets() -> Iterator[None]:
    """Secrets are remembered process-wide (``lait_core.redact``) once a run uses them, as in a
    long-lived lait-ls; between tests that memory would mask one test's ordinary words (a
    ``?flag`` query item, a password ``secret``) in another test's messages."""
    redact.forget_secrets()
    yield
    redact.forget_secrets()
