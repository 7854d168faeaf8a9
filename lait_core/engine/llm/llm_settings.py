"""LLM settings resolution (docs/workflows.md).

Every LLM key falls back on its own: the caller's layers in order (a step, its agent definition,
the workflow's ``default:``; or chat's CLI flags; or an agent's frontmatter), then
``lait.config.yml``'s ``default:``, then the builtin. ``system``, ``retry`` and ``timeout`` are
not LLM keys and never fall back to the config: callers handle them.

A list key (``mcp``, ``tools``, ``skills``, ``subagents``) set to ``[]`` in a layer is a value:
it wins and offers nothing (so an agent can opt out of ``default.tools``). Chat turns an absent
CLI flag into "not set", so an empty flag list still falls back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lait_core.documents.document_models import Config, DefaultSettings, LlmKeys, ModelDefinition
from lait_core.engine.llm.chat_types import ConfigurationError, Sampling
from lait_core.engine.llm.model_resolution import (
    ResolvedModel,
    check_request_ranges,
    resolve_model,
    resolve_sampling,
)
from lait_core.engine.run.tool_loop import DEFAULT_MAX_TOOL_ROUNDS

Layer = LlmKeys | DefaultSettings | None

DEFAULT_NOTE = "set 'model' or default.model in lait.config.yml"


@dataclass(frozen=True, slots=True)
class LlmSettings:
    """What one LLM call uses, fully resolved."""

    model: ResolvedModel
    sampling: Sampling
    max_tool_rounds: int
    mcp: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    subagents: tuple[str, ...] = ()
    skill_progressive_disclosure: bool = False

    @property
    def uses_tools(self) -> bool:
        """Whether the request enters the tool loop (docs/workflows.md)."""
        return bool(
            self.mcp or self.tools or self.subagents or (self.skill_progressive_disclosure and self.skills)
        )


def _first(key: str, layers: Sequence[Layer]) -> object:
    for layer in layers:
        if layer is None:
            continue
        value = getattr(layer, key, None)
        if value is not None:
            return value
    return None


def _names(key: str, layers: Sequence[Layer]) -> tuple[str, ...]:
    value = _first(key, layers)
    if value is None:
        return ()
    assert isinstance(value, list)
    return tuple(str(v) for v in value)


def resolve_llm_settings(
    label: str,
    layers: Sequence[Layer],
    config: Config,
    *,
    workflow_models: Mapping[str, Sequence[ModelDefinition]] | None = None,
    note: str = "",
    base_url_override: str | None = None,
    api_key_override: str | None = None,
) -> LlmSettings:
    """Resolve the LLM keys of ``label`` (e.g. ``step 'summarize'``, ``agent 'reviewer'``).

    ``note`` completes the missing-model error (``model is required for <label>; <note>``).
    ``base_url_override``/``api_key_override`` are chat's ``--base-url``/``--api-key``.
    Raises :class:`ConfigurationError` for a missing model or an out-of-range value.
    """
    chain: list[Layer] = [*layers, config.default]
    name = _first("model", chain)
    if not isinstance(name, str) or not name.strip():
        raise ConfigurationError(f"model is required for {label}; {note or DEFAULT_NOTE}")
    model = resolve_model(
        name,
        config,
        workflow_models=workflow_models,
        base_url_override=base_url_override,
        api_key_override=api_key_override,
    )
    own = [
        Sampling(
            getattr(layer, "reasoning_effort", None),
            getattr(layer, "temperature", None),
            getattr(layer, "top_p", None),
            getattr(layer, "max_tokens", None),
        )
        for layer in layers
        if layer is not None
    ]
    sampling = resolve_sampling(*own, model=model, config_default=config.default)
    rounds = _first("max_tool_rounds", chain)
    max_tool_rounds = rounds if isinstance(rounds, int) else DEFAULT_MAX_TOOL_ROUNDS
    check_request_ranges(model.model_id, sampling, max_tool_rounds)
    return LlmSettings(
        model=model,
        sampling=sampling,
        max_tool_rounds=max_tool_rounds,
        mcp=_names("mcp", chain),
        tools=_names("tools", chain),
        skills=_names("skills", chain),
        subagents=_names("subagents", chain),
        skill_progressive_disclosure=bool(config.default.skill_progressive_disclosure),
    )
