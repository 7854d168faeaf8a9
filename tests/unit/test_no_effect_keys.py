"""LAIT108 (issue 12 item 5): every config key that is read but has no effect yet is warned, from the
one set in lait_core/rules/config/no_effect_key.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lait_core.documents.config_file import parse_config
from lait_core.documents.document_models import Config
from lait_core.lint.checks.config import check_config
from lait_core.rules.config.no_effect_key import NO_EFFECT_YET

SAMPLES: dict[str, Any] = {
    "default.cache": True,
    "default.cache_ttl": 600,
    "default.history": False,
    "jev": {"model": "jev-latest"},
}


def _config_text(path: str) -> str:
    *parents, last = path.split(".")
    value = SAMPLES.get(path, True)
    lines = [f"{'  ' * i}{name}:" for i, name in enumerate(parents)]
    lines.append(f"{'  ' * len(parents)}{last}: {json.dumps(value)}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("path", sorted(NO_EFFECT_YET))
def test_each_no_effect_key_is_a_valid_key_and_warned_at_its_key(path: str) -> None:
    text = _config_text(path)
    doc = parse_config(text, "lait.config.yml")
    assert not doc.diagnostics, f"'{path}' must be a key the config accepts: {doc.diagnostics}"
    Config.model_validate(doc.root.to_python() if doc.root is not None else {})
    found = [d for d in check_config(doc) if d.code == "LAIT108"]
    assert [d.message for d in found] == [f"'{path}' is read but has no effect in this version of lait"]
    assert found[0].severity == "warning"
    assert found[0].range.start.line == len(path.split(".")) - 1  # at the key itself


def test_keys_with_an_effect_are_not_warned() -> None:
    doc = parse_config(
        "default:\n  model: qwen\n  render: true\n  cache: true\n  cache_ttl: 60\n  history: false\n"
        "tools:\n  cache: {command: [echo]}\n",
        "c.yml",
    )
    assert [d for d in check_config(doc) if d.code == "LAIT108"] == []
