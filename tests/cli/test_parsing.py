"""CLI parsing like the reference (docs/cli.md; issue 12 item 5): global
options before or after the subcommand, at any depth; ``--no-env`` found by scanning argv up to
``--``; a first positional that names a reference subcommand is that subcommand, never a prompt —
one not offered yet exits 2 with "'lait NAME' is not available in this version" and no model call."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from lait_cli import dispatch as commands
from lait_cli.command_table import COMMANDS
from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, text


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as s:
        yield s


@pytest.fixture
def chat(lait: Lait) -> Lait:
    for key in list(lait.env):
        if key.startswith(("OPENAI_", "LLM_")):
            del lait.env[key]
    return lait


def _tree() -> object:
    import lait_cli.main as cli

    return commands.build(cli.app)


# -- the stand-ins: reference names minus the command table ---------------------------------------
def test_missing_commands_are_reference_names_minus_the_table() -> None:
    assert commands.missing_commands(["run"]) == [n for n in commands.REFERENCE_COMMANDS if n != "run"]
    missing = commands.missing_commands(COMMANDS)
    assert set(commands.stand_ins()) == set(missing)
    for name in missing:
        stand_in = commands.stand_in_command(name)
        assert stand_in.name == name and stand_in.hidden
        assert getattr(stand_in.callback, commands.STAND_IN, False) is True
    assert not set(missing) & set(COMMANDS)


def test_every_reference_name_resolves_in_the_tree() -> None:
    tree = _tree()
    names = set(tree.commands)  # type: ignore[attr-defined]
    assert set(commands.REFERENCE_COMMANDS) <= names
    assert set(COMMANDS) <= names


DRIVER = """
import contextlib, io, json, sys
from lait_cli import dispatch as commands
from lait_cli.command_table import COMMANDS
from lait_cli.main import main
out = {}
for name in commands.REFERENCE_COMMANDS:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            main([name, *sys.argv[1:]])
        except SystemExit as exc:
            code = exc.code
    out[name] = [code, stdout.getvalue(), stderr.getvalue()]
sys.__stdout__.write(json.dumps(out))
"""


def test_a_reference_name_is_a_subcommand_never_a_prompt(chat: Lait, server: ScriptedOpenAIServer) -> None:
    """Every reference name with --help, in one process (real subprocesses below for two of them)."""
    import json
    import subprocess
    import sys

    missing = commands.missing_commands(COMMANDS)
    chat.env["OPENAI_BASE_URL"] = server.url
    chat.env["LLM_MODEL"] = "m"
    server.push(*[text("a model answered")] * 5)
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, "--help"],
        cwd=chat.cwd,
        env=chat.env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    for name, (code, stdout, stderr) in results.items():
        if name in missing:
            assert (code, stdout) == (2, ""), name
            assert stderr == f"lait: 'lait {name}' is not available in this version\n"
        else:
            assert code in (0, None), (name, stderr)
            assert f"Usage: lait {name}" in stdout, name
    for name in missing[:2]:
        as_prompt = chat(name, "please", "--no-env")
        assert (as_prompt.returncode, as_prompt.stdout) == (2, "")
        assert as_prompt.stderr == f"lait: 'lait {name}' is not available in this version\n"
    assert server.bodies == []
    prompt_after_dashdash = chat("--", "doctor")
    assert (prompt_after_dashdash.returncode, prompt_after_dashdash.stdout) == (0, "a model answered\n")
    assert server.bodies[-1]["messages"] == [{"role": "user", "content": "doctor"}]


def test_a_chat_option_before_a_missing_subcommand_is_a_usage_error(chat: Lait) -> None:
    run = chat("--model", "m", "doctor")
    assert run.returncode == 2
    assert run.stderr == "lait: the argument '--model' cannot be used with subcommand 'doctor'\n"


def test_a_near_miss_of_a_command_with_arguments_names_the_command(
    chat: Lait, server: ScriptedOpenAIServer
) -> None:
    """`lait lnt .` cannot be a chat (one prompt only): say which command was meant, call no model.
    A single word stays a prompt (docs/cli.md), and so does anything after `--`."""
    for args, meant in ((["lnt", "."], "lint"), (["--model", "m", "docter", "x"], "doctor")):
        run = chat(*args)
        assert (run.returncode, run.stdout) == (2, ""), args
        assert run.stderr.startswith(f"lait: '{args[-2]}' is not a command; did you mean '{meant}'?"), (
            run.stderr
        )
    assert server.bodies == []
    server.push(text("a model answered"), text("a model answered"))
    for args in (["lnt", "--model", "m"], ["--model", "m", "--", "lnt"]):
        run = chat("--base-url", server.url, *args)
        assert (run.returncode, run.stdout) == (0, "a model answered\n"), (args, run.stderr)
    assert [b["messages"][-1]["content"] for b in server.bodies] == ["lnt", "lnt"]


# -- global options anywhere --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", "wf.yml", "x", "--no-env"], ["--no-env", "run", "wf.yml", "x"]),
        (["lint", ".", "--no-env", "--cache"], ["--no-env", "--cache", "lint", "."]),
        (["agent", "--no-config", "list"], ["--no-config", "agent", "list"]),
        (["schema", "config", "--config", "c.yml"], ["--config", "c.yml", "schema", "config"]),
        (["schema", "config", "--config=c.yml", "-vv"], ["--config=c.yml", "-vv", "schema", "config"]),
        (["-v", "schema", "--no-cache", "config"], ["-v", "--no-cache", "schema", "config"]),
        (["--config", "c.yml", "rule", "--approve-tools"], ["--config", "c.yml", "--approve-tools", "rule"]),
        # options a command declares itself stay with it
        (["lint", ".", "--config", "c.yml"], ["lint", ".", "--config", "c.yml"]),
        (["run", "wf.yml", "-vv"], ["run", "wf.yml", "-vv"]),
        # an option's value is never taken for a global option
        (["run", "wf.yml", "-o", "--no-env"], ["run", "wf.yml", "-o", "--no-env"]),
        (["run", "wf.yml", "--input", "--cache", "x"], ["run", "wf.yml", "--input", "--cache", "x"]),
        # nothing after `--` is an option
        (["run", "wf.yml", "--", "--no-env"], ["run", "wf.yml", "--", "--no-env"]),
    ],
)
def test_global_options_after_the_subcommand_move_in_front_of_it(
    args: list[str], expected: list[str]
) -> None:
    assert commands.hoist_globals(_tree(), args) == expected


BROKEN_ENV = "GOOD=1\nthis line is not an assignment\n"


def test_no_env_anywhere_before_dashdash(lait: Lait) -> None:
    lait.write(".env", BROKEN_ENV)
    lait.write("wf.yml", "steps:\n  - jq: '\"got \" + .'\n")
    broken = lait("run", "wf.yml", "x")
    assert broken.returncode == 1
    assert broken.stderr.startswith("lait: ") and ".env:2:" in broken.stderr
    for args in (
        ["run", "wf.yml", "x", "--no-env"],
        ["run", "--no-env", "wf.yml", "x"],
        ["--no-env", "run", "wf.yml", "x"],
    ):
        run = lait(*args)
        assert (run.returncode, run.stdout) == (0, "got x\n"), (args, run.stderr)
    after_dashdash = lait("run", "wf.yml", "--", "--no-env")  # the PROMPT "--no-env": .env is read
    assert (after_dashdash.returncode, after_dashdash.stderr) == (1, broken.stderr)
    lint = lait("lint", "wf.yml", "--no-env")
    assert lint.returncode == 0, lint.stderr
    assert lait("lint", "wf.yml").returncode == 1


def test_no_env_after_the_prompt_of_a_chat(chat: Lait, server: ScriptedOpenAIServer) -> None:
    chat.write(".env", "LLM_MODEL=from-dotenv\n")
    server.push(text("ok"))
    with_env = chat("--base-url", server.url, "hi")
    assert with_env.returncode == 0, with_env.stderr
    assert server.bodies[0]["model"] == "from-dotenv"
    without = chat("--base-url", server.url, "hi", "--no-env")
    assert without.returncode == 1
    assert "no model given" in without.stderr
    assert len(server.bodies) == 1


def test_global_options_after_subcommands_take_effect(lait: Lait) -> None:
    lait.write("lait.config.yml", "agents:\n  top: a.md\n")
    lait.write("a.md", "---\ndescription: top agent\n---\nHi\n")
    lait.write("sub/lait.config.yml", "agents:\n  other: b.md\n")
    lait.write("sub/b.md", "---\ndescription: other agent\n---\nHi\n")
    default = lait("agent", "list")
    assert default.returncode == 0 and "top" in default.stdout
    for args in (
        ["agent", "--config", "sub/lait.config.yml", "list"],
        ["agent", "list", "--config", "sub/lait.config.yml"],
        ["--config", "sub/lait.config.yml", "agent", "list"],
    ):
        run = lait(*args)
        assert run.returncode == 0, (args, run.stderr)
        assert "other" in run.stdout and "top" not in run.stdout, args
    for args in (["schema", "config", "-v", "--no-env", "--approve-tools"], ["rule", "LAIT001", "-vv"]):
        run = lait(*args)
        assert run.returncode == 0, (args, run.stderr)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["schema", "config", "--config", "c.yml", "--no-config"], "--config and --no-config"),
        (["--config", "c.yml", "schema", "config", "--no-config"], "--config and --no-config"),
        (["lint", ".", "--cache", "--no-cache"], "--cache and --no-cache"),
        (["--cache", "--no-cache", "lint", "."], "--cache and --no-cache"),
    ],
)
def test_conflicting_global_options_exit_2(lait: Lait, args: list[str], message: str) -> None:
    run = lait(*args)
    assert run.returncode == 2
    assert run.stderr == f"lait: {message} cannot be used together\n"


# -- how arguments are named in --help and man pages ----------------------------------------------
def _leaves(command: object, path: list[str]) -> Iterator[tuple[list[str], object]]:
    subs = getattr(command, "commands", None)
    if hasattr(subs, "items"):
        for name, sub in subs.items():  # type: ignore[union-attr]
            if not getattr(sub, "hidden", False):
                yield from _leaves(sub, [*path, name])
    else:
        yield path, command


def test_help_names_arguments_plainly(lait: Lait) -> None:
    """`FILE`, `[PROMPT]`, `PATH...`: never typer's `{paths}...` or a type label such as `<list[str]>`,
    in the usage line or the Arguments section, for any command; the man pages say the same."""
    lint = lait("lint", "--help")
    assert lint.returncode == 0, lint.stderr
    assert lint.stdout.startswith("Usage: lait lint [OPTIONS] PATH...\n")
    assert "\n  PATH...  Files or directories; '-' reads standard input.  [required]\n" in lint.stdout
    assert "--format FORMAT " in lint.stdout and "-o, --output-file FILE " in lint.stdout
    root = lait("--help")
    assert root.stdout.startswith("Usage: lait [OPTIONS] [PROMPT]\n")
    assert "\nArguments:\n  [PROMPT]  The user message; '-' reads stdin.\n" in root.stdout
    usages = {}
    for path, command in _leaves(_tree(), []):
        ctx = type(command).context_class(command, info_name=" ".join(["lait", *path]))  # type: ignore[attr-defined]
        usages[" ".join(path)] = command.get_usage(ctx)  # type: ignore[attr-defined]
        text = command.get_help(ctx)  # type: ignore[attr-defined]
        arguments = text.split("\nArguments:\n")[1].split("\nOptions:")[0] if "\nArguments:" in text else ""
        names = [
            row.strip().split("  ")[0]
            for row in arguments.splitlines()
            if row.startswith("  ") and row[2] != " "
        ]
        shown = " ".join([usages[" ".join(path)], *names])
        assert not re.search(r"[{}]|<(str|int|path|list\[\w+\])>", shown), (path, shown)
    assert usages["lint"] == "Usage: lait lint [OPTIONS] PATH..."
    assert usages["test"] == "Usage: lait test [OPTIONS] PATH..."
    assert usages["run"] == "Usage: lait run [OPTIONS] FILE [PROMPT]"
    assert usages["mcp call"] == "Usage: lait mcp call [OPTIONS] SERVER TOOL [JSON]"
    assert usages["init"] == "Usage: lait init [OPTIONS] [workflow|agent] [PATH]"
    pages = lait("man", "--dir", "pages")
    assert pages.returncode == 0, pages.stderr
    lint_page = (lait.cwd / "pages" / "lait-lint.1").read_text(encoding="utf-8")
    assert "\\fBlait lint [OPTIONS] PATH...\\fR" in lint_page and "\\fIPATH...\\fR" in lint_page
    assert "\\fB\\-\\-format\\fR FORMAT" in lint_page
    assert "\\fBlait [OPTIONS] [PROMPT]\\fR" in (lait.cwd / "pages" / "lait.1").read_text(encoding="utf-8")
