"""`lait trace export` to a real OTLP receiver, Arize Phoenix (issue 13 item 4): a workflow run's
trace (prompt steps, a tool call) exported as protobuf is read back through Phoenix's REST API with
its parent/child structure, span kinds and model names; exporting it again adds nothing.

Phoenix lives in a venv of its own (`.ci/install-phoenix`: PyPI `arize-phoenix`, pinned there); it
listens on 127.0.0.1 only (its gRPC receiver binds every interface, on a free port we pick), keeps
its state in the test's folder and sends no telemetry. Missing: skipped locally, failed in CI."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lait_core.engine.records.otlp import trace_id_of
from tests.cli.conftest import Lait
from tests.processes import running_with_marker
from tests.records.test_trace import traced  # noqa: F401  (the fixture: a traced workflow run)

PHOENIX_VERSION = "20.26.1"
"""Keep equal to .ci/install-phoenix."""
VENV = Path(
    os.environ.get("LAIT_PHOENIX_VENV") or Path.home() / ".cache" / "lait" / f"phoenix-{PHOENIX_VERSION}"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except OSError:
        return 0, b""


class Phoenix:
    def __init__(self, url: str, process: subprocess.Popen[bytes], marker: str) -> None:
        self.url = url
        self.process = process
        self.marker = marker

    def spans(self, trace_id: str) -> list[dict[str, Any]]:
        status, body = _get(f"{self.url}/v1/projects/default/spans?trace_id={trace_id}&limit=100")
        assert status == 200, body[:500]
        data = json.loads(body)["data"]
        assert isinstance(data, list)
        return data

    def wait_for_spans(self, trace_id: str, count: int, timeout: float = 60) -> list[dict[str, Any]]:
        """Ingestion is asynchronous: poll until ``count`` spans of the trace are there."""
        deadline = time.monotonic() + timeout
        while True:
            spans = self.spans(trace_id)
            if len(spans) >= count or time.monotonic() > deadline:
                return spans
            time.sleep(0.1)


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    program = VENV / "bin" / "phoenix"
    if not program.is_file():
        problem = f"Arize Phoenix is not installed in {VENV} (bash .ci/install-phoenix)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{problem} (CI=true: a missing peer fails instead of skipping)", pytrace=False)
        pytest.skip(problem)
    work = tmp_path_factory.mktemp("phoenix")
    (work / "home").mkdir()
    port, grpc_port = _free_port(), _free_port()
    marker = uuid.uuid4().hex
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work / "home"),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_WORKING_DIR": str(work),
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
        "PHOENIX_ENABLE_AUTH": "false",
        "LAIT_TEST_MARKER": marker,
    }
    log = (work / "phoenix.log").open("wb")
    process = subprocess.Popen(
        [str(program), "serve"],
        env=env,
        cwd=work,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180  # 7-9 s on an idle machine, much more under load
        while _get(url + "/healthz")[0] != 200:
            assert process.poll() is None, (work / "phoenix.log").read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, "Phoenix did not become ready"
            time.sleep(0.25)
        yield Phoenix(url, process, marker)
    finally:
        with_group = process.poll() is None
        if with_group:
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if with_group:
            with contextlib.suppress(ProcessLookupError):  # anything left in its group
                os.killpg(process.pid, signal.SIGKILL)
        log.close()
        assert running_with_marker(marker) == []


def _export(project: Lait, trace: Path, phoenix: Phoenix) -> None:
    done = project(
        "trace", "export", str(trace), "--otlp", phoenix.url + "/v1/traces", "--encoding", "protobuf"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("exported ")


def test_phoenix_shows_the_runs_spans_and_a_reexport_adds_nothing(
    project: Lait,
    traced: Path,  # noqa: F811
    phoenix: Phoenix,
) -> None:
    events = [json.loads(line) for line in traced.read_text().splitlines()]
    trace_id = trace_id_of(events)
    _export(project, traced, phoenix)
    spans = phoenix.wait_for_spans(trace_id, 7)
    # root -> one span per step label -> the step's events (2 chat + 1 tool call in 'look', 1 chat in 'say')
    assert len(spans) == 7, [s["name"] for s in spans]
    by_id = {s["context"]["span_id"]: s for s in spans}
    assert {s["context"]["trace_id"] for s in spans} == {trace_id}
    roots = [s for s in spans if not s["parent_id"]]
    assert len(roots) == 1
    groups = {s["name"]: s for s in spans if s["parent_id"] == roots[0]["context"]["span_id"]}
    assert set(groups) == {"look", "say"}
    children = {
        name: sorted(s["name"] for s in spans if s["parent_id"] == group["context"]["span_id"])
        for name, group in groups.items()
    }
    assert children == {
        "look": ["chat look", "chat look", "execute_tool tool 'tool__shout'"],
        "say": ["chat say"],
    }
    assert all(s["parent_id"] is None or s["parent_id"] in by_id for s in spans)
    chats = [s for s in spans if s["name"].startswith("chat ")]
    assert {s["span_kind"] for s in chats} == {"LLM"}
    assert {s["attributes"]["llm.model_name"] for s in chats} == {"test-model"}
    assert {s["attributes"]["llm.token_count.prompt"] for s in chats} == {4}
    (tool,) = [s for s in spans if s["name"].startswith("execute_tool")]
    assert tool["span_kind"] == "TOOL" and tool["attributes"]["tool.name"] == "tool__shout"

    # The same file again: the same ids, nothing new. A different trace exported after it is the
    # sign that Phoenix has ingested the re-export (it ingests in order).
    _export(project, traced, phoenix)
    other = traced.with_name("other.jsonl")
    other.write_text(json.dumps({**events[-1], "seq": 0, "label": "other"}) + "\n")
    other_id = trace_id_of([json.loads(other.read_text())])
    _export(project, other, phoenix)
    assert len(phoenix.wait_for_spans(other_id, 3)) == 3
    again = phoenix.spans(trace_id)
    assert sorted(s["context"]["span_id"] for s in again) == sorted(by_id)
