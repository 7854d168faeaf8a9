"""Fixtures for the real-model tests: one llama-cpp-python server with SmolLM2-135M-Instruct for
the whole session (see ``tests/peers/llm_server.py``).

The peer is installed by ``.ci/install-llm-peer``. When it is missing these tests are skipped
locally, but in CI (``CI=true``) they fail: a green CI must not hide a missing install step.
"""

from __future__ import annotations

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
