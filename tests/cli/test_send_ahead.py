"""The send-ahead path (lait_cli.support.send_ahead, lait_core.engine.llm.ahead): a chat's first request leaves at
start-up, and the run is the same as without it.

Each chat runs through the console script's entry (``python -m lait_cli``) against the scripted
server, once as is and once with ``LAIT_SEND_AHEAD=0``. The server tells the two apart by the
connection header: the request sent ahead asks ``Connection: close``, httpx asks ``keep-alive``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lait_cli.command_table import COMMANDS
from lait_cli.dispatch import CHAT_OPTIONS, CHAT_VALUE_OPTIONS
from lait_cli.support.send_ahead import EMBEDDED_ALIAS, FLAGS, VALUE_OPTIONS, NotQuick, parse
from lait_core.engine.llm import ahead_config
from lait_core.engine.llm.chat_types import Sampling
from tests.cli.conftest import Run
from tests.peers.openai_server import Recorded, ScriptedOpenAIServer, error, text

SAME_HEADERS = ("authorization", "content-type", "accept", "user-agent")


def entry(args: list[str], cwd: Path, env: dict[str, str], stdin: bytes = b"") -> Run:
    done = subprocess.run(
        [sys.executable, "-m", "lait_cli", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        timeout=60,
    )
    run = Run(tuple(args), done.returncode, done.stdout.decode(), done.stderr.decode())
    assert "Traceback" not in run.stderr, run.stderr
    return run


@pytest.fixture
def env(lait_env: dict[str, str]) -> dict[str, str]:
    return {
        k: v for k, v in lait_env.items() if not k.startswith(("OPENAI_", "LLM_", "HTTP_PROXY", "http_proxy"))
    }


def one_request(server: ScriptedOpenAIServer, before: int) -> Recorded:
    requests = server.requests[before:]
    assert len(requests) == 1, [r.body for r in requests]
    return requests[0]


CASES: list[tuple[str, list[str], dict[str, str], bytes, dict[str, Any]]] = [
    ("plain", ["--model", "m", "hi"], {}, b"", text("ok")),
    (
        "sampling, system, -vv",
        [
            "-vv",
            "--model",
            "m",
            "--system",
            "be brief",
            "--temperature",
            "0.5",
            "--top-p=1",
            "--max-tokens",
            "7",
            "--reasoning-effort",
            "low",
            "hi",
        ],
        {},
        b"",
        text("ok"),
    ),
    (
        "environment and piped stdin",
        ["summarise"],
        {
            "LLM_MODEL": "m",
            "LLM_TEMPERATURE": "1",
            "OPENAI_API_KEY": "sk-ahead-canary",
            "LLM_MAX_TOKENS": "9",
        },
        b"some text\n",
        text("ok"),
    ),
    (
        "stream with usage",
        ["--model", "m", "--stream", "--show-usage", "hi"],
        {},
        b"",
        text("streamed answer", usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}),
    ),
    ("dash", ["--model", "m", "-"], {}, b"from stdin", text("ok")),
    (
        "after --, empty system, quiet",
        ["--model", "m", "--system", "", "--quiet", "--", "lint"],
        {},
        b"",
        text("ok"),
    ),
    ("an error answer", ["--model", "m", "hi"], {}, b"", error(400, "no such model")),
]


@pytest.mark.parametrize(("name", "args", "extra", "stdin", "item"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("config", ["--no-config", "no config file"])
def test_a_chat_sends_its_first_request_ahead_and_runs_as_without(
    name: str,
    args: list[str],
    extra: dict[str, str],
    stdin: bytes,
    item: dict[str, Any],
    config: str,
    tmp_path: Path,
    env: dict[str, str],
    server: ScriptedOpenAIServer,
) -> None:
    if config == "no config file" and name not in ("plain", "environment and piped stdin"):
        pytest.skip("the config search is the same for every argv: two cases are enough")
    argv = (["--no-config"] if config == "--no-config" else []) + ["--base-url", server.url + "/", *args]
    runs: dict[str, tuple[Run, Recorded]] = {}
    for mode, switch in (("ahead", {}), ("normal", {"LAIT_SEND_AHEAD": "0"})):
        before = len(server.requests)
        server.push(item)
        run = entry(argv, tmp_path, {**env, **extra, **switch}, stdin)
        runs[mode] = (run, one_request(server, before))
    (ahead_run, ahead), (normal_run, normal) = runs["ahead"], runs["normal"]
    assert ahead.headers.get("connection") == "close"  # the request that was sent ahead...
    assert normal.headers.get("connection") == "keep-alive"
    assert ahead.body == normal.body  # ...is the request the engine builds
    assert ahead.path == normal.path == "/v1/chat/completions"
    assert {h: ahead.headers.get(h) for h in SAME_HEADERS} == {h: normal.headers.get(h) for h in SAME_HEADERS}
    assert (ahead_run.returncode, ahead_run.stdout, ahead_run.stderr) == (
        normal_run.returncode,
        normal_run.stdout,
        normal_run.stderr,
    )
    assert "sk-ahead-canary" not in ahead_run.stdout + ahead_run.stderr


NOT_AHEAD: list[tuple[str, list[str]]] = [
    ("--json", ["--no-config", "--model", "m", "--json", "hi"]),
    ("--cache", ["--no-config", "--model", "m", "--cache", "hi"]),
    ("--file", ["--no-config", "--model", "m", "--file", "notes.txt", "hi"]),
    ("--config", ["--config", "lait.config.yml", "--model", "m", "hi"]),
]


@pytest.mark.parametrize(("name", "args"), NOT_AHEAD, ids=[c[0] for c in NOT_AHEAD])
def test_nothing_is_sent_ahead_outside_what_argv_and_the_environment_decide(
    name: str, args: list[str], tmp_path: Path, env: dict[str, str], server: ScriptedOpenAIServer
) -> None:
    (tmp_path / "notes.txt").write_text("notes", encoding="utf-8")
    if name == "--config":
        (tmp_path / "lait.config.yml").write_text("default:\n  system: from the config\n", encoding="utf-8")
    server.push(text("ok"))
    run = entry(["--base-url", server.url, *args], tmp_path, env)
    assert run.returncode == 0, run.stderr
    assert one_request(server, 0).headers.get("connection") == "keep-alive"


@pytest.mark.parametrize(
    "args",
    [
        ["--no-config", "--model", "m", "--temperature", "5", "hi"],
        ["--no-config", "--model", "m", "--bogus", "hi"],
        ["--no-config", "--model", "m", "--max-tokens", "\u0663", "hi"],  # an Arabic-Indic 3: int() takes it
        ["--no-config", "--model", "m", "two", "words"],
    ],
)
def test_a_usage_error_sends_nothing(
    args: list[str], tmp_path: Path, env: dict[str, str], server: ScriptedOpenAIServer
) -> None:
    run = entry(["--base-url", server.url, *args], tmp_path, env)
    assert run.returncode == 2, run.stderr
    assert server.requests == []


def test_a_base_url_httpx_would_encode_is_left_to_httpx(
    tmp_path: Path, env: dict[str, str], server: ScriptedOpenAIServer
) -> None:
    server.push(text("ok"))
    run = entry(["--no-config", "--base-url", server.url + " ", "--model", "m", "hi"], tmp_path, env)
    assert (run.returncode, run.stdout) == (0, "ok\n"), run.stderr
    assert one_request(server, 0).headers["connection"] == "keep-alive"


def test_a_subcommand_name_is_never_a_prompt_sent_ahead(
    tmp_path: Path, env: dict[str, str], server: ScriptedOpenAIServer
) -> None:
    run = entry(["--no-config", "--base-url", server.url, "--model", "m", "models"], tmp_path, env)
    assert run.returncode == 2  # a chat option before a subcommand (docs/cli.md)
    assert server.requests == []


# -- the option table ------------------------------------------------------------------------------
def test_the_table_matches_the_chat_commands_options() -> None:
    """Every option lait_cli.support.send_ahead reads is the chat command's, with the same environment variable
    and the same kind (value or flag): otherwise argv would be read differently there."""
    import typer.main

    from lait_cli.commands.single_shot import chat_app
    from lait_core.engine.embedded.locate import BUILTIN_ALIAS

    command = typer.main.get_command(chat_app({}))
    options = {opt: p for p in command.params for opt in p.opts}
    for option, (_, variable) in VALUE_OPTIONS.items():
        param = options[option]
        assert not getattr(param, "is_flag", False) and not getattr(param, "count", False), option
        assert param.envvar == variable, option
    for option in [*FLAGS, "-v"]:
        param = options[option]
        assert getattr(param, "is_flag", False) or getattr(param, "count", False), option
        assert param.envvar is None, option
    assert EMBEDDED_ALIAS == ahead_config.EMBEDDED_ALIAS == BUILTIN_ALIAS


def test_the_one_declaration_of_chat_options_is_the_chat_commands() -> None:
    """lait_cli.dispatch.CHAT_OPTIONS names every option of bare chat, each with the number of values
    and the environment variable the typer command gives it, and nothing else."""
    import typer.main

    from lait_cli.commands.single_shot import chat_app

    command = typer.main.get_command(chat_app({}))
    declared: dict[str, tuple[int, str | None]] = {}
    for param in command.params:
        if param.param_type_name != "option":
            continue
        flag = bool(getattr(param, "is_flag", False) or getattr(param, "count", False))
        envvar = param.envvar if isinstance(param.envvar, str) else None
        for option in (*param.opts, *param.secondary_opts):
            declared[option] = (0 if flag else 1, envvar)
    declared.pop("--help", None)
    assert {o: (spec.values, spec.envvar) for o, spec in CHAT_OPTIONS.items()} == declared
    assert {o for o, (n, _) in declared.items() if n} == CHAT_VALUE_OPTIONS


@pytest.mark.parametrize(
    "argv",
    [
        ["lint", "."],
        ["run"],
        ["lint", "--"],
        ["--model", "m"],  # no prompt: argv alone is fine (piped stdin decides later)
        ["--model"],
        ["--model", "--stream", "hi"],
        ["--stream=yes", "hi"],
        ["--tool", "x", "hi"],
        ["-p", "name", "hi"],
        ["a", "b"],
    ],
)
def test_parse_refuses_what_it_does_not_handle(argv: list[str]) -> None:
    if argv == ["--model", "m"]:
        assert parse(argv).prompt is None
        return
    with pytest.raises(NotQuick):
        parse(argv)


def test_parse_reads_values_flags_and_the_prompt() -> None:
    chat = parse(["-vv", "--model=a", "--model", "b", "--stream", "--", "--not-an-option"])
    assert chat.values == {"model": "b"}
    assert chat.flags == {"verbose", "stream"}
    assert chat.prompt == "--not-an-option"
    assert parse(["--", "lint"]).prompt == "lint"
    assert all(name not in FLAGS and name not in VALUE_OPTIONS for name in COMMANDS)


# -- with a config file: nothing sent ahead, nothing stored ------------------------------------------
def test_with_a_config_each_chat_goes_to_the_endpoint_the_config_names_now(
    tmp_path: Path, env: dict[str, str], server: ScriptedOpenAIServer
) -> None:
    """A chat with a config file is sent by the engine from the config it has just read: after the
    config moves to another server and back (same bytes, same size, same mtime), each prompt and the
    key reach only the server the config names at that moment, and no request is stored."""
    project = tmp_path / "project"
    project.mkdir()
    config = project / "lait.config.yml"
    cache = tmp_path / "_cache"
    env = {**env, "XDG_CACHE_HOME": str(cache), "OPENAI_API_KEY": "sk-config-canary"}
    with ScriptedOpenAIServer() as other:
        first_config = f"base_url: {server.url}\ndefault:\n  model: m\n"
        config.write_text(first_config, encoding="utf-8")
        stamp = config.stat()

        def chat(prompt: str, target: ScriptedOpenAIServer, elsewhere: ScriptedOpenAIServer) -> None:
            before, before_elsewhere = len(target.requests), len(elsewhere.requests)
            target.push(text(f"answer to {prompt}"))
            run = entry([prompt], project, env)
            assert (run.returncode, run.stdout) == (0, f"answer to {prompt}\n"), run.stderr
            sent = one_request(target, before)
            assert sent.headers["connection"] == "close"  # sent ahead, from the config as it is now
            assert sent.headers["authorization"] == "Bearer sk-config-canary"
            assert sent.body["messages"][-1] == {"role": "user", "content": prompt}
            assert len(elsewhere.requests) == before_elsewhere
            assert "sk-config-canary" not in run.stdout + run.stderr

        for number in range(2):
            chat(f"question {number}", server, other)
        config.write_text(f"base_url: {other.url}\ndefault:\n  model: m\n", encoding="utf-8")
        chat("to the other server", other, server)
        config.write_text(first_config, encoding="utf-8")
        os.utime(config, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
        assert (config.stat().st_size, config.stat().st_mtime_ns) == (stamp.st_size, stamp.st_mtime_ns)
        chat("back to the first", server, other)
    assert not (cache / "lait" / "ahead").exists()


def test_a_cache_folder_that_is_a_symlink_is_left_alone(
    tmp_path: Path, env: dict[str, str], server: ScriptedOpenAIServer
) -> None:
    """Nothing of lait's reads, writes or prunes $XDG_CACHE_HOME/lait/ahead: files in the folder it
    points to stay as they were, however many and however old."""
    target = tmp_path / "elsewhere"
    target.mkdir()
    for number in range(70):
        (target / f"note-{number}.json").write_text("{}", encoding="utf-8")
    (target / ".tmp-old").write_text("keep", encoding="utf-8")
    os.utime(target / ".tmp-old", (0, 0))
    before = sorted(path.name for path in target.iterdir())
    (tmp_path / "_cache" / "lait").mkdir(parents=True)
    (tmp_path / "_cache" / "lait" / "ahead").symlink_to(target, target_is_directory=True)
    (tmp_path / "lait.config.yml").write_text(
        f"base_url: {server.url}\ndefault:\n  model: m\n", encoding="utf-8"
    )
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "_cache")}
    for argv in (["hi"], ["--no-config", "--base-url", server.url, "--model", "m", "hi"]):
        server.push(text("ok"))
        run = entry(argv, tmp_path, env)
        assert (run.returncode, run.stdout) == (0, "ok\n"), run.stderr
    assert sorted(path.name for path in target.iterdir()) == before


def test_a_chat_with_tools_is_never_remembered(
    tmp_path: Path, env: dict[str, str], server: ScriptedOpenAIServer
) -> None:
    (tmp_path / "lait.config.yml").write_text(
        f"base_url: {server.url}\n"
        "default:\n  model: m\n  tools: [echo]\n"
        "tools:\n  echo:\n    description: Echo.\n    command: [echo, hi]\n",
        encoding="utf-8",
    )
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "_cache")}
    for number in range(2):
        server.push(text("ok"))
        run = entry(["hi"], tmp_path, env)
        assert run.returncode == 0, run.stderr
        assert one_request(server, number).headers["connection"] == "keep-alive"
    assert not (tmp_path / "_cache" / "lait" / "ahead").exists()


# -- with a config file: the first request computed from the config (lait_core.engine.llm.ahead_config)
@pytest.fixture
def other() -> Iterator[ScriptedOpenAIServer]:
    """A second server, where the config's losing layers point: it must see no request."""
    with ScriptedOpenAIServer() as second:
        yield second


def both_ways(
    argv: list[str], cwd: Path, env: dict[str, str], server: ScriptedOpenAIServer, item: dict[str, Any]
) -> dict[str, tuple[Run, list[Recorded]]]:
    """The chat run as is and with ``LAIT_SEND_AHEAD=0``: each run and the requests it made."""
    runs: dict[str, tuple[Run, list[Recorded]]] = {}
    for mode, switch in (("ahead", {}), ("normal", {"LAIT_SEND_AHEAD": "0"})):
        before = len(server.requests)
        server.push(item)
        run = entry(argv, cwd, {**env, **switch})
        runs[mode] = (run, server.requests[before:])
        server.clear()  # an item no request took (a rejected config) is not the next run's
    return runs


def same_run(runs: dict[str, tuple[Run, list[Recorded]]]) -> None:
    (ahead_run, _), (normal_run, _) = runs["ahead"], runs["normal"]
    assert (ahead_run.returncode, ahead_run.stdout, ahead_run.stderr) == (
        normal_run.returncode,
        normal_run.stdout,
        normal_run.stderr,
    )


CONFIG_CASES: list[tuple[str, str, str, list[str], str, dict[str, Any], dict[str, str]]] = [
    (
        "an alias: its endpoint and key from ./.env, its max tokens; default temperature and system",
        "",
        "base_url: {other}\napi_key: sk-top-level-canary\n"
        "models:\n"
        "  local:\n"
        "    - provider: {base_url: '${AHEAD_URL}', api_key: '${AHEAD_KEY}'}\n"
        "      model_id: qwen-test\n"
        "      default_max_tokens: 64\n"
        "default:\n  model: local\n  temperature: 0.25\n  system: You are terse.\n"
        "mcp_servers:\n  notes: {command: 'true'}\n"
        "tool_policy:\n  deny: ['*delete*']\n",
        ["hi"],
        "AHEAD_URL={url}/\nAHEAD_KEY=sk-dotenv-canary\n",
        {
            "model": "qwen-test",
            "temperature": 0.25,
            "max_completion_tokens": 64,
            "messages": [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "hi"}],
        },
        {"authorization": "Bearer sk-dotenv-canary"},
    ),
    (
        "the global file under the project's; options over both",
        "base_url: {url}\napi_key: sk-global-canary\ndefault:\n  system: from the global file\n  top_p: 0.5\n",
        "default:\n  model: raw-model\n  temperature: 1\n  reasoning_effort: low\n",
        ["--temperature", "0.75", "--max-tokens", "9", "--stream", "hi"],
        "",
        {
            "model": "raw-model",
            "temperature": 0.75,
            "top_p": 0.5,
            "max_completion_tokens": 9,
            "reasoning_effort": "low",
            "stream": True,
            "messages": [
                {"role": "system", "content": "from the global file"},
                {"role": "user", "content": "hi"},
            ],
        },
        {"authorization": "Bearer sk-global-canary"},
    ),
    (
        "YAML beyond the subset reader: an anchor, a folded system prompt",
        "",
        "base_url: {url}\ndefault:\n  model: &m raw-model\n  system: >\n    folded\n    text\n"
        "prompts:\n  p: {template: x, model: *m}\n",
        ["hi"],
        "",
        {
            "model": "raw-model",
            "messages": [{"role": "system", "content": "folded text\n"}, {"role": "user", "content": "hi"}],
        },
        {},
    ),
    (
        "--base-url, --api-key and an empty --system over the config's",
        "",
        "base_url: {other}\napi_key: sk-never-sent\n"
        "models:\n  local:\n    - provider: {base_url: '{other}'}\n      model_id: qwen-x\n"
        "      default_temperature: 0.5\n"
        "default:\n  model: local\n  system: not this one\n",
        ["--base-url", "{url}", "--api-key", "sk-option-canary", "--system", "", "hi"],
        "",
        {"model": "qwen-x", "temperature": 0.5, "messages": [{"role": "user", "content": "hi"}]},
        {"authorization": "Bearer sk-option-canary"},
    ),
]


@pytest.mark.parametrize(
    ("name", "global_config", "config", "args", "dotenv", "expected", "headers"),
    CONFIG_CASES,
    ids=[c[0].split(":")[0] for c in CONFIG_CASES],
)
def test_a_chat_with_a_config_sends_the_configs_request_ahead(
    name: str,
    global_config: str,
    config: str,
    args: list[str],
    dotenv: str,
    expected: dict[str, Any],
    headers: dict[str, str],
    tmp_path: Path,
    lait_env: dict[str, str],
    env: dict[str, str],
    server: ScriptedOpenAIServer,
    other: ScriptedOpenAIServer,
) -> None:
    """The request that arrives carries what the config says (the alias's model id, endpoint, key
    and defaults, ``default:``'s sampling and system prompt, ``${VAR}`` from ./.env); it is the
    request the engine builds, whose answer the engine uses; it and the key reach only the endpoint
    the config chooses (none goes where its losing layers point); nothing is stored."""
    project = tmp_path / "project"
    project.mkdir()
    url = server.url
    config = config.replace("{url}", url).replace("{other}", other.url)
    (project / "lait.config.yml").write_text(config, encoding="utf-8")
    if dotenv:
        (project / ".env").write_text(dotenv.format(url=url), encoding="utf-8")
    if global_config:
        folder = Path(lait_env["XDG_CONFIG_HOME"]) / "lait"
        folder.mkdir(parents=True)
        (folder / "config.yml").write_text(global_config.format(url=url), encoding="utf-8")
    cache = tmp_path / "_cache"
    env = {**env, "XDG_CACHE_HOME": str(cache)}
    argv = [arg.format(url=url) for arg in args]
    reply = text("ok") if "--stream" not in argv else text("streamed")
    runs = both_ways(argv, project, env, server, reply)
    same_run(runs)
    (run, [ahead]), (_, [normal]) = runs["ahead"], runs["normal"]
    assert run.returncode == 0, run.stderr
    assert ahead.headers.get("connection") == "close"  # sent ahead, and its answer used
    assert normal.headers.get("connection") == "keep-alive"
    assert ahead.body == normal.body
    assert {k: v for k, v in ahead.body.items() if k in expected} == expected
    assert {h: ahead.headers.get(h) for h in headers} == headers
    assert {h: ahead.headers.get(h) for h in SAME_HEADERS} == {h: normal.headers.get(h) for h in SAME_HEADERS}
    assert not cache.exists() or not any(cache.rglob("*"))
    assert "canary" not in run.stdout + run.stderr
    assert other.requests == []  # the key and the prompt went to the endpoint the config chose


NOT_UNDERSTOOD: list[tuple[str, str]] = [
    ("tools", "default:\n  model: m\n  tools: [echo]\ntools:\n  echo: {command: [echo, hi]}\n"),
    ("skills", "default:\n  model: m\n  skills: [notes]\nskills:\n  notes: skills/notes\n"),
    ("the response cache", "default:\n  model: m\n  cache: true\n"),
    (
        "fallback entries",
        "models:\n  m:\n    - {provider: {base_url: '{url}'}, model_id: a}\n"
        "    - {provider: {base_url: '{url}'}, model_id: b}\ndefault:\n  model: m\n",
    ),
    ("a key command", "api_key_cmd: [echo, sk-command]\ndefault:\n  model: m\n"),
    ("the embedded model", "default:\n  model: embedded\n"),
    ("an unset variable", "base_url: '${AHEAD_UNSET_VARIABLE}'\ndefault:\n  model: m\n"),
    ("an unknown key", "default:\n  model: m\nbogus: 1\n"),
    ("a key of another type", "default:\n  model: m\n  temperature: '0.5'\n"),
    ("a YAML error", "default:\n  model: [m\n"),
]


@pytest.mark.parametrize(("name", "config"), NOT_UNDERSTOOD, ids=[c[0] for c in NOT_UNDERSTOOD])
def test_a_config_send_ahead_does_not_read_fully_sends_nothing_ahead(
    name: str, config: str, tmp_path: Path, env: dict[str, str], server: ScriptedOpenAIServer
) -> None:
    """Anything of the config that could change the request beyond what the send-ahead path reads
    (or that the full path rejects for its YAML or types): the engine alone sends, and the run is
    the same with LAIT_SEND_AHEAD=0 (exit code and output too, when the config is rejected)."""
    (tmp_path / "lait.config.yml").write_text(config.replace("{url}", server.url), encoding="utf-8")
    runs = both_ways(
        ["--base-url", server.url, "hi"] if "base_url" not in config else ["hi"],
        tmp_path,
        env,
        server,
        text("ok"),
    )
    same_run(runs)
    for _, requests in runs.values():
        assert all(r.headers.get("connection") == "keep-alive" for r in requests), name


REJECTED: list[tuple[str, str]] = [
    ("an MCP server's unknown key", "mcp_servers:\n  notes: {command: 'true', bogus: 1}\n"),
    ("a bad shell tool", "tools:\n  grep: {command: 7}\n"),
    (
        "a model entry's bad pricing",
        "models:\n  other:\n    - {provider: {base_url: '{url}'}, model_id: o, pricing: cheap}\n",
    ),
]


@pytest.mark.parametrize(("name", "extra"), REJECTED, ids=[c[0] for c in REJECTED])
def test_a_config_the_full_path_rejects_never_changes_the_answer_or_exit_code(
    name: str,
    extra: str,
    tmp_path: Path,
    env: dict[str, str],
    server: ScriptedOpenAIServer,
) -> None:
    """Sections a plain chat does not read are checked for their kind only, so a request may leave
    ahead for a config the full path then rejects: it went to the endpoint the config names (and
    nowhere else), and the run exits 3 with the config's errors as without send-ahead."""
    with ScriptedOpenAIServer() as other:
        config = f"base_url: {server.url}\napi_key: sk-rejected-canary\ndefault:\n  model: m\n" + extra
        (tmp_path / "lait.config.yml").write_text(config.replace("{url}", other.url), encoding="utf-8")
        chat_config = ahead_config.read_chat_config([tmp_path / "lait.config.yml"])
        target = ahead_config.resolve(  # what the send-ahead path computes: it would send this
            chat_config,
            model=None,
            base_url=None,
            api_key=None,
            sampling=Sampling(),
            system=None,
            system_given=False,
        )
        assert (target.base_url, target.api_key, target.model_id) == (server.url, "sk-rejected-canary", "m")
        runs = both_ways(["hi"], tmp_path, env, server, text("never shown"))
        same_run(runs)
        run = runs["ahead"][0]
        assert run.returncode == 3, run.stderr
        assert "never shown" not in run.stdout
        # at most the one request sent ahead (the engine sends none): to the config's endpoint
        assert [r.headers.get("connection") for r in server.requests] in ([], ["close"])
        assert other.requests == []
        assert "canary" not in run.stdout + run.stderr
