"""Fixtures for the whole suite."""

from collections.abc import Iterator

import pytest

from lait_core import redact


@pytest.fixture(autouse=True)
def _forget_remembered_secrets() -> Iterator[None]:
    """Secrets are remembered process-wide (``lait_core.redact``) once a run uses them, as in a
    long-lived lait-ls; between tests that memory would mask one test's ordinary words (a
    ``?flag`` query item, a password ``secret``) in another test's messages."""
    redact.forget_secrets()
    yield
    redact.forget_secrets()
