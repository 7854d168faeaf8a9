"""`lait doctor` (docs/cli.md, docs/mcp.md; issue 17 item 5) as a real subprocess: a project
with one broken item of each kind reports each as NG with a fix and exits 1, without hanging on a
server that never answers and leaving no process behind; a healthy project against the scripted
server is all OK; the bundled examples report no NG when the embedded model is installed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import EXAMPLES, Lait
from tests.peers.openai_server import ScriptedOpenAIServer
from tests.processes import running_with_marker, wait_for_marked


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(models=["good-model", "other-model"]) as s:
        yield s


@pytest.fixture
def keyed() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(api_key="right-key") as s:
        yield s


@pytest.fixture
def silent() -> Iterator[str]:
    """A loopback address that accepts connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


@pytest.fixture
def clean(lait: Lait) -> Lait:
    for key in list(lait.env):
        if key.startswith(("OPENAI_", "LLM_")):
            del lait.env[key]
    lait.env.pop("LAIT_DOCTOR_UNSET", None)
    return lait


def _checks(stdout: str) -> dict[tuple[str, str], dict[str, Any]]:
    payload = json.loads(stdout)
    assert set(payload["summary"]) == {"OK", "WARN", "NG"}
    return {(c["area"], c["subject"]): c for c in payload["checks"]}


def test_one_broken_item_of_each_kind(
    clean: Lait, server: ScriptedOpenAIServer, keyed: ScriptedOpenAIServer, silent: str
) -> None:
    marker = uuid.uuid4().hex
    global_config = Path(clean.env["XDG_CONFIG_HOME"]) / "lait" / "config.yml"
    global_config.parent.mkdir(parents=True)
    global_config.write_text("default:\n  modle: x\n", encoding="utf-8")
    clean.write(
        "lait.config.yml",
        f"""\
default:
  model: good
models:
  good:
    - provider: {{base_url: "{server.url}"}}
      model_id: good-model
  wrongid:
    - provider: {{base_url: "{server.url}"}}
      model_id: no-such-model
  badkey:
    - provider: {{base_url: "{keyed.url}", api_key: wrong-key}}
      model_id: m
  stuck:
    - provider: {{base_url: "{silent}"}}
      model_id: m
  pair:
    - provider: {{base_url: "{server.url}", api_key: a, api_key_cmd: "echo b"}}
      model_id: m
  ownfile:
    - provider: {{gguf: models/missing.gguf}}
      model_id: m
mcp_servers:
  missing:
    command: no-such-program-for-lait-doctor
  hangs:
    command: python3
    args: [-c, "import time; time.sleep(120)"]
    env: {{LAIT_TEST_MARKER: "{marker}"}}
tools:
  nothere:
    command: [no-such-program-for-lait-doctor]
    description: a program that is not installed
  withvar:
    command: [echo, hi]
    description: needs a variable
    env: {{X: "${{LAIT_DOCTOR_UNSET}}"}}
agents:
  gone: agents/gone.md
skills:
  empty: skills/empty
workflows:
  broken: broken.yml
""",
    )
    (clean.cwd / "skills" / "empty").mkdir(parents=True)
    clean.write("broken.yml", "steps: [\n")
    run = clean("doctor", "--json", "--timeout", "2", "--mcp-timeout", "5", timeout=120)
    assert run.returncode == 1, run.stderr
    checks = _checks(run.stdout)
    broken = [
        ("config", str(global_config)),
        ("env", "tools.withvar.env.X"),
        ("model", "models.pair"),
        ("provider", keyed.url),
        ("provider", silent),
        ("model-id", "wrongid: no-such-model"),
        ("embedded", "models.ownfile[0]"),
        ("mcp", "mcp_servers.missing"),
        ("mcp", "mcp_servers.hangs"),
        ("agents", "agents.gone"),
        ("skills", "skills.empty"),
        ("workflows", "workflows.broken"),
        ("tools", "tools.nothere"),
    ]
    for key in broken:
        assert key in checks, (key, sorted(checks))
        assert checks[key]["status"] == "NG", checks[key]
        assert checks[key]["fix"], checks[key]
    assert "LAIT_DOCTOR_UNSET" in checks["env", "tools.withvar.env.X"]["fix"]
    assert "refused" in checks["provider", keyed.url]["message"]
    assert "within 2s" in checks["provider", silent]["message"]
    assert "good-model" in checks["model-id", "wrongid: no-such-model"]["message"]
    assert "within 5s" in checks["mcp", "mcp_servers.hangs"]["message"]
    assert checks["config", str(clean.cwd / "lait.config.yml")]["status"] == "OK"
    assert checks["model-id", "good: good-model"]["status"] == "OK"
    assert checks["provider", server.url]["status"] == "OK"
    assert checks["tools", "tools.withvar"]["status"] == "OK"
    ng = sum(1 for c in checks.values() if c["status"] == "NG")
    assert json.loads(run.stdout)["summary"]["NG"] == ng
    assert running_with_marker(marker) == []
    assert keyed.all_requests and keyed.all_requests[0].headers["authorization"] == "Bearer wrong-key"

    text = clean("doctor", "--timeout", "2", "--mcp-timeout", "5", timeout=120)
    assert text.returncode == 1
    lines = text.stdout.splitlines()
    ng_lines = [i for i, line in enumerate(lines) if line.startswith("NG ")]
    assert len(ng_lines) == ng
    assert all(lines[i + 1].strip().startswith("fix: ") for i in ng_lines)
    assert text.stderr.startswith(f"lait: doctor: {ng} NG, ")
    assert running_with_marker(marker) == []


def test_a_healthy_project_is_all_ok(clean: Lait, server: ScriptedOpenAIServer) -> None:
    clean.write(
        "lait.config.yml",
        f"""\
default:
  model: good
models:
  good:
    - provider: {{base_url: "{server.url}", api_key: "${{GOOD_KEY}}"}}
      model_id: good-model
mcp_servers:
  notes:
    command: python3
    args: [{json.dumps(str(EXAMPLES / "servers" / "notes_server.py"))}]
tools:
  grep:
    command: [grep, -rn, "{{{{ input.pattern }}}}", .]
    description: search
    parameters: {{type: object, properties: {{pattern: {{type: string}}}}, required: [pattern]}}
agents:
  a: a.md
""",
    )
    clean.write("a.md", "---\ndescription: an agent\n---\nHelp.\n")
    clean.env["GOOD_KEY"] = "secret"
    run = clean("doctor", "--json", "--mcp-timeout", "120", timeout=200)
    checks = _checks(run.stdout)
    problems = {k: c for k, c in checks.items() if c["status"] == "NG"}
    assert problems == {}
    assert run.returncode == 0, run.stderr
    for key in [
        ("env", "${VAR}"),
        ("provider", server.url),
        ("model-id", "good: good-model"),
        ("mcp", "mcp_servers.notes"),
        ("tools", "tools.grep"),
        ("agents", "agents.a"),
    ]:
        assert checks[key]["status"] == "OK", checks.get(key)
    assert "2 tool(s)" in checks["mcp", "mcp_servers.notes"]["message"]
    assert server.all_requests[0].headers["authorization"] == "Bearer secret"
    local = [c for (area, _), c in checks.items() if area == "local-server"]
    assert len(local) == 1 and local[0]["status"] in ("OK", "WARN")
    assert "secret" not in run.stdout


def test_no_config_is_a_warning_with_a_fix(clean: Lait) -> None:
    run = clean("doctor", "--json", timeout=120)
    checks = _checks(run.stdout)
    assert checks["config", "lait.config.yml"]["status"] == "WARN"
    assert "lait init" in checks["config", "lait.config.yml"]["fix"]
    assert checks["model", "default.model"]["status"] == "WARN"
    assert run.returncode == 0


def test_examples_report_no_ng_with_the_embedded_model(clean: Lait) -> None:
    from tests.llm.conftest import require_peer

    require_peer()
    if shutil.which("npx") is None:
        pytest.skip("npx is needed for the example's 'everything' MCP server")
    project = clean.cwd / "examples"
    shutil.copytree(EXAMPLES, project)
    run = clean("doctor", "--json", "--mcp-timeout", "180", cwd=project, timeout=400)
    checks = _checks(run.stdout)
    assert {k: c for k, c in checks.items() if c["status"] == "NG"} == {}
    assert run.returncode == 0
    assert checks["embedded", "embedded"]["status"] == "OK"
    assert checks["embedded", "llama-cpp-python"]["status"] == "OK"


def test_ctrl_c_while_servers_start_exits_130_and_reaps_them(clean: Lait, silent: str) -> None:
    """Ctrl-C while an HTTP probe is in flight and two MCP servers are in their handshake: every
    check is cancelled and closed before the loop ends (no hang, no 'Future exception was never
    retrieved' traceback) and both server processes are gone."""
    marker = uuid.uuid4().hex
    server = f'{{command: python3, args: [-c, "import time; time.sleep(120)"], env: {{LAIT_TEST_MARKER: "{marker}"}}}}'
    clean.write(
        "lait.config.yml",
        f"""\
default: {{model: stuck}}
models:
  stuck:
    - provider: {{base_url: "{silent}"}}
      model_id: m
mcp_servers:
  one: {server}
  two: {server}
""",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "doctor", "--timeout", "60", "--mcp-timeout", "60"],
        cwd=clean.cwd,
        env=clean.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert len(wait_for_marked(marker, 2, timeout=60)) == 2
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        left = running_with_marker(marker)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in running_with_marker(marker):
            os.kill(pid, signal.SIGKILL)
    text = err.decode()
    assert proc.returncode == 130, text
    assert "Traceback" not in text and "never retrieved" not in text, text
    assert text.splitlines()[-1] == "lait: interrupted"
    assert out == b""
    assert left == []
