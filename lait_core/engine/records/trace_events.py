"""Trace events (docs/workflows.md): one JSON object per line, ``{seq, operation, label, start,
end, duration_ms, attributes}``, written once, atomically, after a successful run.

Operations: ``chat`` (one model request; ``gen_ai.request.model``, ``lait.source`` =
``live``/``cache``/``replay``, token counts when the server reported usage), ``execute_tool``
(``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.arguments``, ``lait.step.label``,
``lait.tool.round``, ``lait.tool.decision``, ``lait.tool.denial_reason``) and ``compact``.

Beyond the reference: streamed requests are traced too, a ``chat`` event carries
``lait.cost_usd`` when the model has ``pricing``, and ``gen_ai.operation.name`` is in every event's
attributes.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lait_core.engine.records.record_files import (
    RecordFileError,
    atomic_write_text,
    parse_rfc3339,
    read_text_bounded,
    utc_now,
)
from lait_core.support import bounded_json as jsonbounded

OPERATIONS = ("chat", "execute_tool", "compact")


def iso(when: dt.datetime) -> str:
    """``2026-12-01T14:30:00.123456Z`` (``when`` is UTC)."""
    return when.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


@dataclass(slots=True)
class TraceRecorder:
    """Collects a run's events in memory (in the order they finish); :meth:`write` saves them.
    Recording keeps the raw times; formatting waits for :meth:`lines` (tracing must stay cheap)."""

    _raw: list[tuple[str, str, dt.datetime, dt.datetime, dict[str, Any]]] = field(default_factory=list)

    def add(
        self,
        operation: str,
        label: str,
        start: dt.datetime,
        end: dt.datetime,
        attributes: dict[str, Any],
    ) -> None:
        self._raw.append((operation, label, start, end, attributes))

    @property
    def events(self) -> list[dict[str, Any]]:
        out = []
        for seq, (operation, label, start, end, attributes) in enumerate(self._raw):
            out.append(
                {
                    "seq": seq,
                    "operation": operation,
                    "label": label,
                    "start": iso(start),
                    "end": iso(end),
                    "duration_ms": max(0, round((end - start).total_seconds() * 1000)),
                    "attributes": {"gen_ai.operation.name": operation, **attributes},
                }
            )
        return out

    def span(self) -> Span:
        return Span(self, utc_now())

    def lines(self) -> str:
        return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in self.events)

    def write(self, path: Path) -> None:
        atomic_write_text(path, self.lines())


@dataclass(slots=True)
class Span:
    recorder: TraceRecorder
    start: dt.datetime

    def done(self, operation: str, label: str, attributes: dict[str, Any]) -> None:
        self.recorder.add(operation, label, self.start, utc_now(), attributes)


# -- reading -----------------------------------------------------------------------------------
class TraceFileError(Exception):
    """A trace file that cannot be read, or a line that is not an event (``str()`` is located)."""


_REQUIRED = {"seq": int, "operation": str, "label": str, "start": str, "end": str, "duration_ms": int}


def parse_events(text: str, name: str) -> list[dict[str, Any]]:
    """The events of a trace file's text; blank lines are skipped, a bad line is an error naming
    ``name:<line>``."""
    events: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = jsonbounded.loads(line)
        except (json.JSONDecodeError, jsonbounded.TooDeep) as exc:
            raise TraceFileError(f"{name}:{number}: not a JSON object: {exc.msg}") from None
        if not isinstance(value, dict):
            raise TraceFileError(f"{name}:{number}: not a JSON object")
        for key, kind in _REQUIRED.items():
            if not isinstance(value.get(key), kind) or isinstance(value.get(key), bool):
                raise TraceFileError(f"{name}:{number}: '{key}' is missing or not a {kind.__name__}")
        if parse_rfc3339(value["start"]) is None or parse_rfc3339(value["end"]) is None:
            raise TraceFileError(f"{name}:{number}: 'start'/'end' are not ISO-8601 times")
        if not isinstance(value.get("attributes", {}), dict):
            raise TraceFileError(f"{name}:{number}: 'attributes' is not an object")
        value.setdefault("attributes", {})
        events.append(value)
    return events


def read_trace(path: Path) -> list[dict[str, Any]]:
    try:
        text = read_text_bounded(path)
    except FileNotFoundError:
        raise TraceFileError(f"cannot read trace file '{path}': no such file") from None
    except RecordFileError as exc:
        raise TraceFileError(str(exc)) from None
    return parse_events(text, str(path))


def select(
    events: Iterable[dict[str, Any]], operation: str | None, label: str | None
) -> list[dict[str, Any]]:
    return [
        e
        for e in events
        if (operation is None or e["operation"] == operation) and (label is None or label in e["label"])
    ]


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def event_line(event: dict[str, Any]) -> str:
    """``[   42ms] chat   <label> — HH:MM:SS.mmm  (k=v ...)``."""
    start = parse_rfc3339(event["start"])
    clock = start.strftime("%H:%M:%S.") + f"{start.microsecond // 1000:03d}" if start else event["start"]
    attrs = " ".join(
        f"{k}={_scalar(v)}" for k, v in event["attributes"].items() if k != "gen_ai.operation.name"
    )
    line = f"[{event['duration_ms']:>5}ms] {event['operation']:<6} {event['label']} — {clock}"
    return f"{line}  ({attrs})" if attrs else line


@dataclass(slots=True)
class LabelSummary:
    label: str
    chat: int = 0
    execute_tool: int = 0
    compact: int = 0
    duration_ms: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    cached: int = 0

    def add(self, event: dict[str, Any]) -> None:
        op = event["operation"]
        if op in ("chat", "execute_tool", "compact"):
            setattr(self, op, getattr(self, op) + 1)
        self.duration_ms += event["duration_ms"]
        attrs = event["attributes"]
        for key, name in (
            ("gen_ai.usage.input_tokens", "input_tokens"),
            ("gen_ai.usage.output_tokens", "output_tokens"),
        ):
            value = attrs.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                setattr(self, name, getattr(self, name) + value)
        cost = attrs.get("lait.cost_usd")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            self.cost_usd = (self.cost_usd or 0.0) + float(cost)
        if attrs.get("lait.source") in ("cache", "replay"):
            self.cached += 1


def summarize(events: Iterable[dict[str, Any]]) -> list[LabelSummary]:
    """Per label, in order of first appearance."""
    rows: dict[str, LabelSummary] = {}
    for event in events:
        rows.setdefault(event["label"], LabelSummary(event["label"])).add(event)
    return list(rows.values())


def total(rows: Iterable[LabelSummary]) -> LabelSummary:
    out = LabelSummary("total")
    for row in rows:
        out.chat += row.chat
        out.execute_tool += row.execute_tool
        out.compact += row.compact
        out.duration_ms += row.duration_ms
        out.input_tokens += row.input_tokens
        out.output_tokens += row.output_tokens
        out.cached += row.cached
        if row.cost_usd is not None:
            out.cost_usd = (out.cost_usd or 0.0) + row.cost_usd
    return out


def without_timings(events: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The events with ``start``/``end``/``duration_ms`` dropped (comparing two runs)."""
    for e in events:
        yield {k: v for k, v in e.items() if k not in ("start", "end", "duration_ms")}
