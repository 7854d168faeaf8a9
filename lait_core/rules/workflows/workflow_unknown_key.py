"""LAIT303 workflow-unknown-key: a workflow key (top level, `default:`, `agents:` entry, `retry:` ...) is not known."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT303"

RULE = rule(
    CODE,
    "workflow-unknown-key",
    Severity.ERROR,
    "A workflow key (top level, `default:`, `agents:` entry, `retry:` ...) is not known.",
    "Workflow parsing is strict; the message suggests the closest known key.",
    Example("descripton: Say hi\nsteps:\n  - jq: '.'\n"),
    Example("description: Say hi\nsteps:\n  - jq: '.'\n"),
)
