"""The tools ``lait serve --mcp`` exposes (docs/mcp.md), built once from a config.

Each ``agents:`` entry becomes ``agent__<name>`` (schema: the agent's ``input_schema``, else the
generic ``{input}``), each ``workflows:`` entry ``workflow__<name>`` (schema: ``input`` -- the
PROMPT -- and ``inputs`` -- the declared ``inputs:``). An entry that does not load, or whose
qualified name breaks the naming rules, is skipped with a note. A workflow with an ``ask:`` step
anywhere in its own file (nested ``workflow:`` files are not inspected) is marked
:attr:`ServedTool.asks`: it is offered only to clients that can answer through elicitation; the
reference skipped it for everyone (issue 15 goes further).

Used by the server, by ``lait serve --mcp --list`` and by the editor's hover.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.documents.document_models import Config
from lait_core.engine.llm.chat_types import EngineError
from lait_core.engine.tools.naming import AGENT_PREFIX, WORKFLOW_PREFIX, qualify
from lait_core.engine.tools.subagent import GENERIC_PARAMETERS
from lait_core.engine.tools.subagent import default_description as agent_default_description

if TYPE_CHECKING:
    from lait_core.documents.workflow_file import WorkflowDocument

INPUT_PROPERTY: dict[str, Any] = {
    "type": "string",
    "description": "The workflow's initial value (what `lait run` takes as PROMPT).",
}


def workflow_default_description(name: str) -> str:
    return f"Runs the '{name}' workflow."


@dataclass(frozen=True, slots=True)
class ServedTool:
    name: str
    """The qualified MCP tool name (``agent__x``, ``workflow__x``)."""
    kind: str
    """``agent`` or ``workflow``."""
    key: str
    """The registry key under ``agents:``/``workflows:``."""
    path: Path
    description: str
    input_schema: dict[str, Any]
    asks: bool = False
    """A workflow with an ``ask:`` step: needs a client that supports elicitation."""


@dataclass(slots=True)
class ServedTools:
    tools: list[ServedTool] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Why entries were skipped or restricted (printed on stderr at startup)."""

    def get(self, name: str) -> ServedTool | None:
        return next((t for t in self.tools if t.name == name), None)


def workflow_schema(inputs: dict[str, Any] | None) -> dict[str, Any]:
    """Spec 6: ``{input, inputs}``; ``input`` is required without ``inputs:``, ``inputs`` when a
    declared input has no default."""
    from lait_core.engine.workflow.inputs import input_schema

    properties: dict[str, Any] = {"input": dict(INPUT_PROPERTY)}
    required: list[str] = []
    if inputs is None:
        required.append("input")
    else:
        props: dict[str, Any] = {}
        needed: list[str] = []
        for name, declaration in inputs.items():
            declared = copy.deepcopy(input_schema(declaration))
            props[name] = declared
            if not (isinstance(declared, dict) and "default" in declared):
                needed.append(name)
        inputs_schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
        if needed:
            inputs_schema["required"] = needed
            required.append("inputs")
        properties["inputs"] = inputs_schema
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    return out


def has_ask_step(doc: WorkflowDocument) -> bool:
    """An ``ask:`` step at any depth of this file (nested ``workflow:`` files are not read)."""
    return any(step.kind == "ask" for step in doc.all_steps())


def _resolve(config_dir: Path, value: str) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else config_dir / path


def agent_tool(key: str, path: Path, cache: dict[tuple[str, str], Any] | None = None) -> ServedTool:
    """Raises EngineError (bad file) or ToolNameError."""
    from lait_core.engine.run.agent_run import agent_from_file

    name = qualify(AGENT_PREFIX, key)
    agent = agent_from_file(path, key=key, cache=cache)
    schema = agent.input_schema if isinstance(agent.input_schema, dict) else copy.deepcopy(GENERIC_PARAMETERS)
    return ServedTool(name, "agent", key, path, agent.description or agent_default_description(key), schema)


def workflow_tool(key: str, path: Path) -> ServedTool:
    """Raises WorkflowLoadError (bad file) or ToolNameError."""
    from lait_core.engine.workflow.file_run import workflow_model
    from lait_core.engine.workflow.loader import load_document

    name = qualify(WORKFLOW_PREFIX, key)
    doc = load_document(None, path)
    wf = workflow_model(doc)
    return ServedTool(
        name,
        "workflow",
        key,
        path,
        wf.description or workflow_default_description(key),
        workflow_schema(wf.inputs),
        asks=has_ask_step(doc),
    )


def _reason(exc: BaseException, path: Path) -> str:
    diagnostics = getattr(exc, "diagnostics", None)
    if diagnostics:
        first = min(diagnostics, key=lambda d: d.sort_key())
        start = first.range.start
        return f"{first.path or path}:{start.line + 1}:{start.character + 1}: {first.message}"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def build_tools(
    config: Config, config_dir: Path, cache: dict[tuple[str, str], Any] | None = None
) -> ServedTools:
    """Every agent, then every workflow, in registry order; skipped entries get a note."""
    out = ServedTools()
    seen: set[str] = set()
    for kind, registry in (("agent", config.agents), ("workflow", config.workflows)):
        for key, value in registry.items():
            path = _resolve(config_dir, value)
            try:
                tool = agent_tool(key, path, cache) if kind == "agent" else workflow_tool(key, path)
            except EngineError as exc:
                out.notes.append(f"lait serve: skipping {kind} '{key}': {_reason(exc, path)}")
                continue
            if tool.name in seen:
                out.notes.append(f"lait serve: skipping {kind} '{key}': the tool name '{tool.name}' is taken")
                continue
            seen.add(tool.name)
            out.tools.append(tool)
    return out


__all__ = ["ServedTool", "ServedTools", "build_tools", "has_ask_step", "workflow_schema"]
