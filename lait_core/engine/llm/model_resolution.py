"""Model resolution: alias lookup, fallback candidates, endpoint and API-key precedence
(docs/config.md), and ``api_key_cmd`` execution.

Laziness is the rule: the *source* of a base URL or key is chosen first and only the winner is
``${VAR}``-expanded, when it is used (an unset variable in a losing layer is no error). A
fallback candidate's URL and key are resolved only when that candidate is tried. The one eager
check is the key pair: ``api_key`` together with ``api_key_cmd`` in one place is an error on every
resolution.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lait_core.documents.document_models import CommandSpec, Config, DefaultSettings, ModelDefinition
from lait_core.documents.envvars import EnvVarError, expand
from lait_core.engine.embedded.locate import BUILTIN_ALIAS, BUILTIN_MODEL_ID, builtin_gguf
from lait_core.engine.llm.chat_types import ConfigurationError, Sampling
from lait_core.engine.llm.wire import DEFAULT_BASE_URL
from lait_core.engine.processes.spawn import OutputLimitExceeded, ProcessError, ProcessTimeout, run_process

EMBEDDED_ALIAS = BUILTIN_ALIAS
"""The built-in model name: SmolLM2-135M-Instruct run in-process (unless ``models:`` defines it)."""
KEY_COMMAND_TIMEOUT = 30.0
KEY_COMMAND_LIMIT = 64 * 1024
TOP_LEVEL = "top-level configuration"


def _definition_context(alias: str) -> str:
    return f'model definition "{alias}"'


@dataclass(frozen=True, slots=True)
class KeySource:
    """Where an endpoint's API key comes from; resolved by :class:`KeyResolver`."""

    kind: Literal["override", "literal", "command", "absent"]
    value: str | tuple[str, ...] | None = None
    context: str = TOP_LEVEL

    @property
    def log_kind(self) -> str:
        """What ``-v`` may print: ``literal``, ``command`` or ``absent`` -- never the value."""
        return "literal" if self.kind in ("override", "literal") else self.kind


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One candidate: base URL (expanded lazily), key source and model id -- or, for the embedded
    transport, a GGUF file (``gguf``; the built-in model when ``builtin_model``)."""

    raw_base_url: str
    model_id: str
    key: KeySource
    expand_base_url: bool = True
    context: str = TOP_LEVEL
    gguf: str | None = None
    """A GGUF file run in-process (absolute once the config loader joined it)."""
    builtin_model: bool = False
    """The built-in embedded model (``--model embedded``), located when first used."""
    default_url: bool = False
    """The built-in LM Studio URL, used because nothing else is configured."""

    @property
    def embedded(self) -> bool:
        return self.gguf is not None or self.builtin_model

    def gguf_file(self) -> Path:
        """The GGUF file of an embedded endpoint (a :class:`ConfigurationError` when the built-in
        model is not installed)."""
        if self.gguf is None:
            return builtin_gguf()
        path = Path(self.gguf)
        if not path.is_file():
            what = "is a directory" if path.is_dir() else "does not exist"
            raise ConfigurationError(f"{self.context}: the GGUF model file '{path}' {what}")
        return path

    def base_url(self, environ: Mapping[str, str] | None = None) -> str:
        """The expanded, normalized base URL (all trailing ``/`` trimmed); ``embedded:<file>`` for
        an embedded endpoint."""
        if self.embedded:
            return f"embedded:{self.gguf_file()}"
        value = self.raw_base_url
        if self.expand_base_url:
            try:
                value = expand(value, environ)
            except EnvVarError as exc:
                raise ConfigurationError(f"{self.context}: 'base_url': {exc.message}") from None
        value = value.rstrip("/")
        if not value:
            raise ConfigurationError("base URL must not be empty")
        return value


@dataclass(frozen=True, slots=True)
class ResolvedModel:
    """A model name resolved to its endpoints: the primary first, then fallback candidates."""

    name: str
    alias: str | None
    primary: ModelDefinition | None
    """The alias's first definition: the only source of sampling defaults, pricing and ``api``."""
    endpoints: tuple[Endpoint, ...]

    @property
    def model_id(self) -> str:
        return self.endpoints[0].model_id

    @property
    def fallback_enabled(self) -> bool:
        return len(self.endpoints) > 1

    @property
    def api(self) -> str:
        return self.primary.api if self.primary is not None else "chat_completions"

    def defaults(self) -> Sampling:
        """The alias's ``default_*`` sampling values (nothing for a raw model id)."""
        p = self.primary
        if p is None:
            return Sampling()
        return Sampling(
            p.default_reasoning_effort, p.default_temperature, p.default_top_p, p.default_max_tokens
        )


def _check_pair(api_key: str | None, api_key_cmd: object, context: str) -> None:
    if api_key is not None and api_key_cmd is not None:
        raise ConfigurationError(f"{context} sets both 'api_key' and 'api_key_cmd'; set exactly one")


def _command_tuple(spec: CommandSpec) -> str | tuple[str, ...]:
    return spec if isinstance(spec, str) else tuple(spec)


def _top_level_key(config: Config) -> KeySource:
    if config.api_key is not None:
        return KeySource("literal", config.api_key, TOP_LEVEL)
    if config.api_key_cmd is not None:
        return KeySource("command", _command_tuple(config.api_key_cmd), TOP_LEVEL)
    return KeySource("absent")


def resolve_model(
    name: str,
    config: Config,
    *,
    workflow_models: Mapping[str, Sequence[ModelDefinition]] | None = None,
    base_url_override: str | None = None,
    api_key_override: str | None = None,
) -> ResolvedModel:
    """Resolve ``name`` (an alias, else a raw model id) to its endpoints.

    ``workflow_models`` (a workflow's embedded ``models:``) win over the config's aliases. A
    ``--base-url``/``--api-key`` override (or its env var) is never expanded and pins a single
    endpoint: fallback is disabled.
    """
    if not name.strip():
        raise ConfigurationError("model name must not be empty")
    _check_pair(config.api_key, config.api_key_cmd, TOP_LEVEL)
    definitions: Sequence[ModelDefinition] | None = None
    if workflow_models is not None and name in workflow_models:
        definitions = workflow_models[name]
    elif name in config.models:
        definitions = config.models[name]
    override_key = KeySource("override", api_key_override) if api_key_override is not None else None

    if definitions is None:
        key = override_key or _top_level_key(config)
        if base_url_override is not None:
            endpoint = Endpoint(base_url_override, name, key, expand_base_url=False, context="--base-url")
        elif name == EMBEDDED_ALIAS:
            endpoint = Endpoint(
                "", BUILTIN_MODEL_ID, KeySource("absent"), context="built-in model", builtin_model=True
            )
            return ResolvedModel(name, name, None, (endpoint,))
        elif config.base_url is not None:
            endpoint = Endpoint(config.base_url, name, key)
        else:
            endpoint = Endpoint(DEFAULT_BASE_URL, name, key, expand_base_url=False, default_url=True)
        return ResolvedModel(name, None, None, (endpoint,))

    context = _definition_context(name)
    if not definitions:
        raise ConfigurationError(f"{context} must contain at least one entry")
    for definition in definitions:
        if not definition.model_id.strip():
            raise ConfigurationError(f"model_id in {context} must not be empty")
        _check_pair(definition.provider.api_key, definition.provider.api_key_cmd, context)

    def key_for(definition: ModelDefinition) -> KeySource:
        provider = definition.provider
        if provider.gguf is not None:
            return KeySource("absent")
        if provider.api_key is not None:
            return KeySource("literal", provider.api_key, context)
        if provider.api_key_cmd is not None:
            return KeySource("command", _command_tuple(provider.api_key_cmd), context)
        return _top_level_key(config)

    primary = definitions[0]
    if base_url_override is not None or api_key_override is not None:
        key = override_key or key_for(primary)
        if base_url_override is not None:
            endpoint = Endpoint(
                base_url_override, primary.model_id, key, expand_base_url=False, context="--base-url"
            )
        else:
            endpoint = _definition_endpoint(primary, key, context)
        return ResolvedModel(name, name, primary, (endpoint,))
    endpoints = tuple(_definition_endpoint(d, key_for(d), context) for d in definitions)
    return ResolvedModel(name, name, primary, endpoints)


def _definition_endpoint(definition: ModelDefinition, key: KeySource, context: str) -> Endpoint:
    provider = definition.provider
    if provider.gguf is not None:
        return Endpoint("", definition.model_id, key, context=context, gguf=provider.gguf)
    if provider.base_url is None:
        raise ConfigurationError(f"{context} sets neither 'base_url' nor 'gguf' in its 'provider'")
    return Endpoint(provider.base_url, definition.model_id, key, context=context)


# -- sampling ----------------------------------------------------------------------------------
def resolve_sampling(
    *layers: Sampling, model: ResolvedModel | None = None, config_default: DefaultSettings | None = None
) -> Sampling:
    """Each field from the first layer that sets it: the caller's layers in order, then the
    alias's ``default_*``, then the config ``default:`` block."""
    chain = list(layers)
    if model is not None:
        chain.append(model.defaults())
    if config_default is not None:
        d = config_default
        chain.append(Sampling(d.reasoning_effort, d.temperature, d.top_p, d.max_tokens))

    def first(attr: str) -> object:
        for layer in chain:
            value = getattr(layer, attr)
            if value is not None:
                return value
        return None

    effort, temperature, top_p, max_tokens = (
        first(a) for a in ("reasoning_effort", "temperature", "top_p", "max_tokens")
    )
    return Sampling(
        effort if isinstance(effort, str) else None,
        float(temperature) if isinstance(temperature, int | float) else None,
        float(top_p) if isinstance(top_p, int | float) else None,
        max_tokens if isinstance(max_tokens, int) else None,
    )


def _number(value: float) -> str:
    if math.isfinite(value) and value == int(value):
        return str(int(value))
    return repr(value)


def check_request_ranges(model_id: str, sampling: Sampling, max_tool_rounds: int | None = None) -> None:
    """The range check after resolution -- the only place config/alias ranges are enforced."""

    def fail(field: str, value: object, rule: str) -> ConfigurationError:
        return ConfigurationError(
            f"the request for model '{model_id}' has '{field}: {value}'; it must be {rule}"
        )

    t, p = sampling.temperature, sampling.top_p
    if t is not None and not (0.0 <= t <= 2.0):
        raise fail("temperature", _number(t), "between 0.0 and 2.0")
    if p is not None and not (0.0 <= p <= 1.0):
        raise fail("top_p", _number(p), "between 0.0 and 1.0")
    if sampling.max_tokens is not None and sampling.max_tokens < 1:
        raise fail("max_tokens", sampling.max_tokens, "at least 1")
    if max_tool_rounds is not None and max_tool_rounds < 1:
        raise fail("max_tool_rounds", max_tool_rounds, "at least 1")


# -- API keys ----------------------------------------------------------------------------------
_COMMAND_CACHE: dict[str, str] = {}
"""Successful ``api_key_cmd`` results for the life of the process, by exact command spec."""


def clear_key_cache() -> None:
    _COMMAND_CACHE.clear()


class KeyResolver:
    """Turns a :class:`KeySource` into the key to send (``None``: no key resolved).

    Literal keys are ``${VAR}``-expanded when used; overrides never are. ``api_key_cmd`` runs
    when first needed; a success is cached per spec for the process, a failure is not. Error
    messages never include the command's stderr (it may hold secrets).
    """

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        timeout: float = KEY_COMMAND_TIMEOUT,
        limit: int = KEY_COMMAND_LIMIT,
    ) -> None:
        self._environ = environ
        self._timeout = timeout
        self._limit = limit
        self._locks: dict[str, asyncio.Lock] = {}

    async def resolve(self, source: KeySource) -> str | None:
        from lait_core.support.redact import add_secret

        key = await self._resolve(source)
        add_secret(key)  # never printed from here on (lait_core.support.redact)
        return key

    async def _resolve(self, source: KeySource) -> str | None:
        if source.kind == "absent" or source.value is None:
            return None
        if source.kind == "override":
            assert isinstance(source.value, str)
            return source.value
        if source.kind == "literal":
            assert isinstance(source.value, str)
            try:
                return expand(source.value, self._environ)
            except EnvVarError as exc:
                raise ConfigurationError(f"{source.context}: 'api_key': {exc.message}") from None
        return await self._command(source.value, source.context)

    async def _command(self, spec: str | tuple[str, ...], context: str) -> str:
        cache_key = json.dumps(spec)
        cached = _COMMAND_CACHE.get(cache_key)
        if cached is not None:
            return cached
        lock = self._locks.setdefault(cache_key, asyncio.Lock())
        async with lock:
            cached = _COMMAND_CACHE.get(cache_key)
            if cached is not None:
                return cached
            key = await self._run(spec, context)
            _COMMAND_CACHE[cache_key] = key
            return key

    async def _run(self, spec: str | tuple[str, ...], context: str) -> str:
        where = f"'api_key_cmd' of the {context}"
        if isinstance(spec, str):
            argv = ["cmd", "/C", spec] if sys.platform == "win32" else ["sh", "-c", spec]
        else:
            if not spec:
                raise ConfigurationError(f"{where} is an empty list")
            argv = list(spec)
        env = dict(self._environ) if self._environ is not None else None
        try:
            done = await run_process(argv, env=env, stdin=None, timeout=self._timeout, limit=self._limit)
        except ProcessTimeout:
            raise ConfigurationError(f"{where} timed out after {self._timeout:g}s") from None
        except OutputLimitExceeded as exc:
            raise ConfigurationError(
                f"{where} wrote more than {self._limit // 1024} KiB to {exc.stream}"
            ) from None
        except ProcessError as exc:
            raise ConfigurationError(f"{where} failed: {exc}") from None
        if done.returncode != 0:
            raise ConfigurationError(f"{where} failed with {done.status} (its stderr is not shown)")
        try:
            text = done.stdout.decode("utf-8")
        except UnicodeDecodeError:
            raise ConfigurationError(f"{where} printed output that is not UTF-8") from None
        text = strip_one_line_ending(text)
        if not text:
            raise ConfigurationError(f"{where} printed nothing")
        return text


def strip_one_line_ending(text: str) -> str:
    """Remove exactly one trailing ``\\n`` or ``\\r\\n``."""
    if text.endswith("\r\n"):
        return text[:-2]
    if text.endswith("\n"):
        return text[:-1]
    return text
