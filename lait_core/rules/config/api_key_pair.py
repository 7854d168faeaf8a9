"""LAIT103 api-key-pair: `api_key` and `api_key_cmd` are both set in one place."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.rules.registry import Example, rule

C = "lait.config.yml"

CODE = "LAIT103"

RULE = rule(
    CODE,
    "api-key-pair",
    Severity.ERROR,
    "`api_key` and `api_key_cmd` are both set in one place.",
    "Exactly one source of the API key may be given per layer: at the top level, in `jev:`, and in each "
    "`provider` of every `models:` entry (fallback entries included).",
    Example("api_key: sk-1\napi_key_cmd: pass show openai\n", filename=C),
    Example("api_key_cmd: pass show openai\n", filename=C),
)
