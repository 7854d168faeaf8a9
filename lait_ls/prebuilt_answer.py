"""The answer to ``initialize`` built with the standard library alone, for a first start (nothing
remembered yet; docs/performance.md, "lait-ls start-up", docs/decisions.md, "Editor").

``prebuilt_initialize.json`` (next to this module) is generated from the real pygls server by
:mod:`lait_ls.prebuilt_generate` and checked by tests/lsp/test_prebuilt_initialize.py. It holds:

- ``schema``: the structure of ``InitializeParams`` as lsprotocol reads it (fields, their JSON
  types, the required ones). An answer is built only for params that fit it strictly (a bool is a
  JSON bool, an enum one of its values, an integer within LSP's range, ...): what fits is accepted
  by pygls's converter; anything else (which pygls may reject, or read leniently) is answered late,
  by pygls itself, as before.
- ``variables`` and ``answers``: what pygls's answer depends on in the params (the few client
  capabilities its capability builder reads, and lait's initialization options that add features),
  and pygls's answer for every combination of their values. A variable whose extraction this module
  does not know, or a combination missing from the table, means no answer here.
- ``versions``: the pygls, lsprotocol and lait versions it was generated with; another installed
  version means no answer here.

Never a wrong answer: when in doubt, None (the server answers as usual). The server still checks
the answer sent against its own (:class:`lait_ls.early_initialize.EarlyWriter`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path
from typing import Any

DESCRIPTION = Path(__file__).with_name("prebuilt_initialize.json")
FORMAT = 1
MAX_DESCRIPTION = 4 * 1024 * 1024
"""The description is read bounded."""
LSP_INT_MIN = 0
"""Integers fit from 0 (lsprotocol checks LSP's uinteger fields from 0, its integer ones from -2**31;
the schema does not say which is which, so a negative one is answered late)."""
LSP_INT_MAX = 2**31 - 1
MAX_DEPTH = 64
"""Deeper params are answered late (the walk stays bounded)."""
MAX_SAFE_NUMBER = 2**53
"""A bigger number anywhere in the params (e.g. an initialization option read as a float) is
answered late."""


def wants_pull(options: Any) -> bool:
    """Pull diagnostics were asked for: initialization option ``{"diagnostics": "pull"}`` (also
    under a ``lait`` key); :mod:`lait_ls.features.pull_diagnostics`."""
    if not isinstance(options, dict):
        return False
    lait = options.get("lait", options)
    return isinstance(lait, dict) and lait.get("diagnostics") == "pull"


def _at(params: dict[str, Any], *path: str) -> Any:
    value: Any = params
    for name in path:
        if not isinstance(value, dict):
            return None
        value = value.get(name)
    return value


def _position_encoding(params: dict[str, Any]) -> str:
    """The client's first preference pygls supports (pygls's choice, before lait's override)."""
    encodings = _at(params, "capabilities", "general", "positionEncodings")
    if isinstance(encodings, list):
        for encoding in encodings:
            if encoding in ("utf-8", "utf-16", "utf-32"):
                return str(encoding)
    return "utf-16"


def _flag(*path: str) -> Any:
    """A client capability pygls reads as is: absent (or null), false or true all may differ
    (``willSave: null`` leaves the server's ``willSave`` out, ``false`` sends it false)."""

    def value(params: dict[str, Any]) -> str:
        found = _at(params, "capabilities", *path)
        return "none" if found is None else "true" if found else "false"

    return value


VARIABLES: dict[str, Any] = {
    "positionEncoding": _position_encoding,
    "renamePrepareSupport": _flag("textDocument", "rename", "prepareSupport"),
    "willSave": _flag("textDocument", "synchronization", "willSave"),
    "willSaveWaitUntil": _flag("textDocument", "synchronization", "willSaveWaitUntil"),
    "notebookDocument": lambda params: (
        "0" if _at(params, "capabilities", "notebookDocument") is None else "1"
    ),
    **{
        f"fileOperations.{op}": _flag("workspace", "fileOperations", op)
        for op in ("willCreate", "didCreate", "willDelete", "didDelete", "willRename", "didRename")
    },
    "pull": lambda params: "1" if wants_pull(params.get("initializationOptions")) else "0",
}
"""Every input pygls's ``initialize`` (its capability builder, lait's handler) reads from the params,
as a string value. The description lists the ones that change the answer."""


def answer_key(variables: list[str], values: dict[str, str]) -> str:
    return ",".join(f"{name}={values[name]}" for name in variables)


class _Misfit(Exception):
    """The params do not fit the schema strictly."""


def _check(value: Any, kind: Any, defs: dict[str, Any], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise _Misfit
    if isinstance(kind, str):
        if kind == "any":
            _plain(value, depth)
        elif kind == "null":
            if value is not None:
                raise _Misfit
        elif kind == "bool":
            if not isinstance(value, bool):
                raise _Misfit
        elif kind == "int":
            if type(value) is not int or not LSP_INT_MIN <= value <= LSP_INT_MAX:
                raise _Misfit
        elif kind == "float":
            if type(value) not in (int, float) or not abs(value) <= MAX_SAFE_NUMBER:  # NaN: not <=
                raise _Misfit
        elif kind == "str":
            if not isinstance(value, str):
                raise _Misfit
        else:
            raise _Misfit  # a kind this module does not know
        return
    if not isinstance(kind, dict) or len(kind) != 1:
        raise _Misfit
    ((tag, arg),) = kind.items()
    if tag == "union":
        for option in arg:
            try:
                _check(value, option, defs, depth + 1)
                return
            except _Misfit:
                continue
        raise _Misfit
    if tag == "enum":
        if isinstance(value, bool) or not isinstance(value, str | int) or value not in arg:
            raise _Misfit
    elif tag == "list":
        if not isinstance(value, list):
            raise _Misfit
        for item in value:
            _check(item, arg, defs, depth + 1)
    elif tag == "ref":
        shape = defs.get(arg)
        if not isinstance(shape, dict) or not isinstance(value, dict) or "jsonrpc" in value:
            raise _Misfit
        fields = shape.get("fields", {})
        for name in shape.get("required", []):
            if name not in value:
                raise _Misfit
        for name, item in value.items():
            if name in fields:
                _check(item, fields[name], defs, depth + 1)
            else:
                _plain(item, depth + 1)  # unknown keys are ignored by the converter
    else:
        raise _Misfit


def _plain(value: Any, depth: int) -> None:
    """Any JSON value, except what pygls's reader would take for a message of its own (a nested
    object with a ``jsonrpc`` key) or a number some handler could not use as a float."""
    if depth > MAX_DEPTH:
        raise _Misfit
    if isinstance(value, dict):
        if "jsonrpc" in value:
            raise _Misfit
        for item in value.values():
            _plain(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _plain(item, depth + 1)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if not abs(value) <= MAX_SAFE_NUMBER:  # NaN and infinities too (an int is compared exactly)
            raise _Misfit
    elif not (value is None or isinstance(value, str | bool)):
        raise _Misfit


def _read_bounded(path: Path, limit: int) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= limit else None


def _distribution_present(package: str, version: str) -> bool:
    """Whether ``package`` is installed at ``version`` (its ``NAME-VERSION.dist-info`` folder next to
    it), found without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return False
    if spec is None or not spec.origin:
        return False
    site = Path(spec.origin).resolve().parent.parent
    return (site / f"{package}-{version}.dist-info").is_dir()


def lait_version() -> str | None:
    """``lait_core.__version__``, read from its file (lait_core is not imported here)."""
    data = _read_bounded(Path(__file__).resolve().parent.parent / "lait_core" / "__init__.py", 256 * 1024)
    found = re.search(rb'^__version__ = "([^"]+)"$', data or b"", re.MULTILINE)
    return found.group(1).decode() if found else None


def load_description(path: Path = DESCRIPTION) -> dict[str, Any] | None:
    data = _read_bounded(path, MAX_DESCRIPTION)
    if data is None:
        return None
    try:
        description = json.loads(data)
    except ValueError:
        return None
    if not isinstance(description, dict) or description.get("format") != FORMAT:
        return None
    return description


def installed_matches(description: dict[str, Any]) -> bool:
    """The description was generated with the pygls, lsprotocol and lait installed now."""
    versions = description.get("versions")
    if not isinstance(versions, dict) or versions.get("lait") != lait_version():
        return False
    return all(
        isinstance(versions.get(package), str) and _distribution_present(package, versions[package])
        for package in ("pygls", "lsprotocol")
    )


def build_answer(message: dict[str, Any], description: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """pygls's result for this ``initialize`` request, or None when it cannot be known here."""
    if description is None:
        description = load_description()
        if description is None or not installed_matches(description):
            return None
    if message.get("jsonrpc") != "2.0" or message.get("method") != "initialize":
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    if isinstance(request_id, int) and not LSP_INT_MIN <= request_id <= LSP_INT_MAX:
        return None
    params = message.get("params")
    schema = description.get("schema")
    if not isinstance(params, dict) or not isinstance(schema, dict):
        return None
    defs = schema.get("defs")
    try:
        if not isinstance(defs, dict):
            raise _Misfit
        _check(params, schema.get("root"), defs, 0)
        for name, value in message.items():
            if name not in ("jsonrpc", "method", "id", "params"):
                _plain(value, 1)
    except (_Misfit, RecursionError):
        return None
    variables = description.get("variables")
    answers = description.get("answers")
    if not isinstance(variables, list) or not isinstance(answers, dict):
        return None
    values: dict[str, str] = {}
    for name in variables:
        extract = VARIABLES.get(name) if isinstance(name, str) else None
        if extract is None:
            return None
        values[name] = extract(params)
    answer = answers.get(answer_key(variables, values))
    return answer if isinstance(answer, dict) and isinstance(answer.get("capabilities"), dict) else None
