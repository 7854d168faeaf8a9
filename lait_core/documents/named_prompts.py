"""Named prompts (``prompts:`` in lait.config.yml; docs/cli.md): look one up,
merge its ``vars:`` with ``--var KEY=VALUE`` options (the last occurrence wins; values are strings),
and render its template with ``input``, ``vars`` and an empty ``steps``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lait_core.engine.llm.chat_types import ConfigurationError

if TYPE_CHECKING:
    from lait_core.documents.document_models import Config, PromptDefinition


class UsageError(ValueError):
    """A malformed ``--var`` option (a usage error: exit 2)."""


def parse_vars(options: Sequence[str]) -> dict[str, str]:
    from lait_core.support.keyvalue import KeyValueError, parse_key_values

    try:
        return parse_key_values(options, "--var")
    except KeyValueError as exc:
        raise UsageError(str(exc)) from None


def find_prompt(config: Config, name: str) -> PromptDefinition:
    from lait_core.documents.validate import suggest

    definition = config.prompts.get(name)
    if definition is not None:
        return definition
    names = sorted(config.prompts)
    hint = suggest(name, names)
    configured = ", ".join(names) if names else "none"
    message = (
        f"unknown prompt '{name}'; define it under 'prompts:' in lait.config.yml (configured: {configured})"
    )
    if hint:
        message += f"; did you mean '{hint}'?"
    raise ConfigurationError(message)


def render_prompt(name: str, definition: PromptDefinition, input_text: str, overrides: dict[str, str]) -> str:
    from lait_core.syntax.template import TemplateRenderError, TemplateSyntaxError, render

    variables = {"input": input_text, "vars": {**definition.vars, **overrides}, "steps": {}}
    try:
        return render(definition.template, variables)
    except (TemplateSyntaxError, TemplateRenderError) as exc:
        raise ConfigurationError(f"prompts.{name}.template: {exc.message}") from None
