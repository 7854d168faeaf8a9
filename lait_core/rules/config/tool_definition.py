"""LAIT104 tool-definition: a shell tool under `tools:` cannot be offered to the model."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode, ScalarNode, SequenceNode

C = "lait.config.yml"

CODE = "LAIT104"

RULE = rule(
    CODE,
    "tool-definition",
    Severity.ERROR,
    "A shell tool under `tools:` cannot be offered to the model.",
    "Every `tools:` entry is checked whether or not anything uses it: `command` must be a non-empty argv "
    "list, and `parameters` (the JSON Schema the model sees) must be a JSON object.",
    Example("tools:\n  grep:\n    command: []\n", filename=C),
    Example(
        "tools:\n  grep:\n    command: [rg, '--', '{{ input.pattern }}']\n    parameters: {type: object}\n",
        filename=C,
    ),
)


def check_tools(root: MappingNode, out: list[Diagnostic]) -> None:
    tools = root.get("tools")
    if not isinstance(tools, MappingNode):
        return
    for name, _k, tool in sorted(tools.items(), key=lambda t: str(t[0])):
        if not isinstance(tool, MappingNode):
            continue
        command = tool.get("command")
        if isinstance(command, SequenceNode) and not command.items:
            out.append(
                Diagnostic(CODE, f"tool definition \"{name}\" has an empty 'command' list", command.range)
            )
            continue
        if isinstance(command, SequenceNode) and isinstance(command.items[0], ScalarNode):
            first = command.items[0].to_python()
            if isinstance(first, str) and not first.strip():
                out.append(
                    Diagnostic(
                        CODE,
                        f"tool definition \"{name}\"'s 'command' must start with a program",
                        command.items[0].range,
                    )
                )
                continue
        params = tool.get("parameters")
        if params is not None and not isinstance(params, MappingNode):
            out.append(
                Diagnostic(
                    CODE,
                    f"tool definition \"{name}\"'s 'parameters' must be a JSON object",
                    params.range,
                )
            )
