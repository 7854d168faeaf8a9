"""Fixtures for the whole suite, and how pytest-xdist shares it out between workers (the README's
test command runs ``-n 2 --dist loadgroup``)."""

from collections.abc import Iterator
from typing import Any

import pytest

from lait_core.support import redact

SHARED_RESOURCES = {
    # One VS Code extension build (`npm run compile` writes editors/vscode/out in the checkout: two
    # workers must not run it at once), and one code-server + Chromium at a time.
    "compiled": "vscode",
    # One llama-cpp-python server with the real small model for all real-model tests.
    "real_llm": "real-llm",
}
"""Session fixtures whose users must all run in one xdist worker: fixture name -> group name."""


PEER_FAMILIES = ("vscode", "neovim", "emacs", "llm", "conformance", "mcp_peers", "phoenix", "shells")
"""Markers of the tests that need a peer beyond the ``[test]`` extra (``.ci/install-test-peers``);
each such test also gets ``peers``, so ``pytest -m "not peers"`` runs anywhere. Registered in
pyproject.toml; documented in CONTRIBUTING.md."""

PEER_PATHS = {
    "tests/editors/test_vscode": "vscode",
    "tests/editors/test_neovim": "neovim",
    "tests/editors/test_emacs.py": "emacs",
    "tests/llm/": "llm",
    "tests/conformance/": "conformance",
    "tests/serve/test_serve_peers.py": "conformance",
    "tests/lsp/test_run_signin.py": "conformance",
    "tests/mcp_everything/": "mcp_peers",
    "tests/records/test_phoenix.py": "phoenix",
}
"""Node-id prefix -> the peer family of every test below it."""

PEER_FIXTURES = {"real_llm": "llm"}
"""Fixture -> the peer family of every test that uses it (the real model's server). Other tests
mark themselves (``@pytest.mark.conformance``)."""


def peer_family(item: pytest.Item) -> str | None:
    for name in PEER_FAMILIES:
        if item.get_closest_marker(name) is not None:
            return name
    for prefix, name in PEER_PATHS.items():
        if item.nodeid.startswith(prefix):
            return name
    for fixture, name in PEER_FIXTURES.items():
        if fixture in getattr(item, "fixturenames", ()):
            return name
    return None


def pytest_configure(config: pytest.Config) -> None:
    """Fail when the markers above and pyproject.toml's drift apart (an unregistered marker is only
    a warning)."""
    registered = {line.split(":", 1)[0].strip() for line in config.getini("markers")}
    missing = {"peers", "hardening", *PEER_FAMILIES} - registered
    if missing:
        raise pytest.UsageError(f"tests/conftest.py marks {sorted(missing)}: register them in pyproject.toml")


HARDENING = (
    "tests/serve/test_serve_http_limits.py",
    "tests/serve/test_serve_calls.py::test_a_2025_era_question_nobody_answers_stops_the_run",
    "tests/records/test_assertion_jq.py",
    "tests/records/test_deep_json.py",
    "tests/cli/test_round_faults.py::test_a_malformed_call_cancels_its_slow_sibling_at_once",
    "tests/cli/test_mcp_login.py::test_a_forged_callback_does_not_end_the_sign_in",
    "tests/cli/test_control_characters.py",
    "tests/cli/test_fifo_registry.py",
    "tests/mcp/test_bad_replies.py::test_a_server_logging_to_stdout_gets_a_few_notes_and_a_count",
    "tests/records/test_record_replay.py::test_an_environment_secret_a_tool_prints_is_masked_in_the_cassette",
    "tests/cli/test_send_ahead.py::test_with_a_config_each_chat_goes_to_the_endpoint_the_config_names_now",
    "tests/cli/test_send_ahead.py::test_a_cache_folder_that_is_a_symlink_is_left_alone",
    "tests/unit/test_template.py::test_references_skip_comments_and_raw_blocks_and_survive_unclosed_tags",
    "tests/lsp/test_early_initialize.py",
    "tests/lsp/test_prebuilt_initialize.py::test_a_first_message_nested_too_deep_does_not_end_the_server",
)
"""The tests of the hardening rounds' findings (``-m hardening``; docs/testing.md says how to repeat
them): a node id or a prefix of one."""


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook turns the groups into node-id suffixes
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that needs a peer gets its family's marker and ``peers``. Every test module that
    uses a fixture of ``SHARED_RESOURCES`` joins that resource's group (all its tests, so the
    module still runs whole in one worker). Without xdist the group marks do nothing."""
    for item in items:
        if item.nodeid.startswith(HARDENING):
            item.add_marker(pytest.mark.hardening)
        family = peer_family(item)
        if family is not None:
            item.add_marker(getattr(pytest.mark, family))
            item.add_marker(pytest.mark.peers)
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
    """Secrets are remembered process-wide (``lait_core.support.redact``) once a run uses them, as in a
    long-lived lait-ls; between tests that memory would mask one test's ordinary words (a
    ``?flag`` query item, a password ``secret``) in another test's messages."""
    redact.forget_secrets()
    yield
    redact.forget_secrets()
