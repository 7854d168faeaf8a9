"""Rule families; importing this package registers every rule in the registry."""

from lait_core.lint import security, testfiles
from lait_core.lint.rules import (
    agent,
    capabilities,
    config,
    foreign_agent,
    gguf,
    mcp_oauth,
    no_effect,
    prompt_names,
    prompt_vars,
    python_from_path,
    references,
    source,
    workflow,
)

__all__ = [
    "agent",
    "capabilities",
    "config",
    "foreign_agent",
    "gguf",
    "mcp_oauth",
    "no_effect",
    "prompt_names",
    "prompt_vars",
    "python_from_path",
    "references",
    "security",
    "source",
    "testfiles",
    "workflow",
]
