"""Rule families; importing this package registers every rule in the registry."""

from lait_core.lint import security
from lait_core.lint.rules import agent, capabilities, config, gguf, references, source, workflow

__all__ = ["agent", "capabilities", "config", "gguf", "references", "security", "source", "workflow"]
