"""What a plain chat's first request takes from the config files, read without pydantic: how a chat
in a project with a ``lait.config.yml`` is sent ahead too (docs/decisions.md, "Send-ahead").

:mod:`lait_cli.support.send_ahead` computes a chat's first request at start-up. With a config file
in effect, that request also depends on the config: the model alias and its endpoint and key, the
top-level ``base_url`` and ``api_key`` (``${VAR}`` expanded from the environment, ``./.env``
included), the sampling defaults of the alias and of ``default:``, and ``default.system``.
:func:`read_chat_config` reads the files with lait's YAML subset reader
(:mod:`lait_core.syntax.yaml.subset_reader`: plain YAML, read as the full reader reads it, in a
fraction of the full reader's import time) or, for anything else, with the full reader
(:func:`lait_core.syntax.yaml.parse.parse_yaml`, the one the config loader uses), merges them as :func:`lait_core.documents.config_file.merge` does, and
:func:`resolve` picks the endpoint, key and sampling as
:func:`lait_core.engine.llm.model_resolution.resolve_model` and
:func:`lait_core.engine.llm.model_resolution.resolve_sampling` do.

It understands a config only when every key that can change a plain chat's first request is one it
reads fully; anything else raises :class:`NotUnderstood` and nothing is sent ahead (the normal path
does everything, as without send-ahead):

- an unknown key anywhere it looks, a value of another type than the config models allow, a YAML
  problem, or a file that cannot be read;
- tools, MCP servers, subagents or skills in ``default:`` (the request would carry tools or the
  skills' text), the response cache (``default.cache: true``: the answer may come from it),
  ``default.compaction``;
- an alias with fallback entries, a ``gguf`` or an ``api: responses`` entry, an ``api_key_cmd``
  that the chosen endpoint would run, the embedded model.

The sections that a plain chat does not read (``mcp_servers``, ``tools``, ``agents``, ``skills``,
``prompts``, ``workflows``, ``tool_policy``, ``jev``, ``approvals``, ``serve``, ``lint``,
``confine``) are checked for their kind only. A config the normal path then rejects (exit 3) has
cost one request to a loopback server, sent where that config names: the engine uses a held answer
only for its own request, byte for byte, so the answer and exit code never differ.

Standard library only (and, for YAML beyond the subset, lait's full reader, which is tree-sitter's):
no pydantic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lait_core.documents.envvars import EnvVarError, expand
from lait_core.engine.llm.chat_types import REASONING_EFFORTS, U32_MAX, Sampling
from lait_core.engine.llm.wire import DEFAULT_BASE_URL

EMBEDDED_ALIAS = "embedded"
"""The built-in model (:data:`lait_core.engine.embedded.locate.BUILTIN_ALIAS`; a test keeps them
equal): answered in-process, never sent ahead."""

INERT_SECTIONS = frozenset(
    {"mcp_servers", "tools", "agents", "skills", "prompts", "workflows", "tool_policy", "jev", "approvals"}
    | {"serve", "lint"}
)
"""Top-level sections a plain chat (no ``--tool``/``--mcp``/``--subagent``/``-p``) never reads: each
must be a mapping, and is not read further."""
NAME_LISTS = ("mcp", "tools", "subagents", "skills")
"""``default:`` lists that would add tools or text to the request: only absent or empty is read."""
DEFINITION_KEYS = frozenset(
    {
        "provider",
        "model_id",
        "default_reasoning_effort",
        "default_temperature",
        "default_top_p",
        "default_max_tokens",
        "pricing",
        "api",
        "context_window",
    }
)
PROVIDER_KEYS = frozenset({"base_url", "gguf", "api_key", "api_key_cmd"})


class NotUnderstood(Exception):
    """The config holds something this module does not read fully: send nothing ahead."""


@dataclass(slots=True)
class ChatConfig:
    """The merged keys of the config files that a plain chat's first request depends on."""

    base_url: str | None = None
    api_key: str | None = None
    api_key_cmd: bool = False
    """An ``api_key_cmd`` is set at the top level (its command is never run here)."""
    default: dict[str, Any] = field(default_factory=dict)
    models: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def _check_range(value: object, low: float, high: float, where: str) -> None:
    if value is None:
        return
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        raise NotUnderstood(where)
    if not low <= value <= high:
        raise NotUnderstood(where)


def _check_count(value: object, where: str) -> None:
    if value is not None and not (
        isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= U32_MAX
    ):
        raise NotUnderstood(where)


def _check_effort(value: object, where: str) -> None:
    if value is not None and value not in REASONING_EFFORTS:
        raise NotUnderstood(where)


def _check_str(value: object, where: str) -> None:
    if value is not None and not isinstance(value, str):
        raise NotUnderstood(where)


def _check_bool(value: object, where: str) -> None:
    if value is not None and not isinstance(value, bool):
        raise NotUnderstood(where)


def _check_default(default: object) -> dict[str, Any]:
    if not isinstance(default, dict):
        raise NotUnderstood("default")
    for key, value in default.items():
        where = f"default.{key}"
        if key in ("model", "system"):
            _check_str(value, where)
        elif key == "reasoning_effort":
            _check_effort(value, where)
        elif key == "temperature":
            _check_range(value, 0.0, 2.0, where)
        elif key == "top_p":
            _check_range(value, 0.0, 1.0, where)
        elif key == "max_tokens":
            _check_count(value, where)
        elif key in NAME_LISTS:
            if value not in (None, []):
                raise NotUnderstood(where)  # tools or skills change the request
        elif key in ("max_tool_rounds", "cache_ttl"):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise NotUnderstood(where)
        elif key in ("render", "history", "skill_progressive_disclosure"):
            _check_bool(value, where)
        elif key == "cache":
            if value not in (None, False):
                raise NotUnderstood(where)  # the answer may come from the response cache
        elif key != "compaction" or value is not None:
            raise NotUnderstood(where)
    return default


def _check_definition(definition: object, where: str) -> dict[str, Any]:
    if not isinstance(definition, dict) or not set(definition) <= DEFINITION_KEYS:
        raise NotUnderstood(where)
    provider = definition.get("provider")
    if not isinstance(provider, dict) or not set(provider) <= PROVIDER_KEYS:
        raise NotUnderstood(f"{where}.provider")
    if provider.get("gguf") is not None or not isinstance(provider.get("base_url"), str):
        raise NotUnderstood(f"{where}.provider")  # an embedded model, or no server
    _check_str(provider.get("api_key"), f"{where}.provider.api_key")
    model_id = definition.get("model_id")
    if not isinstance(model_id, str) or not model_id.strip():
        raise NotUnderstood(f"{where}.model_id")
    if definition.get("api", "chat_completions") != "chat_completions":
        raise NotUnderstood(f"{where}.api")
    _check_effort(definition.get("default_reasoning_effort"), where)
    _check_range(definition.get("default_temperature"), 0.0, 2.0, where)
    _check_range(definition.get("default_top_p"), 0.0, 1.0, where)
    _check_count(definition.get("default_max_tokens"), where)
    return definition


def _check_models(models: object) -> dict[str, list[dict[str, Any]]]:
    if not isinstance(models, dict):
        raise NotUnderstood("models")
    checked: dict[str, list[dict[str, Any]]] = {}
    for alias, definitions in models.items():
        if not isinstance(alias, str) or not isinstance(definitions, list) or not definitions:
            raise NotUnderstood("models")
        checked[alias] = [
            _check_definition(d, f"models.{alias}[{number}]") for number, d in enumerate(definitions)
        ]
    return checked


READ_SECTIONS = ("base_url", "api_key", "api_key_cmd", "default", "models", "confine")
"""The top-level keys whose values are read; of the others (:data:`INERT_SECTIONS`), the kind."""


def _document(text: str, path: Path) -> dict[str, Any]:
    """The top-level mapping: the read sections' values, the others' kinds (``"mapping"`` or
    ``"other"``). The plain YAML most configs are written in is read by the subset reader (no
    import of the full reader before the request leaves); anything else by the full reader."""
    from lait_core.syntax.yaml.subset_reader import NotInSubset, read_subset

    try:
        return read_subset(text, READ_SECTIONS)
    except NotInSubset:
        pass
    from lait_core.syntax.yaml.parse import parse_yaml
    from lait_core.syntax.yaml.tree import MappingNode, ScalarNode

    parsed = parse_yaml(text, str(path))
    if parsed.problems or not parsed.ok:
        raise NotUnderstood("YAML")
    root = parsed.root
    if root is None or (isinstance(root, ScalarNode) and root.value is None):
        return {}
    if not isinstance(root, MappingNode):
        raise NotUnderstood("not a mapping")
    return {
        key: value if key in READ_SECTIONS else "mapping" if isinstance(value, dict) else "other"
        for key, value in root.to_python().items()
    }


def _read_file(path: Path) -> dict[str, Any]:
    """One config file's top-level mapping, checked as far as a plain chat reads it."""
    from lait_core.syntax.bounded_read import read_source

    loaded = read_source(path)
    if loaded.text is None:
        raise NotUnderstood("unreadable")
    document = _document(loaded.text, path)
    for key, value in document.items():
        if key in ("base_url", "api_key"):
            _check_str(value, key)
        elif key == "api_key_cmd":
            if value is not None and not isinstance(value, str | list):
                raise NotUnderstood(key)
        elif key == "default":
            _check_default(value)
        elif key == "models":
            _check_models(value)
        elif key == "confine":
            if value not in (None, "project", "none"):
                raise NotUnderstood(key)
        elif key in INERT_SECTIONS:
            if value != "mapping":
                raise NotUnderstood(key)
        else:
            raise NotUnderstood(f"unknown key {key!r}")
    return document


def read_chat_config(paths: list[Path]) -> ChatConfig:
    """The config files in effect, lowest first (the global file, then the project's), merged as
    the config loader merges them; :class:`NotUnderstood` for anything this module does not read."""
    merged = ChatConfig()
    for path in paths:
        document = _read_file(path)
        if "base_url" in document:
            merged.base_url = document["base_url"]
        if "api_key" in document or "api_key_cmd" in document:
            merged.api_key = document.get("api_key")
            merged.api_key_cmd = document.get("api_key_cmd") is not None
        merged.default.update(document.get("default") or {})
        merged.models.update(document.get("models") or {})
    return merged


@dataclass(frozen=True, slots=True)
class Target:
    """Where a plain chat's first request goes and what the config adds to it."""

    base_url: str
    api_key: str | None
    model_id: str
    sampling: Sampling
    system: str | None


def _expand(value: str, environ: Mapping[str, str] | None) -> str:
    try:
        return expand(value, environ)
    except EnvVarError:
        raise NotUnderstood("${VAR}") from None  # the engine reports it


def _first(*values: Any) -> Any:
    return next((value for value in values if value is not None), None)


def resolve(
    config: ChatConfig,
    *,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    sampling: Sampling,
    system: str | None,
    system_given: bool,
    environ: Mapping[str, str] | None = None,
) -> Target:
    """The endpoint, key, model id, sampling and system prompt of a chat with these command-line
    values (``model``, ``base_url``, ``api_key``: the option or its environment variable, None when
    absent; ``system_given``: ``--system`` was given, possibly empty)."""
    default = config.default
    name = model if model is not None else default.get("model")
    if not isinstance(name, str) or not name.strip() or name == EMBEDDED_ALIAS:
        raise NotUnderstood("no model, or the embedded one")
    if config.api_key is not None and config.api_key_cmd:
        raise NotUnderstood("api_key and api_key_cmd")

    def top_level_key() -> str | None:
        if config.api_key_cmd:
            raise NotUnderstood("api_key_cmd")
        return None if config.api_key is None else _expand(config.api_key, environ)

    definitions = config.models.get(name)
    alias: dict[str, Any] = {}
    if definitions is None:
        key = api_key if api_key is not None else top_level_key()
        if base_url is not None:
            url = base_url
        elif config.base_url is not None:
            url = _expand(config.base_url, environ)
        else:
            url = DEFAULT_BASE_URL
        model_id = name
    else:
        primary = definitions[0]
        provider = primary["provider"]
        if any(
            d["provider"].get("api_key") is not None and d["provider"].get("api_key_cmd") is not None
            for d in definitions
        ):
            raise NotUnderstood("api_key and api_key_cmd")
        if base_url is None and api_key is None and len(definitions) != 1:
            raise NotUnderstood("fallback entries")
        if api_key is not None:
            key = api_key
        elif provider.get("api_key") is not None:
            key = _expand(provider["api_key"], environ)
        elif provider.get("api_key_cmd") is not None:
            raise NotUnderstood("api_key_cmd")
        else:
            key = top_level_key()
        url = base_url if base_url is not None else _expand(provider["base_url"], environ)
        model_id = primary["model_id"]
        alias = primary
    url = url.rstrip("/")
    if not url:
        raise NotUnderstood("empty base URL")
    effort = _first(
        sampling.reasoning_effort, alias.get("default_reasoning_effort"), default.get("reasoning_effort")
    )
    temperature = _first(sampling.temperature, alias.get("default_temperature"), default.get("temperature"))
    top_p = _first(sampling.top_p, alias.get("default_top_p"), default.get("top_p"))
    max_tokens = _first(sampling.max_tokens, alias.get("default_max_tokens"), default.get("max_tokens"))
    resolved = Sampling(
        effort,
        None if temperature is None else float(temperature),
        None if top_p is None else float(top_p),
        max_tokens,
    )
    return Target(url, key, model_id, resolved, system if system_given else default.get("system"))
