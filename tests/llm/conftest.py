"""Fixtures for the real-model tests: one llama-cpp-python server with SmolLM2-135M-Instruct for
the whole session (see ``tests/peers/llm_server.py``).

The peer is installed by ``.ci/install-llm-peer``. When it is missing these tests are skipped
locally, but in CI (``CI=true``) they fail: a green CI must not hide a missing install step.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

from tests.peers.llm_server import LlamaServer, llama_server, missing_peer


def require_peer() -> None:
    """Skip (locally) or fail (in CI) when the peer is not installed."""
    problem = missing_peer()
    if problem is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{problem} (CI=true: a missing peer fails instead of skipping)", pytrace=False)
    pytest.skip(problem)


@pytest.fixture(scope="session")
def real_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    require_peer()
    with llama_server(log_dir=tmp_path_factory.mktemp("llama-server")) as server:
        yield server


def add_arguments(arguments: object) -> tuple[int, int]:
    """The ``a`` and ``b`` of a call of the add tool, checked only as far as its JSON Schema (which the
    grammar enforces) goes: which integers a small model picks, and its spacing, may differ between
    CPUs, so tests compare the tool's result with the sum of what the model actually passed."""
    if isinstance(arguments, str):
        arguments = json.loads(arguments)
    assert isinstance(arguments, dict) and {"a", "b"} <= set(arguments), arguments
    a, b = arguments["a"], arguments["b"]
    assert isinstance(a, int) and not isinstance(a, bool), arguments
    assert isinstance(b, int) and not isinstance(b, bool), arguments
    return a, b


def add_result(arguments: object) -> str:
    """What the add tool prints for these arguments (its stdout minus the newline)."""
    a, b = add_arguments(arguments)
    return str(a + b)
