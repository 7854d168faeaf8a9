"""Trace files (docs/workflows.md, issue 13): `--trace-file` JSONL with `seq`, written only
after a success; `lait trace show` with `--operation`, `--label`, `--json`, `--summary`; a bad line
is an error with its line number; `lait trace export` as OTLP JSON (parsed strictly by protobuf's
json_format) and protobuf to a real HTTP receiver, with ids that do not change on re-export."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, error, text, tool_calls

WF = """\
steps:
  - id: look
    prompt: "look at {{ input }}"
    tools: [shout]
  - id: say
    prompt: "say it"
"""
USAGE = {"prompt_tokens": 4, "completion_tokens": 2, "total_tokens": 6}


@pytest.fixture
def traced(project: Lait, server: ScriptedOpenAIServer) -> Path:
    project.write("wf.yml", WF)
    server.push(
        tool_calls(call("tool__shout", {"word": "hi"}, id="t1"), usage=USAGE),
        text("looked", usage=USAGE),
        text("said", usage=USAGE),
    )
    run = project("run", "wf.yml", "x", "--trace-file", "out/trace.jsonl")
    assert run.returncode == 0, run.stderr
    return project.cwd / "out" / "trace.jsonl"


def test_the_trace_file_has_one_event_per_line_in_seq_order(traced: Path) -> None:
    events = [json.loads(line) for line in traced.read_text().splitlines()]
    assert [e["seq"] for e in events] == [0, 1, 2, 3]
    assert [(e["operation"], e["label"]) for e in events] == [
        ("chat", "look"),
        ("execute_tool", "tool 'tool__shout'"),
        ("chat", "look"),
        ("chat", "say"),
    ]
    for e in events:
        assert list(e) == ["seq", "operation", "label", "start", "end", "duration_ms", "attributes"]
        assert e["start"].endswith("Z") and e["duration_ms"] >= 0
    tool = events[1]["attributes"]
    assert tool["gen_ai.tool.name"] == "tool__shout"
    assert tool["gen_ai.tool.arguments"] == '{"word":"hi"}'
    assert tool["gen_ai.tool.call.id"] == "t1"
    assert (tool["lait.step.label"], tool["lait.tool.round"], tool["lait.tool.decision"]) == (
        "look",
        1,
        "allowed",
    )
    chat = events[0]["attributes"]
    assert chat["gen_ai.request.model"] == "test-model" and chat["lait.source"] == "live"
    assert (chat["gen_ai.usage.input_tokens"], chat["gen_ai.usage.output_tokens"]) == (4, 2)


def test_a_failed_run_writes_no_trace(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", WF)
    server.push(error(400))
    run = project("run", "wf.yml", "x", "--trace-file", "t.jsonl")
    assert run.returncode == 4
    assert not (project.cwd / "t.jsonl").exists()


def test_trace_show_lines_filters_json_and_summary(project: Lait, traced: Path) -> None:
    shown = project("trace", "show", str(traced))
    lines = shown.stdout.splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("[") and "ms] chat   look — " in lines[0]
    assert "gen_ai.request.model=test-model" in lines[0]
    only_tools = project("trace", "show", str(traced), "--operation", "execute_tool").stdout.splitlines()
    assert len(only_tools) == 1 and "tool 'tool__shout'" in only_tools[0]
    by_label = json.loads(project("trace", "show", str(traced), "--label", "sa", "--json").stdout)
    assert [e["label"] for e in by_label] == ["say"]
    summary = json.loads(project("trace", "show", str(traced), "--summary", "--json").stdout)
    assert [(r["label"], r["chat"], r["execute_tool"]) for r in summary] == [
        ("look", 2, 0),
        ("tool 'tool__shout'", 0, 1),
        ("say", 1, 0),
        ("total", 3, 1),
    ]
    assert summary[-1]["input_tokens"] == 12 and summary[-1]["output_tokens"] == 6
    table = project("trace", "show", str(traced), "--summary")
    assert table.returncode == 0
    for word in ("label", "model calls", "tool calls", "duration", "input tokens", "cost", "look", "total"):
        assert word in table.stdout


def test_a_bad_line_is_an_error_with_its_number(project: Lait, traced: Path) -> None:
    traced.write_text(traced.read_text() + "\n\n{oops\n")
    bad = project("trace", "show", str(traced))
    assert bad.returncode == 1
    assert bad.stderr.startswith(f"lait: {traced}:7: not a JSON object")
    missing = project("trace", "show", "nope.jsonl")
    assert missing.returncode == 1 and "no such file" in missing.stderr


class _Receiver:
    def __init__(self) -> None:
        self.bodies: list[tuple[str, bytes]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                owner.bodies.append((self.headers.get("Content-Type", ""), self.rfile.read(length)))
                status = 500 if self.path == "/fail" else 200
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def receiver() -> Iterator[_Receiver]:
    r = _Receiver()
    yield r
    r.server.shutdown()
    r.server.server_close()


def test_export_json_parses_strictly_and_reexport_keeps_the_ids(
    project: Lait, traced: Path, receiver: _Receiver
) -> None:
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    from lait_core.engine.records.otlp import _proto_ids

    first = project(
        "trace", "export", str(traced), "--otlp", receiver.url + "/v1/traces", "--service-name", "svc"
    )
    assert first.returncode == 0, first.stderr
    assert first.stderr == f"exported 7 spans to '{receiver.url}/v1/traces'\n"
    again = project(
        "trace", "export", str(traced), "--otlp", receiver.url + "/v1/traces", "--service-name", "svc"
    )
    assert again.returncode == 0
    (ctype, body), (_, body2) = receiver.bodies
    assert ctype == "application/json"
    assert body == body2
    request = json.loads(body)
    message = ExportTraceServiceRequest()
    json_format.ParseDict(_proto_ids(request), message, ignore_unknown_fields=False)
    spans = message.resource_spans[0].scope_spans[0].spans
    assert message.resource_spans[0].resource.attributes[0].value.string_value == "svc"
    assert {len(s.trace_id) for s in spans} == {16} and len({s.trace_id for s in spans}) == 1
    by_name = {s.name: s for s in spans}
    root = by_name["lait run"]
    assert by_name["look"].parent_span_id == root.span_id
    assert by_name["chat look"].parent_span_id == by_name["look"].span_id
    assert by_name["execute_tool tool 'tool__shout'"].parent_span_id == by_name["look"].span_id
    attrs = {a.key: a.value for a in by_name["chat say"].attributes}
    assert attrs["gen_ai.request.model"].string_value == "test-model"
    assert attrs["gen_ai.usage.input_tokens"].int_value == 4
    assert attrs["gen_ai.operation.name"].string_value == "chat"
    assert attrs["lait.seq"].int_value == 3


def test_export_protobuf_and_errors(project: Lait, traced: Path, receiver: _Receiver) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    ok = project(
        "trace",
        "export",
        str(traced),
        "--otlp",
        receiver.url + "/v1/traces",
        "--encoding",
        "protobuf",
        "--header",
        "X-Token=${LAIT_TEST_CANARY}",
    )
    assert ok.returncode == 0, ok.stderr
    ctype, body = receiver.bodies[0]
    assert ctype == "application/x-protobuf"
    message = ExportTraceServiceRequest()
    message.ParseFromString(body)
    assert len(message.resource_spans[0].scope_spans[0].spans) == 7
    failed = project("trace", "export", str(traced), "--otlp", receiver.url + "/fail")
    assert failed.returncode == 1 and "HTTP 500" in failed.stderr
    unset = project("trace", "export", str(traced), "--otlp", receiver.url, "--header", "A=${NOPE_NOT_SET}")
    assert unset.returncode == 1 and "NOPE_NOT_SET" in unset.stderr
