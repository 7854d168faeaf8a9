"""``initialize`` answered before the server is imported (lait_ls.early_initialize): the answer a
start remembers is the one pygls computes, sent once, and the server then works as usual; a stale
remembered answer is replaced."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from lsprotocol.converters import get_converter
from pytest_lsp import client_capabilities

from tests.lsp.test_server_log import frame, read_messages

SERVER = [sys.executable, "-m", "lait_ls.server"]


def session(
    tmp: Path, capabilities: dict[str, Any], *, early: bool = True
) -> tuple[list[dict[str, Any]], str]:
    """One lait-ls from spawn to exit: initialize, open a workflow with an unknown key, shut down.
    The messages it sent and its stderr."""
    wf = tmp / "flow.yml"
    wf.write_text("steps:\n  - prompt: hi\n    temprature: 0.2\n", encoding="utf-8")
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "capabilities": capabilities,
                "rootUri": tmp.as_uri(),
                "initializationOptions": {"debounce": 0},
            },
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": wf.as_uri(),
                    "languageId": "yaml",
                    "version": 1,
                    "text": wf.read_text(),
                }
            },
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "textDocument/documentSymbol",
            "params": {"textDocument": {"uri": wf.as_uri()}},
        },
    ]
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp / "cache"),
        "XDG_CONFIG_HOME": str(tmp / "no-config"),
        "LAIT_LS_EARLY_INITIALIZE": "1" if early else "0",
    }
    proc = subprocess.Popen(
        SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b"".join(frame(m) for m in messages))
        proc.stdin.flush()
        received = read_until(
            proc.stdout, lambda got: "LAIT309" in published_codes(got) and bool(answers(got, 2))
        )
        for m in ({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}, {"jsonrpc": "2.0", "method": "exit"}):
            proc.stdin.write(frame(m))
        proc.stdin.close()
        rest = proc.stdout.read()  # to its end: the server exits
        err = proc.stderr.read() if proc.stderr is not None else b""
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.decode()
    return received + read_messages(rest), err.decode()


def read_until(stdout: IO[bytes], done: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
    """Messages read from the server until ``done`` holds for them (60 s at most)."""
    got: list[dict[str, Any]] = []
    buffer = b""
    deadline = time.monotonic() + 60
    while not done(got):
        left = deadline - time.monotonic()
        assert left > 0, f"no expected message within 60 s: {got}"
        ready, _, _ = select.select([stdout], [], [], left)
        if not ready:
            continue
        chunk = os.read(stdout.fileno(), 65536)
        assert chunk, f"the server closed its output: {got}"
        buffer += chunk
        while b"\r\n\r\n" in buffer:
            header, _, rest = buffer.partition(b"\r\n\r\n")
            length = int(dict(line.split(b":", 1) for line in header.split(b"\r\n"))[b"Content-Length"])
            if len(rest) < length:
                break
            got.append(json.loads(rest[:length]))
            buffer = rest[length:]
    return got


def answers(messages: list[dict[str, Any]], request_id: int) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("id") == request_id and "method" not in m]


def published_codes(messages: list[dict[str, Any]]) -> set[str]:
    return {
        d.get("code")
        for m in messages
        if m.get("method") == "textDocument/publishDiagnostics"
        for d in m["params"]["diagnostics"]
    }


def remembered(tmp: Path) -> list[Path]:
    return sorted((tmp / "cache" / "lait" / "ls").glob("initialize-*.json"))


def test_second_start_answers_initialize_early_with_pygls_answer(tmp_path: Path) -> None:
    caps = get_converter().unstructure(client_capabilities("visual-studio-code"))
    computed, _ = session(tmp_path, caps, early=False)
    assert remembered(tmp_path) == []  # turned off: nothing read or written
    first, _ = session(tmp_path, caps)
    assert len(remembered(tmp_path)) == 1
    second, err = session(tmp_path, caps)
    for messages in (computed, first, second):
        assert len(answers(messages, 1)) == 1  # one answer to initialize, never two
        assert "LAIT309" in published_codes(messages)  # the server works after it
        assert answers(messages, 2)[0].get("result"), messages
    assert answers(second, 1)[0]["result"] == answers(computed, 1)[0]["result"]
    assert answers(first, 1)[0]["result"] == answers(computed, 1)[0]["result"]
    assert "out of date" not in err
    # another client's capabilities: another answer (rename without prepareSupport is a bool)
    session(tmp_path, {})
    assert len(remembered(tmp_path)) == 2
    plain, _ = session(tmp_path, {})
    assert answers(plain, 1)[0]["result"]["capabilities"]["renameProvider"] is True
    assert answers(second, 1)[0]["result"]["capabilities"]["renameProvider"] == {"prepareProvider": True}


def test_a_stale_remembered_answer_is_replaced(tmp_path: Path) -> None:
    session(tmp_path, {})
    [path] = remembered(tmp_path)
    right = json.loads(path.read_text())
    path.write_text(json.dumps({"capabilities": {"hoverProvider": False}}))
    stale, err = session(tmp_path, {})
    assert answers(stale, 1)[0]["result"] == {"capabilities": {"hoverProvider": False}}  # sent before it knew
    assert len(answers(stale, 1)) == 1
    assert "out of date" in err
    assert "LAIT309" in published_codes(stale)
    assert json.loads(path.read_text()) == right
    fixed, _ = session(tmp_path, {})
    assert answers(fixed, 1)[0]["result"] == right


def test_an_unreadable_remembered_answer_is_no_answer(tmp_path: Path) -> None:
    session(tmp_path, {})
    [path] = remembered(tmp_path)
    right = json.loads(path.read_text())
    path.write_text("{not json")
    messages, _ = session(tmp_path, {})
    assert answers(messages, 1)[0]["result"] == right
    assert json.loads(path.read_text()) == right


def test_the_entry_point_imports_only_the_standard_library() -> None:
    code = (
        "import sys, lait_ls.server, lait_ls.early_initialize\n"
        "print([m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'lait_core', 'asyncio', 'attrs')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_fifo_in_place_of_the_answer_never_blocks_the_start(tmp_path: Path) -> None:
    session(tmp_path, {})
    [path] = remembered(tmp_path)
    right = json.loads(path.read_text())
    path.unlink()
    os.mkfifo(path)  # nobody writes it: an open() without O_NONBLOCK would wait forever
    messages, _ = session(tmp_path, {})
    assert answers(messages, 1)[0]["result"] == right  # pygls's own answer, in time
    assert "LAIT309" in published_codes(messages)


def test_a_shared_or_symlinked_cache_folder_is_neither_read_nor_written(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    keep = [elsewhere / f"initialize-{i:02d}.json" for i in range(20)]  # more than KEEP: no pruning
    for p in keep:
        p.write_text('{"capabilities": {"hoverProvider": false}}')
    (tmp_path / "cache" / "lait").mkdir(parents=True)
    (tmp_path / "cache" / "lait" / "ls").symlink_to(elsewhere)
    messages, _ = session(tmp_path, {})
    assert answers(messages, 1)[0]["result"]["capabilities"].get("hoverProvider") is True
    assert sorted(elsewhere.iterdir()) == keep  # nothing written there, nothing deleted
    (tmp_path / "cache" / "lait" / "ls").unlink()
    shared = tmp_path / "cache" / "lait" / "ls"
    shared.mkdir()
    shared.chmod(0o777)
    (shared / "planted.json").write_text("{}")
    session(tmp_path, {})
    assert sorted(p.name for p in shared.iterdir()) == ["planted.json"]  # others can write it: unused


def test_what_the_client_sent_is_not_written(tmp_path: Path) -> None:
    """The cache holds the server's answer only: the client's options (which may carry a token)
    are part of the key's hash, never of a file."""
    canary = "lait-canary-3f9c1e7d-secret"
    caps = {"experimental": {"token": canary}}
    session(tmp_path, caps)
    session(tmp_path, caps)
    files = list((tmp_path / "cache").rglob("*"))
    assert remembered(tmp_path)
    for path in files:
        if path.is_file():
            assert canary not in path.read_text(encoding="utf-8", errors="replace"), path
            assert canary not in path.name
