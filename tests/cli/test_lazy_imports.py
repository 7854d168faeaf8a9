"""`lait --version` and `lait lint` stay light: they never import the language server, MCP or HTTP
stacks (each costs start-up time, and `lait lint` runs in every pre-commit)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lait_cli.command_table import COMMANDS
from tests.cli.conftest import EXAMPLES
from tests.peers.openai_server import ScriptedOpenAIServer, text

HEAVY = ("mcp", "pygls", "lsprotocol", "httpx", "httpx2", "anyio", "starlette", "llama_cpp", "keyring")

SNIPPET = f"""
import json, sys
from lait_cli.main import main
args = json.loads(sys.argv[1])
code = None
try:
    main(args)
except SystemExit as exc:
    code = exc.code
heavy = {HEAVY!r}
loaded = sorted({{name.split(".")[0] for name in sys.modules}} & set(heavy))
result = {{"code": code, "loaded": loaded, "modules": sorted(sys.modules)}}
sys.stderr.write("LAIT-TEST-RESULT " + json.dumps(result) + "\\n")
"""


def _imports_of(
    args: list[str], cwd: Path, env: dict[str, str], prelude: str = ""
) -> tuple[object, list[str]]:
    code, loaded, _ = _run(args, cwd, env, prelude)
    return code, loaded


def _run(
    args: list[str], cwd: Path, env: dict[str, str], prelude: str = ""
) -> tuple[object, list[str], set[str]]:
    """(exit code, the HEAVY packages imported, every module imported) of ``main(args)``."""
    done = subprocess.run(
        [sys.executable, "-c", prelude + SNIPPET, json.dumps(args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("LAIT-TEST-RESULT ")]
    assert len(lines) == 1, done.stderr
    result = json.loads(lines[0].removeprefix("LAIT-TEST-RESULT "))
    return result["code"], result["loaded"], set(result["modules"])


def test_heavy_modules_are_importable_here() -> None:
    """The check below means something only if these modules exist in this environment."""
    import importlib.util

    present = [name for name in HEAVY if importlib.util.find_spec(name) is not None]
    assert {"mcp", "pygls", "lsprotocol", "httpx", "anyio"} <= set(present)


def test_the_probe_sees_an_imported_module(tmp_path: Path, lait_env: dict[str, str]) -> None:
    code, loaded = _imports_of(["--version"], tmp_path, lait_env, prelude="import anyio\n")
    assert code == 0
    assert loaded == ["anyio"]


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["lint", "examples/workflows/release.yml"],
        ["lint", "examples/agents/reviewer.md"],
        ["lint", "examples"],
        ["lint", "--format", "sarif", "examples"],
        ["lint", "--format", "github", "--strict", "examples/workflows/triage.yml"],
        ["lint", "broken.yml"],
    ],
    ids=["version", "workflow", "agent", "project", "sarif", "github", "broken"],
)
def test_version_and_lint_do_not_import_heavy_modules(
    args: list[str], tmp_path: Path, lait_env: dict[str, str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(EXAMPLES, work / "examples")
    (work / "broken.yml").write_text("name: [\nsteps: {}\n", encoding="utf-8")
    code, loaded = _imports_of(args, work, lait_env)
    assert code in (None, 0, 3)
    assert loaded == []


LINT_NEVER = ("lait_cli.commands.single_shot", "lait_cli.support.terminal", "multiprocessing")
"""A small lint needs neither the chat command nor a pool of lint workers."""


@pytest.mark.parametrize("args", [["lint", "examples/workflows/release.yml"], ["lint", "examples"]])
def test_a_small_lint_imports_no_chat_and_starts_no_pool(
    args: list[str], tmp_path: Path, lait_env: dict[str, str]
) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    code, _, modules = _run(args, tmp_path, lait_env)
    assert code in (None, 0)
    assert [name for name in modules if name.startswith(LINT_NEVER)] == []


# -- lazy command registration (lait_cli.lazy_group) ------------------------------------------------------
COMMAND_MODULES = {entry.module for entry in COMMANDS.values()}


@pytest.mark.parametrize(
    ("args", "own"),
    [
        (["--version"], set()),
        (["--help"], set()),
        (["lint", "examples/workflows/release.yml"], {"lait_cli.commands.lint"}),
        (["schema", "config"], {"lait_cli.commands.schema"}),
        (["run", "--help"], {"lait_cli.commands.run"}),
        (["lint", "examples", "--no-env"], {"lait_cli.commands.lint"}),
    ],
    ids=["version", "help", "lint", "schema", "run-help", "global-after"],
)
def test_a_command_imports_only_its_own_module(
    args: list[str], own: set[str], tmp_path: Path, lait_env: dict[str, str]
) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    code, _, modules = _run(args, tmp_path, lait_env)
    assert code in (None, 0)
    assert modules & COMMAND_MODULES == own


CHAT_NEVER = ("rich", "prompt_toolkit", "pygments", "mcp", "pygls", "trio", "click", "keyring", "lait_ls")
"""Packages a single-shot chat with no tools never needs (typer ships its own click)."""
CHAT_NEVER_LAIT = (
    "lait_core.lint",
    "lait_core.language",
    "lait_core.engine.mcp",
    "lait_core.engine.workflow",
)
"""lait's own packages a single-shot chat with no tools never needs."""


def test_a_chat_imports_no_command_module_and_no_terminal_ui(
    tmp_path: Path, lait_env: dict[str, str]
) -> None:
    with ScriptedOpenAIServer() as server:
        server.push(text("hello"))
        args = ["--no-config", "--base-url", server.url, "--model", "m", "hi"]
        code, _, modules = _run(args, tmp_path, lait_env)
        assert len(server.bodies) == 1
    assert code in (None, 0)
    assert modules & COMMAND_MODULES == set()
    assert {name.split(".")[0] for name in modules} & set(CHAT_NEVER) == set()
    assert [name for name in modules if name.startswith(CHAT_NEVER_LAIT)] == []


SEND_AHEAD = (
    "import json, sys\n"
    "from lait_cli.support.send_ahead import send_ahead_if_chat\n"
    "sent = send_ahead_if_chat(json.loads(sys.argv[1]))\n"
    "print(json.dumps({'sent': sent, 'modules': sorted(sys.modules)}))\n"
)


def _send_ahead_modules(args: list[str], cwd: Path, env: dict[str, str]) -> set[str]:
    """The modules imported by the send-ahead path for ``args`` (which it must send ahead)."""
    done = subprocess.run(
        [sys.executable, "-c", SEND_AHEAD, json.dumps(args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["sent"] is True
    return set(result["modules"])


def test_the_send_ahead_path_imports_no_framework(tmp_path: Path, lait_env: dict[str, str]) -> None:
    """What runs before a chat's first request leaves (lait_cli.support.send_ahead) is the standard library and
    lait's plain modules: no typer/click, pydantic, asyncio, httpx or YAML reader (the request leaves
    within 250 ms of process start)."""
    env = {k: v for k, v in lait_env.items() if not k.startswith(("OPENAI_", "LLM_"))}
    with ScriptedOpenAIServer() as server:
        args = ["--no-config", "--base-url", server.url, "--model", "m", "hi"]
        modules = _send_ahead_modules(args, tmp_path, env)
        assert len(server.wait_for_requests(1)) == 1  # the process exited without reading the answer
    roots = {name.split(".")[0] for name in modules}
    assert not roots & {"typer", "click", "pydantic", "pydantic_core", "asyncio", "httpx", "httpcore", "h11"}
    assert not roots & {"ruamel", "tree_sitter", "tree_sitter_yaml", "rich", "prompt_toolkit", *HEAVY}
    assert not {"lait_core.documents.document_models", "lait_core.documents.config_file"} & modules
    assert not [m for m in modules if m.startswith("lait_cli.") and m not in SEND_AHEAD_MODULES]


def test_the_send_ahead_path_reads_a_config_without_pydantic(
    tmp_path: Path, lait_env: dict[str, str]
) -> None:
    """With the example project's config, the send-ahead path reads the config with lait's YAML
    subset reader (lait_core.engine.llm.ahead_config), never the config models or the full YAML
    reader: no typer/click, pydantic, asyncio, httpx or tree-sitter before the request leaves."""
    env = {k: v for k, v in lait_env.items() if not k.startswith(("OPENAI_", "LLM_"))}
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    with ScriptedOpenAIServer() as server:
        args = ["--base-url", server.url, "--model", "m", "hi"]
        modules = _send_ahead_modules(args, tmp_path / "examples", env)
        assert len(server.wait_for_requests(1)) == 1  # the process exited without reading the answer
    roots = {name.split(".")[0] for name in modules}
    assert not roots & {"typer", "click", "pydantic", "pydantic_core", "asyncio", "httpx", "httpcore", "h11"}
    assert not roots & {"ruamel", "tree_sitter", "tree_sitter_yaml", "rich", "prompt_toolkit", *HEAVY}
    assert "lait_core.engine.llm.ahead_config" in modules
    assert "lait_core.syntax.yaml.parse" not in modules  # the example config is plain YAML
    assert not {"lait_core.documents.document_models", "lait_core.documents.config_file"} & modules
    assert not [m for m in modules if m.startswith("lait_cli.") and m not in SEND_AHEAD_MODULES]


SEND_AHEAD_MODULES = {
    "lait_cli.support",  # the package of the helpers below (its docstring only)
    "lait_cli.support.send_ahead",
    "lait_cli.dispatch",
    "lait_cli.command_table",
    "lait_cli.support.environment",
    "lait_cli.support.stdin_input",
}
