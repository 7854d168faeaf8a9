"""LAIT109: a named prompt's template uses ``{{ vars.X }}`` that its ``vars:`` does not declare.

Templates render strictly, so such a prompt fails unless every run passes ``--var X=VALUE``."""

from __future__ import annotations

from lait_core.diagnostics import Diagnostic, Severity
from lait_core.source.tree import MappingNode, ScalarNode
from lait_core.template import references


def check_prompt_vars(root: MappingNode, out: list[Diagnostic]) -> None:
    prompts = root.get("prompts")
    if not isinstance(prompts, MappingNode):
        return
    for name, _key, prompt in prompts.items():
        if not isinstance(prompt, MappingNode):
            continue
        template = prompt.get("template")
        if not isinstance(template, ScalarNode) or not isinstance(template.value, str):
            continue
        declared_node = prompt.get("vars")
        declared = (
            {str(k) for k, _kn, _v in declared_node.items()}
            if isinstance(declared_node, MappingNode)
            else set()
        )
        for ref in references(template.value):
            if ref.root != "vars" or ref.name in declared:
                continue
            out.append(
                Diagnostic(
                    "LAIT109",
                    f"the template of prompt '{name}' uses 'vars.{ref.name}', which its 'vars:' does not "
                    f"declare; add a default under 'vars:' or pass --var {ref.name}=VALUE on every run",
                    template.span(ref.start, ref.end),
                    Severity.WARNING,
                )
            )
