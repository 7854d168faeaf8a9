"""Model resolution, endpoint and key precedence, ``${VAR}`` laziness and ``api_key_cmd``
(docs/config.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from lait_core.documents.document_models import Config, DefaultSettings, ModelDefinition
from lait_core.engine.llm.chat_types import ConfigurationError, Sampling
from lait_core.engine.llm.model_resolution import (
    KeyResolver,
    KeySource,
    check_request_ranges,
    resolve_model,
    resolve_sampling,
)
from lait_core.engine.llm.wire import DEFAULT_BASE_URL


def cfg(**values: Any) -> Config:
    return Config.model_validate(values)


def alias(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"models": {"m": list(entries)}}


def entry(url: str = "http://alias/v1", model_id: str = "alias-id", **provider: Any) -> dict[str, Any]:
    return {"provider": {"base_url": url, **provider}, "model_id": model_id}


ENV = {"HOST": "example.org", "KEY": "secret", "EMPTY": ""}


# -- base URL ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("config", "override", "expected"),
    [
        ({}, None, DEFAULT_BASE_URL),
        ({"base_url": "http://top/v1/"}, None, "http://top/v1"),
        ({"base_url": "http://${HOST}/v1"}, None, "http://example.org/v1"),
        ({"base_url": "http://top/v1"}, "http://flag/v1//", "http://flag/v1"),
        (
            {"base_url": "http://top/v1", **alias(entry("http://${HOST}/alias///"))},
            None,
            "http://example.org/alias",
        ),
        (
            {"base_url": "http://top/v1", **alias(entry())},
            "http://${HOST}",
            "http://${HOST}",
        ),  # never expanded
    ],
)
def test_base_url_precedence(config: dict[str, Any], override: str | None, expected: str) -> None:
    name = "m" if "models" in config else "raw-id"
    model = resolve_model(name, cfg(**config), base_url_override=override)
    assert model.endpoints[0].base_url(ENV) == expected


def test_empty_base_url_is_an_error() -> None:
    model = resolve_model("x", cfg(base_url="///"))
    with pytest.raises(ConfigurationError, match="base URL must not be empty"):
        model.endpoints[0].base_url(ENV)


def test_raw_model_id_and_alias() -> None:
    raw = resolve_model("gpt-x", cfg(**alias(entry())))
    assert (raw.alias, raw.model_id, raw.primary) == (None, "gpt-x", None)
    aliased = resolve_model("m", cfg(**alias(entry(), entry("http://b", "b-id"))))
    assert aliased.model_id == "alias-id" and aliased.fallback_enabled
    assert [e.model_id for e in aliased.endpoints] == ["alias-id", "b-id"]


def test_workflow_models_win_over_config() -> None:
    workflow = {"m": [ModelDefinition.model_validate(entry(model_id="from-workflow"))]}
    assert resolve_model("m", cfg(**alias(entry())), workflow_models=workflow).model_id == "from-workflow"


@pytest.mark.parametrize(
    ("name", "config", "message"),
    [
        ("  ", {}, "model name must not be empty"),
        ("m", {"models": {"m": [entry(model_id=" ")]}}, 'model_id in model definition "m" must not be empty'),
        (
            "m",
            alias(entry(), entry(api_key="a", api_key_cmd="b")),  # an unused fallback entry is validated too
            "model definition \"m\" sets both 'api_key' and 'api_key_cmd'; set exactly one",
        ),
        (
            "raw",
            {"api_key": "a", "api_key_cmd": "b"},
            "top-level configuration sets both 'api_key' and 'api_key_cmd'; set exactly one",
        ),
    ],
)
def test_resolution_errors(name: str, config: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        resolve_model(name, cfg(**config))
    assert str(info.value) == message


def test_empty_alias_list_is_an_error_at_use() -> None:
    config = Config.model_construct(models={"m": []})
    with pytest.raises(ConfigurationError, match='model definition "m" must contain at least one entry'):
        resolve_model("m", config)


def test_top_level_pair_is_checked_even_when_an_override_wins() -> None:
    config = Config.model_construct(api_key="a", api_key_cmd="b")
    with pytest.raises(ConfigurationError, match="top-level configuration sets both"):
        resolve_model("x", config, api_key_override="flag")


# -- keys -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("config", "override", "expected"),
    [
        ({}, None, None),
        ({"api_key": "${KEY}"}, None, "secret"),
        ({"api_key": "${KEY}"}, "${KEY}", "${KEY}"),  # the flag is never expanded
        ({"api_key_cmd": "echo top-cmd"}, None, "top-cmd"),
        ({"api_key": "top", **alias(entry(api_key="provider"))}, None, "provider"),
        ({"api_key": "top", **alias(entry(api_key_cmd=["echo", "provider-cmd"]))}, None, "provider-cmd"),
        ({"api_key": "top", **alias(entry())}, None, "top"),
        ({"api_key_cmd": "echo top-cmd", **alias(entry())}, None, "top-cmd"),
        ({"api_key": "top", **alias(entry(api_key="provider"))}, "flag", "flag"),
        ({"api_key": "${EMPTY}"}, None, ""),
    ],
)
async def test_key_precedence(config: dict[str, Any], override: str | None, expected: str | None) -> None:
    name = "m" if "models" in config else "raw"
    model = resolve_model(name, cfg(**config), api_key_override=override)
    assert await KeyResolver(ENV).resolve(model.endpoints[0].key) == expected


async def test_unset_variables_in_losing_layers_are_no_error() -> None:
    config = cfg(base_url="http://${UNSET_A}/v1", api_key="${UNSET_B}", **alias(entry(api_key="provider")))
    model = resolve_model("m", config)
    assert model.endpoints[0].base_url(ENV) == "http://alias/v1"
    assert await KeyResolver(ENV).resolve(model.endpoints[0].key) == "provider"
    # ... and errors, naming the variable, when they win
    raw = resolve_model("raw", config)
    with pytest.raises(
        ConfigurationError, match="environment variable 'UNSET_A' referenced by '\\$\\{UNSET_A\\}'"
    ):
        raw.endpoints[0].base_url(ENV)
    with pytest.raises(ConfigurationError, match="'UNSET_B'"):
        await KeyResolver(ENV).resolve(raw.endpoints[0].key)


def test_log_kind_never_reveals_the_key() -> None:
    assert KeySource("literal", "sk").log_kind == "literal"
    assert KeySource("override", "sk").log_kind == "literal"
    assert KeySource("command", "pass x").log_kind == "command"
    assert KeySource("absent").log_kind == "absent"


# -- api_key_cmd ------------------------------------------------------------------------------
async def test_key_command_is_cached_per_spec_and_strips_one_line_ending(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    spec = f"echo run >> {counter}; printf 'key\\n\\n'"
    resolver = KeyResolver()
    assert await resolver.resolve(KeySource("command", spec)) == "key\n"
    assert await KeyResolver().resolve(KeySource("command", spec)) == "key\n"  # process-wide cache
    assert counter.read_text() == "run\n"
    # a different spec is a different cache entry
    assert await resolver.resolve(KeySource("command", ("printf", "k2\r\n"))) == "k2"


async def test_key_command_failures_are_not_cached_and_hide_stderr(tmp_path: Path) -> None:
    flag = tmp_path / "ok"
    spec = f"if [ -e {flag} ]; then echo good; else echo TOPSECRET >&2; exit 3; fi"
    resolver = KeyResolver()
    with pytest.raises(ConfigurationError) as info:
        await resolver.resolve(KeySource("command", spec))
    assert "TOPSECRET" not in str(info.value)
    assert str(info.value) == (
        "'api_key_cmd' of the top-level configuration failed with exit status: 3 (its stderr is not shown)"
    )
    flag.touch()
    assert await resolver.resolve(KeySource("command", spec)) == "good"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("true", "printed nothing"),
        ((), "is an empty list"),
        (("/nonexistent/prog",), "failed to spawn '/nonexistent/prog'"),
        (f"{sys.executable} -c 'print(\"x\" * 70000)'", "wrote more than 64 KiB to stdout"),
        (
            f"{sys.executable} -c 'import sys; sys.stderr.write(\"x\" * 70000)'",
            "wrote more than 64 KiB to stderr",
        ),
    ],
)
async def test_key_command_errors(spec: str | tuple[str, ...], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        await KeyResolver().resolve(KeySource("command", spec, 'model definition "m"'))


async def test_key_command_timeout() -> None:
    with pytest.raises(ConfigurationError, match=r"timed out after 0\.2s"):
        await KeyResolver(timeout=0.2).resolve(KeySource("command", "sleep 5"))


# -- sampling ---------------------------------------------------------------------------------
def test_sampling_chain_falls_back_field_by_field() -> None:
    config = cfg(**alias({**entry(), "default_temperature": 0.3, "default_max_tokens": 50}))
    model = resolve_model("m", config)
    default = DefaultSettings(temperature=1.0, top_p=0.5, reasoning_effort="high")
    caller = Sampling(max_tokens=10)
    assert resolve_sampling(caller, model=model, config_default=default) == Sampling("high", 0.3, 0.5, 10)
    assert resolve_sampling(model=resolve_model("raw", config), config_default=default) == Sampling(
        "high", 1.0, 0.5, None
    )


@pytest.mark.parametrize(
    ("sampling", "rounds", "message"),
    [
        (
            Sampling(temperature=2.5),
            None,
            "the request for model 'x' has 'temperature: 2.5'; it must be between 0.0 and 2.0",
        ),
        (
            Sampling(top_p=3.0),
            None,
            "the request for model 'x' has 'top_p: 3'; it must be between 0.0 and 1.0",
        ),
        (
            Sampling(max_tokens=0),
            None,
            "the request for model 'x' has 'max_tokens: 0'; it must be at least 1",
        ),
        (Sampling(), 0, "the request for model 'x' has 'max_tool_rounds: 0'; it must be at least 1"),
    ],
)
def test_range_checks(sampling: Sampling, rounds: int | None, message: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        check_request_ranges("x", sampling, rounds)
    assert str(info.value) == message
