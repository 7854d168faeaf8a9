"""LAIT102 config-invalid-value: a lait.config.yml value has the wrong type, is out of range, or a required key is missing."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

C = "lait.config.yml"

CODE = "LAIT102"

RULE = rule(
    CODE,
    "config-invalid-value",
    Severity.ERROR,
    "A lait.config.yml value has the wrong type, is out of range, or a required key is missing.",
    "Types follow the config reference: for example `models` maps an alias to a list of definitions each "
    "with `provider.base_url` and `model_id`; `default.temperature` is 0.0–2.0. lait checks ranges of "
    "`default:` and `models:` at lint time (the original only failed when a request was made).",
    Example("models:\n  fast:\n    - model_id: qwen3\n", filename=C),
    Example(
        "models:\n  fast:\n    - provider: {base_url: 'http://localhost:1234/v1'}\n      model_id: qwen3\n",
        filename=C,
    ),
)
