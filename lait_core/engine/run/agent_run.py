"""Agents (docs/workflows.md): loading an agent definition and running it.

An agent is an ``agent.md`` file (YAML frontmatter with settings, a body that is the system
prompt template), a name registered under ``agents:`` in ``lait.config.yml``, or an inline entry
of a workflow's ``agents:`` (same keys plus ``system:``).

:func:`run_agent` validates the input against ``input_schema`` (lait's partial
validator), renders the body with ``input`` as the system prompt, sends the user message (the raw
INPUT for ``lait agent run``, the input's text form otherwise) and, with an ``output_schema``,
requests Structured Outputs and returns the parsed JSON.

Settings fall back field by field (docs/workflows.md): the caller's ``layers`` (a workflow step), the
agent's own frontmatter, the caller's ``defaults`` (a workflow's ``default:``), then
``lait.config.yml``'s ``default:``, then the builtin.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.documents.agent_file import AgentDocument
from lait_core.documents.document_models import AgentFrontmatter, Config, InlineAgent, ModelDefinition
from lait_core.documents.json_check import check_value
from lait_core.documents.schema_files import load_schema_file
from lait_core.documents.workflow_file import is_agent_path
from lait_core.engine.llm.chat_types import ConfigurationError, DocumentInvalid, EngineError, JsonObject
from lait_core.engine.llm.conversation import DEFAULT_SCHEMA_NAME, Reply, converse
from lait_core.engine.llm.llm_settings import Layer, resolve_llm_settings
from lait_core.engine.run.run_files import canonical, located_error, read_agent
from lait_core.syntax.template import (
    Template,
    TemplateRenderError,
    TemplateSyntaxError,
    parse,
    render,
    text_form,
)

if TYPE_CHECKING:
    from lait_core.engine.run.run_session import RunSession


class AgentError(EngineError):
    """An agent cannot run: its input breaks ``input_schema``, its prompt does not render, an
    attachment cannot be read."""


@dataclass(frozen=True, slots=True, eq=False)
class AgentDefinition:
    name: str
    """Frontmatter ``name``, else the registry/inline key, else the file name without ``.md``."""
    settings: AgentFrontmatter
    system: str
    """The system prompt template (the trimmed body, or an inline agent's ``system:``)."""
    template: Template
    base_dir: Path
    """Where ``{file: ...}`` schemas resolve: the agent file's directory (inline: the workflow's)."""
    path: Path | None = None
    """The canonical path of an agent file (None for inline agents)."""
    input_schema: Any = None
    output_schema: JsonObject | None = None
    document: AgentDocument | None = None

    @property
    def description(self) -> str | None:
        return self.settings.description

    @property
    def schema_name(self) -> str:
        return self.settings.schema_name or DEFAULT_SCHEMA_NAME

    @property
    def label(self) -> str:
        return f"agent '{self.name}'"

    def where(self) -> str:
        """The agent's file, or ``agents.<name>`` for inline agents (for messages)."""
        return str(self.path) if self.path is not None else f"agents.{self.name}"

    def _location(self, start: int, end: int) -> str:
        if self.document is not None:
            pos = self.document.system_range(start, end).start
            return f"{self.document.path}:{pos.line + 1}:{pos.character + 1}"
        return f"agents.{self.name}.system"

    def render_system(self, variables: Mapping[str, Any]) -> str:
        try:
            return render(self.template, variables)
        except TemplateRenderError as exc:
            raise AgentError(f"{self._location(exc.start, exc.end)}: {exc.message}") from None


def _schema(value: Any, key: str, base_dir: Path, where: str) -> Any:
    """A schema source made concrete: ``{file: p}`` read (relative to ``base_dir``), else as is."""
    if isinstance(value, dict) and list(value) == ["file"] and isinstance(value["file"], str):
        loaded = load_schema_file(base_dir, value["file"])
        if loaded.error is not None:
            raise ConfigurationError(f"{where}: '{key}': {loaded.error}")
        return loaded.value
    return value


def _output_schema(value: Any, where: str) -> JsonObject | None:
    if value is None:
        return None
    if value is True:
        return {}
    if not isinstance(value, dict):
        raise ConfigurationError(f"{where}: 'output_schema' must be a JSON Schema object")
    return value


def _from_document(doc: AgentDocument, path: Path, key: str | None) -> AgentDefinition:
    front = doc.frontmatter or AgentFrontmatter()
    try:
        template = parse(doc.system)
    except TemplateSyntaxError as exc:
        pos = doc.system_range(exc.start, exc.end).start
        raise ConfigurationError(f"{path}:{pos.line + 1}:{pos.character + 1}: {exc.message}") from None
    base_dir = path.parent
    name = front.name or key or path.name.removesuffix(".md")
    where = str(path)
    return AgentDefinition(
        name=name,
        settings=front,
        system=doc.system,
        template=template,
        base_dir=base_dir,
        path=canonical(path),
        input_schema=_schema(front.input_schema, "input_schema", base_dir, where),
        output_schema=_output_schema(_schema(front.output_schema, "output_schema", base_dir, where), where),
        document=doc,
    )


def agent_from_file(
    path: Path, *, key: str | None = None, cache: dict[tuple[str, str], Any] | None = None
) -> AgentDefinition:
    """The agent in ``path`` (ConfigurationError with ``file:line:col`` when it is invalid)."""
    doc = read_agent(path, cache)
    if doc.frontmatter is None:  # parse errors are raised by read_agent; this is defensive
        error = located_error(path, doc.diagnostics)
        raise error or DocumentInvalid(f"{path}: invalid agent file", path=str(path))
    return _from_document(doc, path, key)


def agent_from_inline(name: str, inline: InlineAgent, base_dir: Path) -> AgentDefinition:
    where = f"agents.{name}"
    try:
        template = parse(inline.system.strip())
    except TemplateSyntaxError as exc:
        raise ConfigurationError(f"'{where}.system': {exc.message}") from None
    front = AgentFrontmatter.model_validate(inline.model_dump(exclude={"system"}, exclude_unset=True))
    return AgentDefinition(
        name=inline.name or name,
        settings=front,
        system=inline.system.strip(),
        template=template,
        base_dir=base_dir,
        input_schema=_schema(inline.input_schema, "input_schema", base_dir, where),
        output_schema=_output_schema(_schema(inline.output_schema, "output_schema", base_dir, where), where),
    )


def load_agent(
    ref: str,
    *,
    config: Config,
    config_dir: Path,
    base_dir: Path,
    inline: Mapping[str, InlineAgent] | None = None,
    files_first: bool = False,
    cache: dict[tuple[str, str], Any] | None = None,
    confine: Path | None = None,
) -> AgentDefinition:
    """Resolve an agent reference: an ``agent:`` step's, or `lait agent run`'s (docs/workflows.md).

    Order: a name in ``inline`` (a workflow's ``agents:``); a path when ``ref`` has a separator or
    ends in ``.md`` (relative to ``base_dir``); with ``files_first`` (``lait agent run``), any
    existing file; a name registered under ``agents:`` (relative to ``config_dir``). ``confine``:
    the folder an agent file must be in (``confine: project``), checked before the file is read.
    """
    from lait_core.engine.processes.confine import check_inside

    if not ref.strip():
        raise ConfigurationError("the agent reference must not be empty")
    if inline is not None and ref in inline:
        return agent_from_inline(ref, inline[ref], base_dir)
    candidate = Path(ref).expanduser()
    candidate = candidate if candidate.is_absolute() else base_dir / candidate
    if is_agent_path(ref) or (files_first and candidate.is_file()):
        check_inside(confine, candidate, "the agent file")
        return agent_from_file(candidate, cache=cache)
    registered = config.agents.get(ref)
    if registered is not None:
        path = Path(registered).expanduser()
        path = path if path.is_absolute() else config_dir / path
        check_inside(confine, path, f"the agent file of '{ref}'")
        return agent_from_file(path, key=ref, cache=cache)
    if inline is not None:
        raise ConfigurationError(
            f"agent '{ref}' is neither defined in this workflow's 'agents:' nor registered under 'agents:' "
            "in lait.config.yml"
        )
    raise ConfigurationError(
        f"agent '{ref}' is not a file and not registered under 'agents:' in lait.config.yml"
    )


def parse_input(text: str) -> Any:
    """INPUT of ``lait agent run``: JSON when it parses, else the string itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def check_input(agent: AgentDefinition, value: Any) -> None:
    if agent.input_schema is None:
        return
    problems = check_value(value, agent.input_schema, "input")
    if problems:
        raise AgentError(
            f"the input of {agent.label} does not match its input_schema: " + "; ".join(problems)
        )


async def run_agent(
    session: RunSession,
    agent: AgentDefinition,
    input_value: Any,
    *,
    layers: Sequence[Layer] = (),
    defaults: Sequence[Layer] = (),
    user_text: str | None = None,
    variables: Mapping[str, Any] | None = None,
    files: Sequence[str] = (),
    images: Sequence[str] = (),
    workflow_models: Mapping[str, Sequence[ModelDefinition]] | None = None,
    label: str | None = None,
    note: str | None = None,
    stream: bool = False,
    include_usage: bool = False,
    depth: int = 0,
    agent_chain: tuple[Path, ...] = (),
) -> Reply:
    """Run ``agent`` once on ``input_value``.

    ``user_text``: the user message (default: the input's text form; ``lait agent run`` passes
    the raw INPUT). ``variables``: extra template roots (a workflow's ``steps``, ``inputs``,
    ``loop``); ``input`` is always the input and ``steps`` defaults to empty. ``depth`` and
    ``agent_chain`` are the subagent nesting of the caller (this agent's path is appended).
    """
    check_input(agent, input_value)
    layer_list: list[Layer] = [*layers, agent.settings, *defaults]
    settings = resolve_llm_settings(
        label or agent.label,
        layer_list,
        session.config,
        workflow_models=workflow_models,
        note=note or f"set 'model' in {agent.where()} or default.model in lait.config.yml",
    )
    context: dict[str, Any] = {"steps": {}}
    if variables:
        context.update(variables)
    context["input"] = input_value
    system = agent.render_system(context)
    text = user_text if user_text is not None else text_form(input_value)
    user: str | list[JsonObject] = text
    if files or images:
        from lait_core.engine.llm.attachments import AttachmentError, user_content

        try:
            user = user_content(text, list(files), list(images))
        except AttachmentError as exc:
            raise AgentError(str(exc)) from None
    chain = (*agent_chain, agent.path) if agent.path is not None else agent_chain
    return await converse(
        session,
        settings,
        system=system,
        user=user,
        output_schema=agent.output_schema,
        schema_name=agent.schema_name,
        stream=stream,
        include_usage=include_usage,
        depth=depth,
        agent_chain=chain,
    )
