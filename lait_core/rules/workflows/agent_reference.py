"""LAIT319 agent-reference: an `agent:` step names an agent that cannot be found or loaded."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT319"

RULE = rule(
    CODE,
    "agent-reference",
    Severity.ERROR,
    "An `agent:` step names an agent that cannot be found or loaded.",
    "The reference is, in order: a name under this file's `agents:`; a path (with `/` or ending in `.md`) "
    "relative to the workflow file; a name under `agents:` in lait.config.yml. A referenced agent file is "
    "linted as well, and its problems are reported at the reference.",
    Example("steps:\n  - agent: ./agents/missing.md\n"),
    Example(
        "steps:\n  - agent: ./agents/reviewer.md\n",
        extra=(("agents/reviewer.md", "---\nmodel: qwen\n---\nYou review.\n"),),
    ),
)
