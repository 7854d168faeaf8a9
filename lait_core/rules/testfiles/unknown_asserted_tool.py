"""LAIT705 test-unknown-tool: a ``tool_called`` assertion names a tool the target workflow cannot call."""

from __future__ import annotations

from lait_core.documents.validate import suggest
from lait_core.rules.registry import Example, rule
from lait_core.rules.testfiles.invalid_value import AssertionNode
from lait_core.rules.testfiles.target import ToolNames
from lait_core.syntax.diagnostics import Diagnostic, Fix, Severity
from lait_core.syntax.yaml.tree import ScalarNode

CODE = "LAIT705"

_CONFIG = (
    "models:\n  main:\n    - model_id: m\n      provider: {base_url: 'http://127.0.0.1:9/v1'}\n"
    "default:\n  model: main\ntools:\n  shout:\n    command: [echo, '{{ text }}']\n"
    "    parameters:\n      type: object\n      properties: {text: {type: string}}\n"
)
_WORKFLOW = ("wf.yml", "steps:\n  - prompt: Say hi loudly\n    tools: [shout]\n")

RULE = rule(
    CODE,
    "test-unknown-tool",
    Severity.WARNING,
    "A `tool_called` assertion names a tool that the target workflow cannot call.",
    "`name` is the qualified name the model sees: `tool__NAME` for a shell tool, `SERVER__TOOL` for an MCP "
    "server's tool, `agent__NAME` for a subagent, `skill__NAME` for a skill. The names come from the "
    "`tools`/`mcp`/`subagents`/`skills` lists of the workflow (its steps, inline agents and `default:`) "
    "and of lait.config.yml's `default:`; an MCP tool is accepted by its server's prefix (its tools are "
    "only known when the server runs). A name outside these never matches, so the assertion with the "
    "default `min: 1` always fails. Not checked when the workflow uses agent files or child workflows "
    "(their tools are not followed) or when there is no lait.config.yml.",
    Example(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: tool_called\n    name: shout\n",
        "smoke.test.yml",
        config=_CONFIG,
        extra=(_WORKFLOW, ("tape/.keep", "")),
    ),
    Example(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: tool_called\n    name: tool__shout\n",
        "smoke.test.yml",
        config=_CONFIG,
        extra=(_WORKFLOW, ("tape/.keep", "")),
    ),
)


def check(assertions: list[AssertionNode], names: ToolNames, out: list[Diagnostic]) -> None:
    if not names.complete:
        return
    for a in assertions:
        if a.type != "tool_called":
            continue
        node = a.node.get("name")
        if not isinstance(node, ScalarNode) or not isinstance(node.value, str) or names.knows(node.value):
            continue
        choices = [*names.exact, *(f"{s}__" for s in names.servers)]
        guess = suggest(node.value, list(names.exact))
        if guess is None:
            guess = next((n for n in names.exact if n.split("__", 1)[-1] == node.value), None)
        hint = (
            f"; did you mean '{guess}'?"
            if guess
            else (f" (it can call: {', '.join(choices)})" if choices else "")
        )
        out.append(
            Diagnostic(
                CODE,
                f"the workflow cannot call a tool named '{node.value}'{hint}",
                node.range,
                Severity.WARNING,
                fixes=(Fix(f"Replace with '{guess}'", node.range, guess),) if guess else (),
            )
        )
