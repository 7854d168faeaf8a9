"""The state a workflow run carries: one :class:`Run` per ``run_workflow`` call, one
:class:`FileScope` per workflow file being run (a child workflow gets its own), and one
:class:`Frame` per position in the step tree that owns a counter and a copy of the recordings
(parallel branches and concurrent items get fresh ones)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.documents import document_models as m
from lait_core.documents.workflow_file import WorkflowDocument
from lait_core.engine.llm.chat_types import Usage
from lait_core.engine.run.interaction import Event
from lait_core.engine.workflow.jq_eval import JqEvaluator

if TYPE_CHECKING:
    from lait_core.engine.records.checkpoint import Checkpointer
    from lait_core.engine.run.run_session import RunSession


@dataclass
class Run:
    """One run of a top-level workflow and everything it calls."""

    session: RunSession
    run_id: str | None = None
    documents: dict[Path, WorkflowDocument] = field(default_factory=dict)
    """Workflow files loaded by this run, by canonical path (each file is loaded once)."""
    usage: Usage = field(default_factory=Usage)
    checkpointer: Checkpointer | None = None
    """Checkpoints the top-level steps (``--checkpoint``/``--resume``)."""
    jq: JqEvaluator = field(init=False)
    """The run's jq worker processes (started on the first evaluation, killed by :meth:`aclose`)."""

    def __post_init__(self) -> None:
        self.jq = JqEvaluator(on_spawn=self.session.on_spawn)

    async def aclose(self) -> None:
        """Kill the run's jq workers (idempotent)."""
        await self.jq.aclose()

    def event(self, e: Event) -> None:
        self.session.interaction.event(e)

    def add_usage(self, usage: Usage | None) -> None:
        if usage is not None:
            self.usage = self.usage + usage


@dataclass
class FileScope:
    """One workflow file being run: its document, inputs, merged defaults and models."""

    run: Run
    path: Path
    """Canonical path of the file."""
    doc: WorkflowDocument
    workflow: m.Workflow
    inputs: dict[str, Any]
    defaults: m.WorkflowDefaults
    """This file's ``default:`` merged over the caller's, field by field (``retry`` as a whole)."""
    models: dict[str, list[m.ModelDefinition]]
    """This file's ``models:`` over the caller's, per alias."""
    depth: int = 0
    chain: tuple[Path, ...] = ()
    """Canonical paths of the workflow files from the top one to this one (cycle check)."""
    schemas: dict[str, Any] = field(default_factory=dict)
    """Resolved ``schemas:`` entries (filled lazily)."""

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def display(self) -> str:
        return self.doc.path or str(self.path)


class Counter:
    """The progress counter shared by a step list and its nested sequential lists."""

    def __init__(self) -> None:
        self.value = 0

    def next(self) -> int:
        self.value += 1
        return self.value


@dataclass
class Frame:
    """Where a step runs: the file, the recordings it sees, the innermost loop context, the progress
    prefix and counter, and whether it is inside a parallel branch or a concurrent for_each."""

    scope: FileScope
    steps: dict[str, Any]
    loop: Any = None
    prefix: str = ""
    counter: Counter = field(default_factory=Counter)
    concurrent: bool = False
    concurrent_for_each: bool = False

    @property
    def run(self) -> Run:
        return self.scope.run

    def template_context(self, value: Any) -> dict[str, Any]:
        return {"input": value, "steps": self.steps, "inputs": self.scope.inputs, "loop": self.loop}

    def with_loop(self, loop: Any) -> Frame:
        """The same recordings and counter with another loop context (sequential loops)."""
        return Frame(
            self.scope, self.steps, loop, self.prefix, self.counter, self.concurrent, self.concurrent_for_each
        )

    def branch(self, prefix: str, loop: Any, *, for_each: bool) -> Frame:
        """A parallel branch or a concurrent item: a copy of the recordings and a fresh counter."""
        return Frame(
            self.scope,
            dict(self.steps),
            loop,
            self.prefix + prefix,
            Counter(),
            True,
            self.concurrent_for_each or for_each,
        )


def now() -> float:
    return time.monotonic()
