"""LAIT107: a local model file (`provider.gguf`) that does not exist."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

C = "lait.config.yml"

rule(
    "LAIT107",
    "missing-gguf-file",
    Severity.ERROR,
    "A model definition's `provider.gguf` names a file that does not exist.",
    "`provider: {gguf: PATH}` runs a local GGUF model in-process (with `pip install 'lait[local]'`) "
    "instead of sending requests to a server. The path is relative to the config file that defines it "
    "(`~` expands). A missing file would fail every run that uses the alias, so lint reports it; "
    "the built-in model needs no path: use `--model embedded` or `default: {model: embedded}`.",
    Example(
        "models:\n  local:\n    - provider: {gguf: ./models/tiny.gguf}\n      model_id: tiny\n",
        filename=C,
    ),
    Example(
        "models:\n  local:\n    - provider: {gguf: ./models/tiny.gguf}\n      model_id: tiny\n",
        filename=C,
        extra=(("models/tiny.gguf", "GGUF"),),
    ),
)
