"""LAIT108: a config key that is accepted but has no effect yet."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.checks.no_effect import NO_EFFECT_YET
from lait_core.lint.registry import Example, rule

C = "lait.config.yml"

rule(
    "LAIT108",
    "no-effect-key",
    Severity.WARNING,
    "A lait.config.yml key is read but has no effect in this version.",
    "lait accepts every key of the reference's config format and checks its value, so a file written for "
    "the reference loads. Some keys change nothing here yet; each is reported at its key so that nobody "
    "relies on it silently. Today: " + ", ".join(f"`{k}`" for k in sorted(NO_EFFECT_YET)) + ".",
    Example("default:\n  model: qwen\njev:\n  model: jev-latest\n", filename=C),
    Example("default:\n  model: qwen\n", filename=C),
)
