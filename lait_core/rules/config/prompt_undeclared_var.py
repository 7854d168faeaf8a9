"""LAIT109: a named prompt's template uses ``{{ vars.X }}`` that its ``vars:`` does not declare.

Templates render strictly, so such a prompt fails unless every run passes ``--var X=VALUE``."""

from __future__ import annotations

from collections.abc import Iterator

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.template import references
from lait_core.syntax.yaml.tree import MappingNode, ScalarNode

C = "lait.config.yml"

CODE = "LAIT109"

RULE = rule(
    CODE,
    "prompt-undeclared-var",
    Severity.WARNING,
    "A named prompt's template uses `{{ vars.X }}` that its `vars:` does not declare.",
    "Named prompts (`lait -p NAME`, `lait prompt run NAME`) render their `template` with `input` and "
    "`vars`: the prompt's `vars:` defaults overridden by `--var KEY=VALUE`. Templates are strict, so a "
    "variable without a default fails the run unless every invocation passes it with `--var`.",
    Example("prompts:\n  summary:\n    template: 'In {{ vars.words }} words: {{ input }}'\n", filename=C),
    Example(
        "prompts:\n  summary:\n    template: 'In {{ vars.words }} words: {{ input }}'\n    vars: {words: '20'}\n",
        filename=C,
    ),
)


def prompt_templates(root: MappingNode) -> Iterator[tuple[str, ScalarNode, list[str]]]:
    """Each named prompt with a string ``template``: (name, template node, declared ``vars:`` names)."""
    prompts = root.get("prompts")
    if not isinstance(prompts, MappingNode):
        return
    for name, _key, prompt in prompts.items():
        if not isinstance(prompt, MappingNode):
            continue
        template = prompt.get("template")
        if not isinstance(template, ScalarNode) or not isinstance(template.value, str):
            continue
        declared = prompt.get("vars")
        names = [str(k) for k, _n, _v in declared.items()] if isinstance(declared, MappingNode) else []
        yield str(name), template, names


def check_prompt_vars(root: MappingNode, out: list[Diagnostic]) -> None:
    for name, template, declared in prompt_templates(root):
        assert isinstance(template.value, str)
        for ref in references(template.value):
            if ref.root != "vars" or ref.name in declared:
                continue
            out.append(
                Diagnostic(
                    CODE,
                    f"the template of prompt '{name}' uses 'vars.{ref.name}', which its 'vars:' does not "
                    f"declare; add a default under 'vars:' or pass --var {ref.name}=VALUE on every run",
                    template.span(ref.start, ref.end),
                    Severity.WARNING,
                )
            )
