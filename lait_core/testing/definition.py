"""Test files (docs/testing.md: ``workflow``, ``input``, ``inputs``, ``replay``,
``assert``) and eval files (7.7: ``target`` and ``cases``).

Read with lait's located YAML reader and validated by pydantic models that forbid unknown keys, so
every problem is a diagnostic with its line and column, like every other lait file. Assertions are
mappings with a ``type`` key (``equals``, ``contains``, ``jq``, ``llm_judge``, ``tool_called``,
``usage``, ``step_output``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from lait_core.documents.validate import Codes, validate_mapping
from lait_core.syntax.bounded_read import read_source
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import ScalarNode

CODES = Codes(unknown="", invalid="", by_field=(), elsewhere=frozenset())
"""The diagnostics of test and eval files carry no rule code (the lint rules for these kinds, if
any, own codes of their own)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


_M = TypeVar("_M", bound=_Strict)


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


class EvalTarget(_Strict):
    """What each case runs: a workflow (``workflow``, optional ``inputs``; the case's ``input`` is
    its PROMPT) or one model call (``model`` and ``prompt``, a template rendered with
    ``{{ input }}``, sent with no system prompt). Exactly one of the two forms."""

    workflow: str | None = None
    inputs: dict[str, Any] | None = None
    model: str | None = None
    prompt: str | None = None

    @model_validator(mode="after")
    def _one_form(self) -> EvalTarget:
        if self.workflow is not None:
            if self.model is not None or self.prompt is not None:
                raise PydanticCustomError(
                    "target_form", "give either 'workflow' (and 'inputs') or 'model' and 'prompt', not both"
                )
        elif self.model is None or self.prompt is None:
            raise PydanticCustomError(
                "target_form", "needs 'workflow' (a workflow file) or both 'model' and 'prompt'"
            )
        elif self.inputs is not None:
            raise PydanticCustomError("target_form", "'inputs' goes with 'workflow'")
        return self


class EvalCase(_Strict):
    input: str
    assert_: list[Assertion] = Field(default_factory=list, alias="assert")


class EvalDefinition(_Strict):
    """An eval file: ``target`` and ``cases`` (each run ``--repeat`` times against the live model)."""

    target: EvalTarget
    cases: list[EvalCase]


def _parse(
    text: str, path: str, model: type[_M], what: str, empty: str
) -> tuple[_M | None, list[Diagnostic]]:
    parsed = parse_yaml(text, path)
    out = list(parsed.problems)
    if not parsed.ok:
        return None, out
    root = parsed.root
    if root is None or (isinstance(root, ScalarNode) and root.value is None):
        from lait_core.syntax.positions import Position, Range

        zero = Range(Position(0, 0), Position(0, 0))
        return None, [*out, Diagnostic("", empty, zero)]
    found = validate_mapping(root, model, CODES, out, where=what)
    return (found if not out else None), out


def parse_test(text: str, path: str) -> tuple[TestDefinition | None, list[Diagnostic]]:
    """The test definition, or None and the located problems."""
    return _parse(text, path, TestDefinition, "the test file", "a test file needs 'workflow' and 'replay'")


def parse_eval(text: str, path: str) -> tuple[EvalDefinition | None, list[Diagnostic]]:
    """The eval definition, or None and the located problems."""
    return _parse(text, path, EvalDefinition, "the eval file", "an eval file needs 'target' and 'cases'")


def _load(path: Path, parse: Any) -> Any:
    loaded = read_source(path)
    if loaded.text is None:
        assert loaded.problem is not None
        return None, [loaded.problem]
    return parse(loaded.text, str(path))


def load_test(path: Path) -> tuple[TestDefinition | None, list[Diagnostic]]:
    result: tuple[TestDefinition | None, list[Diagnostic]] = _load(path, parse_test)
    return result


def load_eval(path: Path) -> tuple[EvalDefinition | None, list[Diagnostic]]:
    result: tuple[EvalDefinition | None, list[Diagnostic]] = _load(path, parse_eval)
    return result
