"""Checkpoints (docs/workflows.md): with ``--checkpoint`` a workflow run writes
``.lait/runs/<run-id>.json`` when it starts and after every top-level step, atomically, so a run
killed at any moment (even with SIGKILL) leaves the state after its last completed top-level step.

The file holds ``run_id, workflow_path, initial_input, inputs, top_level_labels, completed_index,
counter, current_value, steps_outputs, status`` (``failed`` while running and after a failure,
``completed`` at the end) and, beyond the reference, ``step_digests``: a SHA-256 of each top-level
step's source, so a resume notices a completed step whose content (not only its label) changed.

``--resume ID`` continues at the first step not completed, with the saved ``$steps``, value and
progress counter. It refuses (a :class:`ResumeRefused`, exit 2): another workflow file, a completed
run, a changed label or content among the completed steps, and -- stricter than the reference,
which let ``--input`` override -- ``--input`` values that differ from the saved ones (the completed
steps ran with those). A change only in the steps not run yet is a warning. A control step that was
interrupted mid-way runs again from its start.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.engine.llm.chat_types import EngineError
from lait_core.engine.records.record_files import (
    RecordFileError,
    atomic_write_json,
    read_json_object,
    utc_now,
)

if TYPE_CHECKING:
    from lait_core.documents.workflow_file import Step

RUNS_DIR = Path(".lait") / "runs"
RUN_ID = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9]{9}-[0-9]+-[0-9]+")
_sequence = 0


class CheckpointError(EngineError):
    """A checkpoint that cannot be read or written."""


class ResumeRefused(EngineError):
    """``--resume`` cannot continue this run (the CLI exits 2)."""


def new_run_id() -> str:
    """``20260903-141233-123456789-12345-0``: UTC time, nanoseconds, pid, a per-process counter."""
    global _sequence
    now = utc_now()
    run_id = f"{now:%Y%m%d-%H%M%S}-{now.microsecond * 1000:09d}-{os.getpid()}-{_sequence}"
    _sequence += 1
    return run_id


def top_level_label(step: Step) -> str:
    """A top-level step's one name (its ``id``, else ``step-<n> (<kind>)``)."""
    return step.name


def step_digest(step: Step) -> str:
    data = json.dumps(
        step.node.to_python(), ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


@dataclass(slots=True)
class Checkpoint:
    """The saved state of one run (see the module doc)."""

    run_id: str
    workflow_path: str
    initial_input: Any
    inputs: dict[str, Any]
    top_level_labels: list[str]
    step_digests: list[str]
    completed_index: int = 0
    counter: int = 0
    current_value: Any = None
    steps_outputs: dict[str, Any] = field(default_factory=dict)
    status: str = "failed"
    updated_at: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "workflow_path": self.workflow_path,
            "initial_input": self.initial_input,
            "inputs": self.inputs,
            "top_level_labels": self.top_level_labels,
            "step_digests": self.step_digests,
            "completed_index": self.completed_index,
            "counter": self.counter,
            "current_value": self.current_value,
            "steps_outputs": self.steps_outputs,
            "status": self.status,
            "updated_at": self.updated_at,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> Checkpoint:
        def need(key: str, kind: type | tuple[type, ...]) -> Any:
            value = data.get(key)
            if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
                raise CheckpointError(f"checkpoint '{where}' is damaged: '{key}' is missing or malformed")
            return value

        labels = need("top_level_labels", list)
        digests = data.get("step_digests")
        return cls(
            run_id=need("run_id", str),
            workflow_path=need("workflow_path", str),
            initial_input=data.get("initial_input"),
            inputs=need("inputs", dict),
            top_level_labels=[str(x) for x in labels],
            step_digests=[str(x) for x in digests] if isinstance(digests, list) else [],
            completed_index=need("completed_index", int),
            counter=need("counter", int),
            current_value=data.get("current_value"),
            steps_outputs=need("steps_outputs", dict),
            status=need("status", str),
            updated_at=str(data.get("updated_at", "")),
        )


@dataclass(slots=True)
class CheckpointStore:
    folder: Path

    def path(self, run_id: str) -> Path:
        return self.folder / f"{run_id}.json"

    def save(self, checkpoint: Checkpoint) -> None:
        from lait_core.engine.records.record_files import rfc3339

        checkpoint.updated_at = rfc3339(utc_now())
        try:
            atomic_write_json(self.path(checkpoint.run_id), checkpoint.as_json())
        except (OSError, TypeError, ValueError) as exc:
            raise CheckpointError(
                f"cannot write checkpoint '{self.path(checkpoint.run_id)}': {exc}"
            ) from None

    def load(self, run_id: str) -> Checkpoint:
        if RUN_ID.fullmatch(run_id) is None:
            raise ResumeRefused(f"'{run_id}' is not a run id (see `lait runs list`)")
        path = self.path(run_id)
        try:
            data = read_json_object(path)
        except FileNotFoundError:
            raise ResumeRefused(
                f"no checkpoint for run '{run_id}' in '{self.folder}' (see `lait runs list`)"
            ) from None
        except RecordFileError as exc:
            raise CheckpointError(str(exc)) from None
        return Checkpoint.from_json(data, str(path))

    def all(self) -> list[tuple[Path, Checkpoint | None]]:
        """Every checkpoint file, newest run id first (a damaged one as None)."""
        try:
            names = sorted((p for p in self.folder.glob("*.json") if RUN_ID.fullmatch(p.stem)), reverse=True)
        except OSError:
            return []
        out: list[tuple[Path, Checkpoint | None]] = []
        for path in names:
            try:
                out.append((path, Checkpoint.from_json(read_json_object(path), str(path))))
            except (OSError, RecordFileError, CheckpointError):
                out.append((path, None))
        return out


@dataclass(slots=True)
class Checkpointer:
    """Saves one run's checkpoints; the workflow executor calls it for the top-level step list."""

    store: CheckpointStore
    state: Checkpoint
    resuming: bool = False
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def fresh(cls, store: CheckpointStore, run_id: str) -> Checkpointer:
        """For a new run; :meth:`begin` fills in what the run starts with."""
        return cls(store, Checkpoint(run_id, "", None, {}, [], []))

    @classmethod
    def resume(cls, store: CheckpointStore, saved: Checkpoint, warnings: list[str]) -> Checkpointer:
        return cls(store, saved, resuming=True, warnings=warnings)

    def begin(
        self, workflow_path: str, initial: Any, inputs: Mapping[str, Any], steps: Sequence[Step]
    ) -> None:
        s = self.state
        s.workflow_path = workflow_path
        s.initial_input = initial
        s.inputs = dict(inputs)
        s.top_level_labels, s.step_digests = labels_and_digests(steps)
        s.current_value = initial

    def started(self) -> None:
        self.store.save(self.state)

    def step_done(self, index: int, counter: int, value: Any, steps: Mapping[str, Any]) -> None:
        s = self.state
        s.completed_index = index
        s.counter = counter
        s.current_value = value
        s.steps_outputs = dict(steps)
        s.status = "failed"
        self.store.save(s)

    def finished(self, value: Any) -> None:
        self.state.status = "completed"
        self.state.current_value = value
        self.store.save(self.state)


def labels_and_digests(steps: Sequence[Step]) -> tuple[list[str], list[str]]:
    return [top_level_label(s) for s in steps], [step_digest(s) for s in steps]


def check_resume(
    saved: Checkpoint, workflow_path: str, steps: Sequence[Step], inputs: Mapping[str, Any] | None
) -> list[str]:
    """Refuse (``ResumeRefused``) what cannot continue; the warnings of what may."""
    if saved.workflow_path != workflow_path:
        raise ResumeRefused(
            f"run '{saved.run_id}' ran '{saved.workflow_path}', not '{workflow_path}'; resume it with that file"
        )
    if saved.status == "completed":
        raise ResumeRefused(f"run '{saved.run_id}' already completed; there is nothing to resume")
    labels, digests = labels_and_digests(steps)
    done = saved.completed_index
    if done > len(labels) or labels[:done] != saved.top_level_labels[:done]:
        raise ResumeRefused(
            f"cannot resume run '{saved.run_id}': the completed steps changed (they were "
            f"{saved.top_level_labels[:done]}, the workflow now starts with {labels[:done]}); start a new run"
        )
    if saved.step_digests and digests[:done] != saved.step_digests[:done]:
        changed = [
            lab for lab, a, b in zip(labels[:done], digests, saved.step_digests, strict=False) if a != b
        ]
        raise ResumeRefused(
            f"cannot resume run '{saved.run_id}': completed step(s) {', '.join(changed)} changed since the run;"
            " start a new run"
        )
    if inputs is not None and dict(inputs) != saved.inputs:
        raise ResumeRefused(
            f"cannot resume run '{saved.run_id}': the --input values differ from the ones the completed steps"
            " ran with; start a new run (or resume without --input)"
        )
    warnings = []
    if labels[done:] != saved.top_level_labels[done:] or (
        saved.step_digests and digests[done:] != saved.step_digests[done:]
    ):
        warnings.append(f"the steps of run '{saved.run_id}' not run yet changed since it was checkpointed")
    return warnings
