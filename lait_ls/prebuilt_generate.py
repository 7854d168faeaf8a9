"""Generates ``lait_ls/prebuilt_initialize.json`` (read by :mod:`lait_ls.prebuilt_answer`) from the
real server: the schema of ``InitializeParams`` from lsprotocol's classes, and pygls's answers for
every combination of the variables that change it. ``python3 -m lait_ls.prebuilt_generate`` writes
it; tests/lsp/test_prebuilt_initialize.py fails when the shipped file differs from what this
computes (a feature added without regenerating). docs/performance.md, "lait-ls start-up"."""

from __future__ import annotations

import asyncio
import collections.abc
import enum
import itertools
import json
import sys
import typing
from pathlib import Path
from typing import Any

from lait_ls.prebuilt_answer import DESCRIPTION, FORMAT, VARIABLES, answer_key, lait_version

VALUES: dict[str, list[str]] = {
    name: (
        ["utf-16", "utf-8", "utf-32"]
        if name == "positionEncoding"
        else ["0", "1"]
        if name in ("pull", "notebookDocument")
        else ["none", "false", "true"]
    )
    for name in VARIABLES
}
"""The values of each variable; the first is the base (what a client that says nothing gets)."""


def probe_params(values: dict[str, str]) -> dict[str, Any]:
    """Client params with exactly these variable values (the rest at their base)."""
    caps: dict[str, Any] = {}

    def put(path: list[str], value: Any) -> None:
        node = caps
        for name in path[:-1]:
            node = node.setdefault(name, {})
        node[path[-1]] = value

    params: dict[str, Any] = {"processId": None, "rootUri": None, "capabilities": caps}
    for name, value in values.items():
        if name == "positionEncoding":
            put(["general", "positionEncodings"], [value])
        elif name == "pull":
            if value == "1":
                params["initializationOptions"] = {"diagnostics": "pull"}
        elif name == "notebookDocument":
            if value == "1":
                put(["notebookDocument", "synchronization"], {})
        elif value == "none":
            continue
        elif name.startswith("fileOperations."):
            put(["workspace", "fileOperations", name.partition(".")[2]], value == "true")
        else:
            section = "rename" if name == "renamePrepareSupport" else "synchronization"
            put(["textDocument", section, "prepareSupport" if section == "rename" else name], value == "true")
    return params


def pygls_answer(message: dict[str, Any]) -> list[dict[str, Any]]:
    """What a fresh lait-ls (pygls) sends for this one message, in-process: its messages, or
    ``[{"unreadable": ...}]`` when pygls's reader rejects it."""
    from lait_ls.language_server import build

    server = build()
    sent: list[bytes] = []

    class Capture:
        def write(self, data: bytes) -> None:
            sent.append(data)

        def close(self) -> None:
            pass

    server.protocol.set_writer(Capture())
    body = json.dumps(message)

    async def handle() -> None:
        try:
            parsed = json.loads(body, object_hook=server.protocol.structure_message)
        except Exception as exc:  # what pygls's reader answers with an error (or drops)
            sent.append(b"\r\n\r\n" + json.dumps({"unreadable": type(exc).__name__}).encode())
            return
        server.protocol.handle_message(parsed)
        await asyncio.sleep(0)

    asyncio.run(handle())
    return [json.loads(data.partition(b"\r\n\r\n")[2]) for data in sent]


def pygls_result(params: dict[str, Any]) -> dict[str, Any] | None:
    sent = pygls_answer({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    answers = [m for m in sent if m.get("id") == 1 and "method" not in m]
    if len(answers) != 1 or not isinstance(answers[0].get("result"), dict):
        return None
    result: dict[str, Any] = answers[0]["result"]
    return result


def _camel(name: str) -> str:
    """lsprotocol's JSON name of a field."""
    name = name.removesuffix("_")
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


def params_schema() -> dict[str, Any]:
    """``InitializeParams`` as lsprotocol structures it, in the terms prebuilt_answer checks."""
    import attrs
    from lsprotocol import types as lsp

    defs: dict[str, Any] = {}

    def kind(tp: Any) -> Any:
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        simple = {bool: "bool", int: "int", float: "float", str: "str", type(None): "null", typing.Any: "any"}
        if tp in simple:
            return simple[tp]
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return {"enum": [member.value for member in tp]}
        if isinstance(tp, type) and attrs.has(tp):
            if tp.__name__ not in defs:
                defs[tp.__name__] = {}
                hints = typing.get_type_hints(tp)
                fields = {_camel(f.name): kind(hints[f.name]) for f in attrs.fields(tp)}
                required = [_camel(f.name) for f in attrs.fields(tp) if f.default is attrs.NOTHING]
                defs[tp.__name__] = {"fields": fields, "required": required}
            return {"ref": tp.__name__}
        if origin is typing.Union:
            return {"union": [kind(arg) for arg in args]}
        if origin in (list, collections.abc.Sequence) and len(args) == 1:
            return {"list": kind(args[0])}
        return "unknown"  # prebuilt_answer fits nothing to it: such a field present answers late

    root = kind(lsp.InitializeParams)
    return {"root": root, "defs": dict(sorted(defs.items()))}


def _installed(package: str) -> str:
    from importlib.metadata import version

    return version(package)


def relevant_variables() -> list[str]:
    """The variables one of whose values changes pygls's answer (alone or with pull mode on)."""
    base = {name: values[0] for name, values in VALUES.items()}
    relevant = []
    for name, values in VALUES.items():
        for context in ({}, {"pull": "1"}):
            answers = {
                json.dumps(pygls_result(probe_params({**base, **context, name: v})), sort_keys=True)
                for v in values
            }
            if len(answers) > 1:
                relevant.append(name)
                break
    return relevant


def describe() -> dict[str, Any]:
    variables = relevant_variables()
    answers: dict[str, Any] = {}
    base = {name: values[0] for name, values in VALUES.items()}
    for combination in itertools.product(*(VALUES[name] for name in variables)):
        values = {**base, **dict(zip(variables, combination, strict=True))}
        result = pygls_result(probe_params(values))
        if result is not None:
            answers[answer_key(variables, values)] = result
    return {
        "format": FORMAT,
        "generated_by": "python3 -m lait_ls.prebuilt_generate",
        "versions": {
            "lait": lait_version(),
            "pygls": _installed("pygls"),
            "lsprotocol": _installed("lsprotocol"),
        },
        "variables": variables,
        "answers": answers,
        "schema": params_schema(),
    }


def render(description: dict[str, Any]) -> str:
    return json.dumps(description, indent=1, sort_keys=True) + "\n"


def main(path: Path = DESCRIPTION) -> None:
    path.write_text(render(describe()), encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
