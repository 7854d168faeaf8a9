"""resolve_llm_settings (docs/config.md, "default:"): each field falls back independently, model
required, workflow aliases first, range checks, and the capability lists."""

from __future__ import annotations

import pytest

from lait_core.documents.document_models import (
    AgentFrontmatter,
    Config,
    LlmKeys,
    ModelDefinition,
    WorkflowDefaults,
)
from lait_core.engine.llm.chat_types import ConfigurationError
from lait_core.engine.llm.llm_settings import resolve_llm_settings


def _config(**data: object) -> Config:
    return Config.model_validate(data)


def test_each_field_falls_back_on_its_own() -> None:
    config = _config(
        default={"model": "cfg-model", "temperature": 0.1, "top_p": 0.5, "tools": ["t"], "max_tool_rounds": 3}
    )
    step = LlmKeys(temperature=0.9)
    agent = AgentFrontmatter(model="agent-model", mcp=["srv"])
    workflow = WorkflowDefaults(max_tokens=77, max_tool_rounds=5)
    s = resolve_llm_settings("step 'x'", [step, agent, workflow], config)
    assert s.model.model_id == "agent-model"
    assert s.sampling.temperature == 0.9
    assert s.sampling.top_p == 0.5
    assert s.sampling.max_tokens == 77
    assert s.max_tool_rounds == 5
    assert s.mcp == ("srv",)
    assert s.tools == ("t",)
    assert s.skills == () and s.subagents == ()
    assert s.uses_tools


def test_builtin_defaults_and_empty_list_wins() -> None:
    config = _config(default={"model": "m", "tools": ["t"], "skills": ["k"]})
    s = resolve_llm_settings("agent 'a'", [AgentFrontmatter(tools=[])], config)
    assert s.max_tool_rounds == 8
    assert s.tools == ()
    assert s.skills == ("k",)
    assert not s.uses_tools  # skills without progressive disclosure use no tools
    progressive = _config(default={"model": "m", "skills": ["k"], "skill_progressive_disclosure": True})
    assert resolve_llm_settings("chat", [], progressive).uses_tools


def test_model_is_required_with_the_label_and_note() -> None:
    with pytest.raises(ConfigurationError) as info:
        resolve_llm_settings(
            "step 'summarize'",
            [LlmKeys()],
            _config(),
            note="set 'model' on the step, the workflow's default.model, or default.model in lait.config.yml",
        )
    assert str(info.value) == (
        "model is required for step 'summarize'; set 'model' on the step, the workflow's default.model, "
        "or default.model in lait.config.yml"
    )


def test_workflow_aliases_win_over_config_aliases() -> None:
    config = _config(
        models={"fast": [{"provider": {"base_url": "http://config.invalid/v1"}, "model_id": "config-fast"}]},
        default={"model": "fast"},
    )
    wf = {
        "fast": [
            ModelDefinition.model_validate(
                {
                    "provider": {"base_url": "http://wf.invalid/v1"},
                    "model_id": "wf-fast",
                    "default_temperature": 0.3,
                }
            )
        ]
    }
    s = resolve_llm_settings("step 'a'", [], config, workflow_models=wf)
    assert s.model.model_id == "wf-fast"
    assert s.sampling.temperature == 0.3  # the alias's default_* sit between the layers and config default
    assert resolve_llm_settings("step 'a'", [], config).model.model_id == "config-fast"


def test_range_checks_after_resolution() -> None:
    config = Config.model_construct(
        default=Config().default.model_copy(update={"model": "m", "temperature": 3.0})
    )
    with pytest.raises(ConfigurationError, match="temperature: 3"):
        resolve_llm_settings("chat", [], config)
