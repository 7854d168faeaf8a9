"""A test file (spec tools-mcp-cli 7.6): ``workflow``, ``input``, ``inputs``, ``replay``, ``assert``.

Read with lait's located YAML reader and validated by pydantic models that forbid unknown keys, so
every problem is a diagnostic with its line and column, like every other lait file. Assertions are
mappings with a ``type`` key (``equals``, ``contains``, ``jq``, ``llm_judge``, ``tool_called``,
``usage``, ``step_output``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from lait_core.diagnostics import Diagnostic
from lait_core.documents.validate import Codes, validate_mapping
from lait_core.source.files import read_source
from lait_core.source.tree import ScalarNode
from lait_core.source.yaml import parse_yaml

CODES = Codes(unknown="", invalid="", by_field=(), elsewhere=frozenset())
"""Test files are no lint kind yet: their diagnostics carry no rule code."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Equals(_Strict):
    type: Literal["equals"]
    value: Any


class Contains(_Strict):
    type: Literal["contains"]
    value: str


class Jq(_Strict):
    type: Literal["jq"]
    expr: str


class LlmJudge(_Strict):
    type: Literal["llm_judge"]
    criteria: str
    model: str | None = None
    threshold: float = 0.7


class ToolCalled(_Strict):
    type: Literal["tool_called"]
    name: str
    min: int = Field(default=1, ge=0)
    max: int | None = Field(default=None, ge=0)
    args_jq: str | None = None


class UsageBounds(_Strict):
    type: Literal["usage"]
    max_prompt_tokens: int | None = None
    max_completion_tokens: int | None = None
    max_total_tokens: int | None = None
    max_cost_usd: float | None = None


class StepOutput(_Strict):
    type: Literal["step_output"]
    id: str
    assert_: list[Assertion] = Field(alias="assert")


Assertion = Annotated[
    Union[Equals, Contains, Jq, LlmJudge, ToolCalled, UsageBounds, StepOutput],  # noqa: UP007
    Field(discriminator="type"),
]
StepOutput.model_rebuild()


class TestDefinition(_Strict):
    __test__ = False  # not a pytest class

    workflow: str
    input: Any = None
    inputs: dict[str, Any] | None = None
    replay: str
    assert_: list[Assertion] = Field(default_factory=list, alias="assert")


def parse_test(text: str, path: str) -> tuple[TestDefinition | None, list[Diagnostic]]:
    """The definition, or None and the located problems."""
    parsed = parse_yaml(text, path)
    out = list(parsed.problems)
    if not parsed.ok:
        return None, out
    root = parsed.root
    if root is None or (isinstance(root, ScalarNode) and root.value is None):
        root_value: dict[str, Any] = {}
        try:
            return TestDefinition.model_validate(root_value), out
        except Exception:
            pass
        from lait_core.source.positions import Position, Range

        zero = Range(Position(0, 0), Position(0, 0))
        return None, [*out, Diagnostic("", "a test file needs 'workflow' and 'replay'", zero)]
    model = validate_mapping(root, TestDefinition, CODES, out, where="the test file")
    return (model if not out else None), out


def load_test(path: Path) -> tuple[TestDefinition | None, list[Diagnostic]]:
    loaded = read_source(path)
    if loaded.text is None:
        assert loaded.problem is not None
        return None, [loaded.problem]
    return parse_test(loaded.text, str(path))
