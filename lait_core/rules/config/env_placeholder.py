"""LAIT106 env-placeholder: a `${VAR}` placeholder is malformed."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.rules.registry import Example, rule

C = "lait.config.yml"

CODE = "LAIT106"

RULE = rule(
    CODE,
    "env-placeholder",
    Severity.ERROR,
    "A `${VAR}` placeholder is malformed.",
    "Values that expand environment variables (`base_url`, `api_key`, MCP `command`/`args`/`env`/`url`/"
    "`headers`, tool `env`/`cwd`) use `${NAME}` with NAME made of letters, digits and `_`. There is no "
    "`${VAR:-default}` syntax and no escape. Whether the variable is set is checked by `lait doctor`, not "
    "by lint.",
    Example("base_url: ${LLM_URL:-http://localhost:1234/v1}\n", filename=C),
    Example("base_url: ${LLM_URL}\n", filename=C),
)
