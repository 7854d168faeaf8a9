"""The ``initialize`` answer built without pygls for a first start (lait_ls.prebuilt_answer) equals
what pygls computes, for real clients' params and systematic variations of every field its answer
reads; params it does not model are answered late, never wrongly; the shipped description is the
one the server's features give now."""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp

from lait_ls import prebuilt_answer, prebuilt_generate
from lait_ls.early_initialize import EarlyStart, EarlyWriter
from lait_ls.prebuilt_answer import VARIABLES, build_answer, installed_matches, load_description
from lait_ls.prebuilt_generate import VALUES, probe_params, pygls_answer, pygls_result
from tests.lsp.test_early_initialize import answers, remembered, session
from tests.lsp.test_server_log import frame, read_messages

CLIENTS = Path(pytest_lsp.__file__).parent / "clients"
LENIENT_CLIENTS = {"neovim_v0.9.1.json"}
"""Recorded clients whose params do not fit lsprotocol's types strictly (Neovim 0.9.1 sends
``callHierarchy`` as a list): answered late, by pygls."""


def client_params(name: str) -> dict[str, Any]:
    recorded = json.loads((CLIENTS / name).read_text(encoding="utf-8"))
    return {
        "processId": 4242,
        "clientInfo": recorded.get("clientInfo"),
        "rootUri": "file:///work/project",
        "rootPath": "/work/project",
        "workspaceFolders": [{"uri": "file:///work/project", "name": "project"}],
        "capabilities": recorded["capabilities"],
        "trace": "off",
    }


RECORDED = sorted(p.name for p in CLIENTS.glob("*.json"))

OPTIONS: list[Any] = [
    None,
    {},
    {"debounce": 0},
    {"diagnostics": "pull"},
    {"lait": {"diagnostics": "pull", "trusted": False}},
    {"lait": {"diagnostics": "push"}, "diagnostics": "pull"},  # the "lait" key wins
    {"diagnostics": "PULL"},
    {"diagnostics": ["pull"]},
    {"approveTools": "never", "noEnv": True, "debounce": 2.5},
    {"inlayHints": {"modelAlias": True, "shellArgv": "yes"}},
    {"lait": "pull"},
    {"lait": None, "diagnostics": "pull"},
    "pull",
    [{"diagnostics": "pull"}],
    42,
    {"debounce": 1e15},
    {"debounce": -5, "trusted": "no"},
]
"""Initialization options: lait's settings, pull mode in its spellings, and what is not a setting."""


def message(params: Any, request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def assert_same(params: dict[str, Any], *, built_expected: bool = True) -> dict[str, Any] | None:
    built = build_answer(message(params))
    if built_expected:
        assert built is not None, json.dumps(params)[:500]
    if built is not None:
        assert built == pygls_result(params), json.dumps(params)[:500]
    return built


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_clients_get_pygls_answer_for_every_kind_of_options(name: str) -> None:
    params = client_params(name)
    for options in OPTIONS:
        assert_same({**params, "initializationOptions": options}, built_expected=name not in LENIENT_CLIENTS)
    if name in LENIENT_CLIENTS:
        assert build_answer(message(params)) is None


OWN = Path(__file__).with_name("clients")
"""What lait's own editor integrations send (recorded by starting each, as a user would, with a
server that writes down the first message): code-server 1.100.3 with the packaged extension
(pull mode, inlay hint settings), Neovim 0.11.4 with editors/neovim/lait.lua, Emacs 28.2 with
eglot 1.9 (tests/editors/eglot.el's set-up). Paths and the process id replaced."""


@pytest.mark.parametrize("name", sorted(p.name for p in OWN.glob("*.json")))
def test_lait_editor_integrations_get_pygls_answer(name: str) -> None:
    params = json.loads((OWN / name).read_text(encoding="utf-8"))["params"]
    assert_same(params)
    for options in OPTIONS:
        assert_same({**params, "initializationOptions": options})


def test_pytest_lsp_default_client_gets_pygls_answer() -> None:
    from lsprotocol.converters import get_converter
    from pytest_lsp import client_capabilities

    for client in ("visual-studio-code", "neovim", "emacs"):
        caps = get_converter().unstructure(client_capabilities(client))
        assert_same({"processId": None, "rootUri": None, "capabilities": caps})
    assert_same({"capabilities": {}})  # what pytest-lsp's session fixture sends by default, at least


def test_every_combination_of_the_fields_the_answer_reads() -> None:
    """Each input pygls's initialize reads (position encodings, rename's prepareSupport, willSave,
    notebooks, file operations, pull mode): all values alone, and a spread of combinations."""
    base = {name: values[0] for name, values in VALUES.items()}
    seen = set()
    for name, values in VALUES.items():
        for value in values:
            for pull in ("0", "1"):
                built = assert_same(probe_params({**base, "pull": pull, name: value}))
                seen.add(json.dumps(built, sort_keys=True))
    rng = random.Random(29)
    for _ in range(40):
        assert_same(probe_params({name: rng.choice(values) for name, values in VALUES.items()}))
    assert len(seen) >= 4  # prepareSupport x pull at least: the answers really differ


def test_fields_the_answer_does_not_read_change_nothing() -> None:
    params = client_params("visual_studio_code_v1.65.2.json")
    variations: list[dict[str, Any]] = [
        {"processId": None},
        {"rootUri": None, "rootPath": None, "workspaceFolders": None},
        {"workspaceFolders": []},
        {"trace": "verbose", "locale": "de-DE", "workDoneToken": "t-1"},
        {"clientInfo": {"name": "x"}},
        {"clientInfo": None},
    ]
    for extra in variations:
        assert_same({**params, **extra})
    caps = params["capabilities"]
    for path, value in [
        (["workspace", "workspaceFolders"], False),
        (["workspace", "configuration"], False),
        (["workspace", "didChangeWatchedFiles", "dynamicRegistration"], False),
        (["textDocument", "completion", "dynamicRegistration"], True),
        (["textDocument", "rename", "dynamicRegistration"], True),
        (["textDocument", "synchronization", "didSave"], False),
        (["general", "positionEncodings"], ["utf-32", "utf-8"]),
        (["general", "positionEncodings"], ["made-up"]),
        (["window", "workDoneProgress"], False),
        (["experimental"], {"anything": [1, "two", None]}),
        (["textDocument", "diagnostic"], {"dynamicRegistration": True, "relatedDocumentSupport": True}),
        (["notAField"], {"x": 1}),
    ]:
        changed = copy.deepcopy(caps)
        node = changed
        for name in path[:-1]:
            node = node.setdefault(name, {})
        node[path[-1]] = value
        assert_same({**params, "capabilities": changed})


MISFITS: list[tuple[Any, Any]] = [
    ({"capabilities": 5}, 1),
    ({}, 1),
    ({"capabilities": {}, "processId": "x"}, 1),
    ({"capabilities": {}, "processId": 2**40}, 1),
    ({"capabilities": {}, "processId": -1}, 1),
    ({"capabilities": {}, "trace": "bogus"}, 1),
    ({"capabilities": {"textDocument": {"rename": {"prepareSupport": "yes"}}}}, 1),
    ({"capabilities": {"workspace": {"fileOperations": {"didRename": 1}}}}, 1),
    ({"capabilities": {"general": {"positionEncodings": "utf-8"}}}, 1),
    ({"capabilities": {"textDocument": {"callHierarchy": [{"dynamicRegistration": False}]}}}, 1),
    ({"capabilities": {}, "initializationOptions": {"debounce": 10**400}}, 1),
    ({"capabilities": {}, "initializationOptions": {"debounce": 1e300}}, 1),  # cautious: a big number
    ({"capabilities": {}, "initializationOptions": {"x": {"jsonrpc": "2.0", "method": "a"}}}, 1),
    ({"capabilities": {"experimental": {"jsonrpc": "2.0"}}}, 1),
    ({"capabilities": {}, "workspaceFolders": [{"uri": "file:///a"}]}, 1),
    ({"capabilities": {}}, True),
    ({"capabilities": {}}, None),
    ({"capabilities": {}}, 1.5),
    ({"capabilities": {}}, -3),
]


@pytest.mark.parametrize(("params", "request_id"), MISFITS)
def test_params_it_does_not_model_are_answered_late(params: Any, request_id: Any) -> None:
    assert build_answer(message(params, request_id)) is None
    assert build_answer({**message({"capabilities": {}}), "jsonrpc": "1.0"}) is None


def test_random_changes_to_real_params_never_give_a_wrong_answer() -> None:
    """A leaf of a real client's params replaced by another JSON value: built only when pygls
    answers the same."""
    rng = random.Random(2929)
    odd: list[Any] = [None, True, False, 0, -1, 2**31, 1.5, "", "x", "utf-8", [], {}, [1], {"a": 1}]
    built = late = 0
    for name in ("visual_studio_code_v1.65.2.json", "neovim_v0.11.0.json", "emacs_v29.1.json"):
        params = client_params(name)
        leaves = list(_leaves(params))
        for _ in range(40):
            changed = copy.deepcopy(params)
            path = rng.choice(leaves)
            node = changed
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = rng.choice(odd)
            answer = build_answer(message(changed))
            if answer is None:
                late += 1
                continue
            built += 1
            assert answer == pygls_result(changed), path
    assert built > 10 and late > 10  # both kinds were tried


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Any:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    elif path:
        yield path


def test_the_shipped_description_matches_the_server() -> None:
    """Fails when a feature (or pygls, or lait's version) changed without regenerating:
    ``python3 -m lait_ls.prebuilt_generate``."""
    shipped = prebuilt_answer.DESCRIPTION.read_text(encoding="utf-8")
    assert shipped == prebuilt_generate.render(prebuilt_generate.describe()), (
        "lait_ls/prebuilt_initialize.json is stale: run python3 -m lait_ls.prebuilt_generate"
    )
    description = load_description()
    assert description is not None and installed_matches(description)
    assert set(description["variables"]) <= set(VARIABLES)


def test_another_installed_version_or_an_unknown_variable_means_no_answer(tmp_path: Path) -> None:
    description = load_description()
    assert description is not None
    params = message({"capabilities": {}})
    assert build_answer(params, description) is not None
    for package in ("pygls", "lsprotocol", "lait"):
        other = copy.deepcopy(description)
        other["versions"][package] = "0.0.0-other"
        assert not installed_matches(other)
    unknown = copy.deepcopy(description)
    unknown["variables"] = [*unknown["variables"], "somethingNew"]
    assert build_answer(params, unknown) is None
    missing = copy.deepcopy(description)
    base = {name: values[0] for name, values in VALUES.items()}  # what {"capabilities": {}} gives
    del missing["answers"][prebuilt_answer.answer_key(missing["variables"], base)]
    assert build_answer(params, missing) is None
    truncated = tmp_path / "d.json"
    truncated.write_text(prebuilt_answer.DESCRIPTION.read_text()[:1000])
    assert load_description(truncated) is None
    other_format = tmp_path / "f.json"
    other_format.write_text(json.dumps({**description, "format": 99}))
    assert load_description(other_format) is None


def test_what_pygls_does_with_the_misfits_is_not_all_success() -> None:
    """The misfits are not only cautious: pygls rejects several of them (so an early answer there
    would have been wrong)."""
    rejected: list[Any] = [
        {"capabilities": 5},
        {},
        {"capabilities": {}, "processId": "x"},
        {"capabilities": {}, "trace": "bogus"},
        {"capabilities": {}, "initializationOptions": {"debounce": 10**400}},  # lait's handler fails
    ]
    assert all((params, 1) in MISFITS for params in rejected)
    outcomes = [pygls_answer(message(params)) for params in rejected]
    assert all(not any("result" in m for m in sent) for sent in outcomes)


def test_a_first_start_answers_from_the_prebuilt_description(tmp_path: Path) -> None:
    from lsprotocol.converters import get_converter
    from pytest_lsp import client_capabilities

    caps = get_converter().unstructure(client_capabilities("neovim"))
    (tmp_path / "late").mkdir()
    (tmp_path / "cold").mkdir()
    computed, _ = session(tmp_path / "late", caps, early=False)
    os.environ["LAIT_LOG"] = "INFO"
    try:
        first, err = session(tmp_path / "cold", caps)
    finally:
        del os.environ["LAIT_LOG"]
    assert "initialize answered early (pre-built)" in err
    assert "out of date" not in err
    assert len(answers(first, 1)) == 1
    assert answers(first, 1)[0]["result"] == answers(computed, 1)[0]["result"]
    assert answers(first, 2)[0].get("result")  # the server works after it
    assert len(remembered(tmp_path / "cold")) == 1  # and the next start reads it back


def test_a_wrong_prebuilt_answer_is_logged_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    sent: list[bytes] = []

    class Inner:
        def write(self, data: bytes) -> None:
            sent.append(data)

        def close(self) -> None:
            pass

    early = EarlyStart(b"", 7, "k" * 40, {"capabilities": {"hoverProvider": False}}, prebuilt=True)
    writer = EarlyWriter(Inner(), early)
    right = {"capabilities": {"hoverProvider": True}}
    writer.write(frame({"jsonrpc": "2.0", "id": 7, "result": right}))
    assert sent == []  # an answer went out already: not a second one
    [path] = (tmp_path / "lait" / "ls").glob("initialize-*.json")
    assert json.loads(path.read_text()) == right


def test_a_first_message_nested_too_deep_does_not_end_the_server() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    requests = b"Content-Length: %d\r\n\r\n%s" % (len(deep), deep) + b"".join(
        frame(m)
        for m in (
            message({"capabilities": {}}, 1),
            {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
            {"jsonrpc": "2.0", "method": "exit"},
        )
    )
    env = {**os.environ, "XDG_CACHE_HOME": "/nonexistent/lait-test"}
    proc = subprocess.run(
        [sys.executable, "-m", "lait_ls.server"], input=requests, capture_output=True, timeout=60, env=env
    )
    got = read_messages(proc.stdout)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert [m for m in got if m.get("id") == 1 and "result" in m], (got, proc.stderr.decode()[-2000:])
