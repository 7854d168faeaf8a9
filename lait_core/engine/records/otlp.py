"""``lait trace export`` (docs/workflows.md): a trace file as one OTLP trace, POSTed to the
exact URL given, as OTLP/HTTP JSON (default) or protobuf (``--encoding protobuf``, built with
``opentelemetry-proto``; receivers such as Arize Phoenix accept only protobuf).

Ids are derived from the file's events (SHA-256 of their canonical JSON), so exporting the same
file again sends the same trace and span ids and a receiver that deduplicates keeps one copy.

Every event is a span named ``<operation> <label>`` with the event's attributes plus
``gen_ai.operation.name``, ``lait.label`` and ``lait.seq`` (non-scalar values as JSON strings);
``chat`` spans are ``CLIENT`` spans (GenAI semantic conventions: ``gen_ai.request.model``,
``gen_ai.usage.*``; ``execute_tool``: ``gen_ai.tool.name``, ``gen_ai.tool.call.id``).

Beyond the reference (whose spans were all roots): the spans form a tree -- one root span for the
run, one child span per step label (the label of a ``chat``/``compact`` event, the
``lait.step.label`` of an ``execute_tool`` event), and each event under its step -- so trace viewers
show which step made which calls.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from lait_core.engine.records.record_files import parse_rfc3339

SPAN_KIND_INTERNAL = 1
SPAN_KIND_CLIENT = 3
TIMEOUT = 30.0


class OtlpError(Exception):
    """A bad header, an unreachable receiver or a non-2xx answer."""


def parse_headers(values: Sequence[str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    from lait_core.documents.envvars import EnvVarError, expand

    headers: dict[str, str] = {}
    for raw in values:
        name, sep, value = raw.partition("=")
        if not sep or not name.strip():
            raise OtlpError(f"--header expects NAME=VALUE, got '{raw}'")
        try:
            headers[name.strip()] = expand(value, environ)
        except EnvVarError as exc:
            raise OtlpError(f"--header {name.strip()}: {exc.message}") from None
    return headers


def _nanos(text: str) -> str:
    when = parse_rfc3339(text)
    if when is None:
        return "0"
    return str(int(when.timestamp()) * 1_000_000_000 + when.microsecond * 1000)


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    return {"stringValue": json.dumps(value, ensure_ascii=False, separators=(",", ":"))}


def _attributes(values: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in values.items() if v is not None]


def trace_id_of(events: Sequence[Mapping[str, Any]]) -> str:
    canonical = json.dumps(list(events), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(b"lait-trace\0" + canonical.encode("utf-8")).hexdigest()[:32]


def _span_id(trace_id: str, name: str) -> str:
    return hashlib.sha256(f"{trace_id}\0{name}".encode()).hexdigest()[:16]


def _group(event: Mapping[str, Any]) -> str:
    if event["operation"] == "execute_tool":
        step = event.get("attributes", {}).get("lait.step.label")
        if isinstance(step, str):
            return step
    return str(event["label"])


def build_request(events: Sequence[Mapping[str, Any]], service_name: str) -> dict[str, Any]:
    """The OTLP/JSON ``ExportTraceServiceRequest`` (ids as lowercase hex, as OTLP/JSON wants)."""
    trace_id = trace_id_of(events)
    root_id = _span_id(trace_id, "root")
    spans: list[dict[str, Any]] = []
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for event in events:
        groups.setdefault(_group(event), []).append(event)
    if events:
        spans.append(
            {
                "traceId": trace_id,
                "spanId": root_id,
                "name": "lait run",
                "kind": SPAN_KIND_INTERNAL,
                "startTimeUnixNano": min(_nanos(str(e["start"])) for e in events),
                "endTimeUnixNano": max(_nanos(str(e["end"])) for e in events),
                "attributes": _attributes({"lait.events": len(events)}),
            }
        )
        for position, (label, members) in enumerate(groups.items()):
            spans.append(
                {
                    "traceId": trace_id,
                    "spanId": _span_id(trace_id, f"group\0{position}\0{label}"),
                    "parentSpanId": root_id,
                    "name": label,
                    "kind": SPAN_KIND_INTERNAL,
                    "startTimeUnixNano": min(_nanos(str(e["start"])) for e in members),
                    "endTimeUnixNano": max(_nanos(str(e["end"])) for e in members),
                    "attributes": _attributes({"lait.label": label}),
                }
            )
    parents = {label: _span_id(trace_id, f"group\0{i}\0{label}") for i, label in enumerate(groups)}
    for event in events:
        operation = str(event["operation"])
        attributes = dict(event.get("attributes", {}))
        attributes["gen_ai.operation.name"] = operation
        attributes["lait.label"] = event["label"]
        attributes["lait.seq"] = event["seq"]
        spans.append(
            {
                "traceId": trace_id,
                "spanId": _span_id(trace_id, f"event\0{event['seq']}"),
                "parentSpanId": parents[_group(event)],
                "name": f"{operation} {event['label']}",
                "kind": SPAN_KIND_CLIENT if operation == "chat" else SPAN_KIND_INTERNAL,
                "startTimeUnixNano": _nanos(str(event["start"])),
                "endTimeUnixNano": _nanos(str(event["end"])),
                "attributes": _attributes(attributes),
            }
        )
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes({"service.name": service_name})},
                "scopeSpans": [{"scope": {"name": "lait"}, "spans": spans}],
            }
        ]
    }


def _proto_ids(request: dict[str, Any]) -> dict[str, Any]:
    """The same request with ids as base64 (protobuf's JSON mapping of ``bytes``)."""
    copy: dict[str, Any] = json.loads(json.dumps(request))
    for resource in copy["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode("ascii")
    return copy


def to_protobuf(request: dict[str, Any]) -> bytes:
    try:
        from google.protobuf import json_format  # type: ignore[import-untyped]
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    except ImportError:
        raise OtlpError(
            "--encoding protobuf needs the 'opentelemetry-proto' package (pip install opentelemetry-proto)"
        ) from None
    message = ExportTraceServiceRequest()
    json_format.ParseDict(_proto_ids(request), message)
    return bytes(message.SerializeToString())


def export_trace(
    events: Sequence[Mapping[str, Any]],
    url: str,
    headers: Mapping[str, str],
    service_name: str,
    encoding: str = "json",
) -> int:
    """POST the trace; the number of spans sent."""
    from lait_core.support.httpx_import import httpx

    request = build_request(events, service_name)
    if encoding == "protobuf":
        body = to_protobuf(request)
        content_type = "application/x-protobuf"
    else:
        body = json.dumps(request, ensure_ascii=False).encode("utf-8")
        content_type = "application/json"
    try:
        response = httpx.post(
            url, content=body, headers={**headers, "Content-Type": content_type}, timeout=TIMEOUT
        )
    except httpx.HTTPError as exc:
        raise OtlpError(f"exporting to '{url}' failed: {exc}") from None
    if not response.is_success:
        raise OtlpError(f"exporting to '{url}' failed: HTTP {response.status_code}: {response.text[:500]}")
    return len(request["resourceSpans"][0]["scopeSpans"][0]["spans"])
