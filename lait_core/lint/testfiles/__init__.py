"""LAIT7xx: test and eval files (docs/testing.md), one rule per module (its doc, examples
and check together); :mod:`.checks` runs them over one file. jq expressions in assertions are
LAIT402 (jq-syntax), like everywhere else."""

from lait_core.lint.testfiles import (
    invalid_value,
    replay_folder,
    unknown_input,
    unknown_key,
    unknown_step,
    unknown_tool,
    workflow_target,
)

__all__ = [
    "invalid_value",
    "replay_folder",
    "unknown_input",
    "unknown_key",
    "unknown_step",
    "unknown_tool",
    "workflow_target",
]
