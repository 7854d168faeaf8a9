"""Where a step may run: the placement rules for `ask` and a fixed-path `write`, and the nesting
rules for `workflow:` steps (cycle, depth 32).

One implementation for every place that enforces them, so that `lait lint` reports exactly what a
run refuses before it runs anything:

- the file's own steps, when a workflow file is validated (`documents/workflow.py`);
- a child file, which inherits the placement of the `workflow:` step that calls it: at run time
  when the child is loaded (`engine/workflow/loader.py`), and at lint time at the calling step
  (`lint/checks/workflows.py`);
- the nesting of `workflow:` references, at run time and at lint time alike.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lait_core.syntax.positions import Range
from lait_core.syntax.yaml.tree import ScalarNode

if TYPE_CHECKING:
    from lait_core.documents.workflow_file import Step, WorkflowDocument

MAX_DEPTH = 32
"""The deepest a `workflow:` step may nest: the top file is depth 0, its children depth 1, ..."""


@dataclass(frozen=True, slots=True)
class Placement:
    """Whether steps run concurrently with others: in a `parallel` branch or a concurrent
    `for_each` item (`concurrent`), or in a concurrent `for_each` item (`concurrent_for_each`)."""

    concurrent: bool = False
    concurrent_for_each: bool = False

    def __or__(self, other: Placement) -> Placement:
        return Placement(
            self.concurrent or other.concurrent, self.concurrent_for_each or other.concurrent_for_each
        )


@dataclass(frozen=True, slots=True)
class Misplaced:
    """A step that cannot run where it is placed: the step, the range to report, the reason."""

    step: Step
    range: Range
    message: str


def ask_problem(step: Step, placement: Placement) -> Misplaced | None:
    """An `ask` step cannot run in a `parallel` branch or a concurrent `for_each` (it needs the
    terminal to itself)."""
    key = step.node.key_node("ask")
    if step.kind != "ask" or not placement.concurrent or key is None:
        return None
    return Misplaced(
        step,
        key.range,
        f"{step.label}: 'ask' cannot run inside a 'parallel' branch or a concurrent 'for_each'",
    )


def write_problem(step: Step, placement: Placement) -> Misplaced | None:
    """A `write` to a fixed path (no placeholder) cannot run in a concurrent `for_each`: every item
    would write the same file at the same time."""
    node = step.get("write")
    if step.kind != "write" or not placement.concurrent_for_each or not isinstance(node, ScalarNode):
        return None
    path = node.value
    if not isinstance(path, str) or not path.strip() or "{{" in path:
        return None
    return Misplaced(
        step,
        node.range,
        f"'write' ({step.label}) with a fixed path cannot run inside a concurrent 'for_each'; include a"
        " placeholder such as '{{ loop.index }}' in the path",
    )


def inherited_problems(doc: WorkflowDocument, placement: Placement) -> list[Misplaced]:
    """The steps of a child file that cannot run where the calling `workflow:` step puts them."""
    if not placement.concurrent:
        return []
    found: list[Misplaced] = []
    for step in doc.all_steps():
        for rule in (ask_problem, write_problem):
            problem = rule(step, placement)
            if problem is not None:
                found.append(problem)
    return found


def inherited_message(ref: str, problem: str) -> str:
    """The reason a child file cannot run where `workflow: <ref>` calls it from (``problem``: the
    :class:`Misplaced` step's message)."""
    return f"in workflow '{ref}': {problem} (the child workflow is called from one)"


def nesting_problem(ref: str, target: Path, chain: Collection[Path], depth: int) -> str | None:
    """Why the `workflow: <ref>` step of a file at ``depth`` (whose ancestors and itself are
    ``chain``, canonical paths) cannot run the file ``target`` (canonical): a cycle or depth > 32."""
    if target in chain:
        return f"'workflow: {ref}' would create a cycle"
    if depth + 1 > MAX_DEPTH:
        return f"'workflow: {ref}' exceeds the maximum workflow nesting depth of {MAX_DEPTH}"
    return None
