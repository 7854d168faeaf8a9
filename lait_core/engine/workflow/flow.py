"""`stop` and `break` travel up the step tree as exceptions carrying the current value."""

from __future__ import annotations

from typing import Any


class Flow(Exception):
    def __init__(self, value: Any, label: str, origin: object) -> None:
        super().__init__(label)
        self.value = value
        self.label = label
        """The label of the `stop`/`break` step that raised it."""
        self.origin = origin
        """That step itself."""


class StopFlow(Flow):
    """Ends the current workflow file (caught by the file runner)."""


class BreakFlow(Flow):
    """Ends the innermost `for_each`/`while`/`until` (caught by the loop)."""
