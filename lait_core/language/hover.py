"""Hover: what a key means, and what a name resolves to, as Markdown.

* On a key: its documentation from the models (type, required, default, and for a step's kind
  key what that kind of step does).
* On a name (a definition or a reference): what it resolves to: an MCP server's command or URL
  and allowed tools, a model alias's ``model_id @ base_url`` and fallbacks, an agent's
  description, model and tools, a step's kind and place, a shell tool's argv and parameters, a
  skill's description, an input's schema, a schema's type, a workflow's name and description.
* On a path value (``agents: {r: agents/r.md}``, ``agent: ./x.md``): the file's summary.
* On an ``agents:``/``workflows:`` entry of lait.config.yml, also the MCP tool ``lait serve --mcp``
  exposes for it (:mod:`lait_core.language.serve_hover`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.documents import document_models as m
from lait_core.documents.skill_file import parse_skill
from lait_core.language.index import (
    FileIndex,
    FileLink,
    Namespace,
    Occurrence,
    SymbolKey,
    normpath,
    skill_target,
)
from lait_core.language.keydocs import KeyDoc, NameDoc, describe_path, step_kind
from lait_core.language.nodes import trail_at
from lait_core.language.symbols import Document, Project
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import Position, Range
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode

if TYPE_CHECKING:
    from lait_core.language.value_shapes import Surroundings

MAX_SCHEMA_CHARS = 1500
"""Longer schemas are cut in hovers."""


@dataclass(frozen=True, slots=True)
class HoverResult:
    markdown: str
    range: Range


def hover_at(project: Project, doc: Document, pos: Position) -> HoverResult | None:
    """The hover at ``pos`` in ``doc``, or None when there is nothing to say."""
    index = project.index(doc)
    if doc.kind is FileKind.CONFIG:
        var = prompt_var_hover(index.root, pos)
        if var is not None:
            return var
        if isinstance(index.root, MappingNode) and doc.path:
            from lait_core.language.policy_hover import policy_pattern_hover

            pattern = policy_pattern_hover(index.root, pos, str(doc.path))
            if pattern is not None:
                return HoverResult(*pattern)
    hit = index.at(pos)
    if hit is None and index.workflow is not None:
        found = field_hover(index, pos, project)
        if found is not None:
            return found
    if isinstance(hit, Occurrence):
        text = symbol_markdown(project, doc, hit.key)
        return HoverResult(text, hit.range) if text else None
    if isinstance(hit, FileLink):
        text = file_markdown(project, doc, hit.target, hit.namespace)
        return HoverResult(text, hit.range) if text else None
    trail = trail_at(index.root, pos)
    node = trail.node
    if node is None:
        return None
    if not trail.on_key and not (isinstance(node, ScalarNode) and node.style not in ("|", ">")):
        return None
    if doc.kind in (FileKind.TEST, FileKind.EVAL):
        from lait_core.language.testfiles import key_markdown as test_key_markdown

        key_text = test_key_markdown(doc.kind, list(trail.segments), trail.on_key, node)
        return HoverResult(key_text, node.range) if key_text else None
    described = describe_path(doc.kind, trail.segments)
    if described is None:
        return None
    return HoverResult(key_markdown(described), node.range)


def _surroundings(index: FileIndex, project: Project | None) -> Surroundings:
    """Where ``index``'s file is, for the agent files and child workflows it names."""
    from lait_core.language.value_shapes import Surroundings

    if project is None or not index.path:
        return Surroundings(Path(index.path) if index.path else None)
    path = Path(index.path)
    config = project.linter.config_for(path).config
    return Surroundings(path, config, lambda p: project.read(str(p)))


_FIELD_CHAIN = re.compile(r"(\$?)(steps|inputs)((?:\.[A-Za-z_][A-Za-z0-9_-]*)+)")


def field_hover(index: FileIndex, pos: Position, project: Project | None = None) -> HoverResult | None:
    """On a field after ``steps.<id>.`` / ``$inputs.<name>.`` in a template or jq string: that field's
    type, presence and description, where the value's shape is known (value_shapes)."""
    from lait_core.language import value_shapes
    from lait_core.language.value_shapes import field_markdown

    doc = index.workflow
    assert doc is not None
    for exprs, jq in ((doc.jq, True), (doc.templates, False)):
        for expr in exprs:
            node = expr.node
            if node.document is None or not node.range.contains(pos):
                continue
            for chain in _FIELD_CHAIN.finditer(expr.text):
                if bool(chain.group(1)) != jq or (not jq and not _in_tag(expr.text, chain.start())):
                    continue
                names = chain.group(3)[1:].split(".")
                at = chain.start(3) + 1
                for depth, name in enumerate(names):
                    span = node.span(at, at + len(name))
                    if depth >= 1 and span.contains(pos):
                        root = chain.group(2)
                        shapes = value_shapes.Shapes(index.root, _surroundings(index, project))
                        parent = shapes.at(root, names[:depth])
                        schema = value_shapes.field(parent, name)
                        if schema is None:
                            return None
                        required = (
                            name in (parent.get("required") or []) if isinstance(parent, dict) else False
                        )
                        owner = f"{'step' if root == 'steps' else 'input'} `{names[0]}`"
                        text = field_markdown(name, schema, required, owner, ".".join(names[1:depth]))
                        return HoverResult(f"**field** {code(name)}\n\n{text}", span)
                    at += len(name) + 1
    return None


def _in_tag(text: str, offset: int) -> bool:
    """``offset`` is inside a ``{{ ... }}`` of the template ``text``."""
    opened = text.rfind("{{", 0, offset)
    return opened >= 0 and text.find("}}", opened, offset) == -1


def prompt_var_hover(root: MappingNode | None, pos: Position) -> HoverResult | None:
    """On ``{{ vars.X }}`` in a named prompt's template: its default, or that it has none."""
    from lait_core.syntax.template import references

    prompts = root.get("prompts") if root is not None else None
    if not isinstance(prompts, MappingNode):
        return None
    for name, _key, prompt in prompts.items():
        if not isinstance(prompt, MappingNode):
            continue
        template = prompt.get("template")
        if not (
            isinstance(template, ScalarNode)
            and isinstance(template.value, str)
            and template.range.contains(pos)
        ):
            continue
        declared = prompt.get("vars")
        defaults = {str(k): v for k, _kn, v in declared.items()} if isinstance(declared, MappingNode) else {}
        for ref in references(template.value):
            span = template.span(ref.start, ref.end)
            if ref.root != "vars" or not span.contains(pos):
                continue
            head = f"*prompt variable* `vars.{ref.name}` of prompt `{name}`\n\n"
            default = defaults.get(ref.name)
            if isinstance(default, ScalarNode):
                body = f"Default: `{default.value}` (from `vars:`); `--var {ref.name}=VALUE` overrides it."
            else:
                body = f"Not declared under `vars:`: every run must pass `--var {ref.name}=VALUE` (LAIT109)."
            return HoverResult(head + body, span)
    return None


# --------------------------------------------------------------------------------------------
# formatting helpers


def code(text: Any) -> str:
    s = str(text).replace("\n", " ")
    if "`" in s:
        return f"`` {s} ``"
    return f"`{s}`"


def _names(values: Any) -> str:
    if not isinstance(values, list) or not values:
        return ""
    return ", ".join(code(v) for v in values)


def _relative(doc: Document, path: str) -> str:
    """``path`` as seen from the hovered document's directory."""
    here = os.path.dirname(normpath(str(doc.path)))
    try:
        return os.path.relpath(path, here)
    except ValueError:
        return path


def _place(doc: Document, path: str, line: int) -> str:
    return f"{_relative(doc, path)}:{line + 1}"


def _json_block(value: Any) -> str:
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    if len(text) > MAX_SCHEMA_CHARS:
        text = text[:MAX_SCHEMA_CHARS] + "\n…"
    return f"```json\n{text}\n```"


def _data(node: Node | None) -> Any:
    return node.to_python() if node is not None else None


# --------------------------------------------------------------------------------------------
# keys


def key_markdown(doc: KeyDoc | NameDoc) -> str:
    if isinstance(doc, NameDoc):
        head = f"**{code(doc.name)}** · entry of {code(doc.section)}"
        return f"{head}\n\n{doc.description}" if doc.description else head
    facts = [doc.type, "required" if doc.required else "optional"]
    if doc.default is not None:
        facts.append(f"default {code(doc.default)}")
    head = f"**{code(doc.key)}** · " + " · ".join(facts)
    parts = [head]
    if doc.description:
        parts.append(doc.description)
    if doc.kind_doc:
        parts.append(f"*{code(doc.key)} step:* {doc.kind_doc}")
    elif doc.step_kind:
        parts.append(f"*In a {code(doc.step_kind)} step.*")
    return "\n\n".join(parts)


# --------------------------------------------------------------------------------------------
# names


def symbol_markdown(project: Project, doc: Document, key: SymbolKey) -> str:
    """What the name ``key`` resolves to (also when it is not defined: says so)."""
    defs = project.definitions(doc, key)
    scope = project.scope_index(doc, key)
    title = f"**{key.namespace} {code(key.name)}**"
    if not defs or scope is None:
        return f"{title}\n\n{_undefined(key)}"
    d = defs[0]
    where = f"Defined at {code(_place(doc, scope.path, d.range.start.line))}."
    body = _DESCRIBE[key.namespace](project, doc, scope, d)
    return "\n\n".join(p for p in (title, body, where) if p)


def _undefined(key: SymbolKey) -> str:
    if key.namespace is Namespace.MODEL:
        return "Not an alias in `models:`; it is sent to the server as a raw model id."
    if key.namespace is Namespace.STEP:
        return "No step in this file has this `id`."
    if key.namespace is Namespace.INPUT:
        return "Not declared in this workflow's `inputs:`."
    if key.namespace is Namespace.SCHEMA:
        return "Not defined in this workflow's `schemas:`."
    if key.namespace is Namespace.INLINE_AGENT:
        return "Not defined in this workflow's `agents:`."
    if key.namespace is Namespace.PROMPT_VAR:
        return f"Not declared under the `vars:` of prompt {code(key.owner)}: every run must pass `--var`."
    section = {
        Namespace.MCP: "mcp_servers",
        Namespace.TOOL: "tools",
        Namespace.AGENT: "agents",
        Namespace.SKILL: "skills",
        Namespace.WORKFLOW: "workflows",
    }[key.namespace]
    if not key.scope:
        return "No lait.config.yml was found for this file."
    return f"Not defined under `{section}:` in lait.config.yml."


def _step(project: Project, doc: Document, scope: FileIndex, d: Occurrence) -> str:
    kind = step_kind(d.value)
    if kind is None:
        return ""
    about = m.STEP_KINDS[kind].__doc__ or ""
    line = f"A {code(kind)} step. {' '.join(about.split())}".strip()
    value = d.value.get(kind) if isinstance(d.value, MappingNode) else None
    if isinstance(value, ScalarNode) and isinstance(value.value, str) and kind in ("agent", "workflow", "jq"):
        line += f"\n\n{kind}: {code(value.value)}"
    return line


def _input(project: Project, doc: Document, scope: FileIndex, d: Occurrence) -> str:
    value = _data(d.value)
    if value is None:
        return "Any value (no schema)."
    if isinstance(value, str):
        return f"Type {code(value)}."
    return "Schema:\n\n" + _json_block(value)


def _prompt_var(project: Project, doc: Document, scope: FileIndex, d: Occurrence) -> str:
    name, prompt = d.key.name, d.key.owner
    value = d.value
    default = f"Default {code(str(value.value))}" if isinstance(value, ScalarNode) else "A default"
    return f"Of prompt {code(prompt)}. {default} (from `vars:`); `--var {name}=VALUE` overrides it."


def _schema_summary(value: Any) -> str:
    if isinstance(value, bool):
        return "`true`: accepts any value." if value else "`false`: accepts no value."
    if not isinstance(value, dict):
        return ""
    if set(value) == {"file"}:
        return f"Loaded from {code(value['file'])}."
    parts = []
    kind = value.get("type")
    if kind is not None:
        parts.append(f"Type {code(kind if not isinstance(kind, list) else ' | '.join(map(str, kind)))}.")
    props = value.get("properties")
    if isinstance(props, dict) and props:
        parts.append(f"Properties: {', '.join(code(p) for p in props)}.")
    required = value.get("required")
    if isinstance(required, list) and required:
        parts.append(f"Required: {_names(required)}.")
    items = value.get("items")
    if isinstance(items, dict) and "type" in items:
        parts.append(f"Items: {code(items['type'])}.")
    enum = value.get("enum")
    if isinstance(enum, list):
        parts.append(f"One of {_names(enum)}.")
    return " ".join(parts)


def _schema(project: Project, doc: Document, scope: FileIndex, d: Occurrence) -> str:
    return _schema_summary(_data(d.value))


def _agent_summary(settings: Any, system: str | None = None) -> str:
    if not isinstance(settings, dict):
        return ""
    lines = []
    if isinstance(settings.get("description"), str):
        lines.append(settings["description"])
    facts = []
    if settings.get("model") is not None:
        facts.append(f"- model: {code(settings['model'])}")
    for key in ("tools", "mcp", "skills", "subagents"):
        names = _names(settings.get(key))
        if names:
            facts.append(f"- {key}: {names}")
    if settings.get("output_schema") is not None:
        facts.append("- structured output (`output_schema`)")
    if facts:
        lines.append("\n".join(facts))
    if system is not None and not lines:
        first = system.strip().splitlines()[0] if system.strip() else ""
        if first:
            lines.append(f"> {first}")
    return "\n\n".join(lines)


def _inline_agent(project: Project, doc: Document, scope: FileIndex, d: Occurrence) -> str:
    return _agent_summary(_data(d.value))


def _registry_target(scope: FileIndex, d: Occurrence, ns: Namespace) -> str | None:
    value = d.value
    if not isinstance(value, ScalarNode) or not isinstance(value.value, str) or not value.value:
        return None
    target = os.path.join(os.path.dirname(scope.path), value.value)
    return normpath(skill_target(target) if ns is Namespace.SKILL else target)


def _registered(project: Project, doc: Document, scope: FileIndex, d: Occurrence) -> str:
    target = _registry_target(scope, d, d.key.namespace)
    if target is None:
        return ""
    text = file_markdown(project, doc, target, d.key.namespace, title=False)
    if doc.kind is FileKind.CONFIG and d.key.namespace in (Namespace.AGENT, Namespace.WORKFLOW):
        text += "\n\n" + _served(project, target, d.key.namespace, d.key.name)
    return text


def _served(project: Project, target: str, ns: Namespace, name: str) -> str:
    """The tool `lait serve --mcp` makes of a registry entry (issue 15)."""
    from lait_core.language.serve_hover import served_tool_markdown

    data: Any = None
    if project.read(target) is not None:
        if ns is Namespace.AGENT:
            agent = project.index_path(target, FileKind.AGENT)
            front = agent.agent.front if agent is not None and agent.agent is not None else None
            data = _data(front) if front is not None else {}
        else:
            wf = project.index_path(target, FileKind.WORKFLOW)
            data = _data(wf.root) if wf is not None and wf.root is not None else {}
    kind = "agent" if ns is Namespace.AGENT else "workflow"
    return served_tool_markdown(
        kind, name, data if isinstance(data, dict) or data is None else {}, _json_block
    )


def _model(project: Project, doc: Document, scope: FileIndex, d: Occurrence) -> str:
    entries = _data(d.value)
    if not isinstance(entries, list):
        return ""
    lines = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        provider = entry.get("provider")
        url = (provider.get("base_url") or provider.get("gguf")) if isinstance(provider, dict) else None
        text = code(f"{entry.get('model_id', '?')} @ {url or '?'}")
        lines.append(f"- {text}" + (" (primary)" if i == 0 else " (fallback)"))
    return "\n".join(lines)


def _mcp(project: Project, doc: Document, scope: FileIndex, d: Occurrence) -> str:
    server = _data(d.value)
    if not isinstance(server, dict):
        return ""
    lines = []
    if server.get("command") is not None:
        args = server.get("args")
        argv = [str(server["command"]), *(map(str, args) if isinstance(args, list) else ())]
        lines.append(f"stdio: {code(shlex.join(argv))}")
    if server.get("url") is not None:
        lines.append(f"Streamable HTTP: {code(server['url'])}")
    allowed = server.get("allowed_tools")
    if allowed is None:
        lines.append("allowed tools: all")
    elif allowed == []:
        lines.append("allowed tools: none (`[]`)")
    else:
        lines.append(f"allowed tools: {_names(allowed)}")
    if server.get("allow_elicitation") is True:
        lines.append("may ask the user for input (elicitation)")
    oauth = server.get("oauth")
    if isinstance(oauth, dict):
        about = "signs in with OAuth"
        if isinstance(oauth.get("client_id"), str):
            about += f" as the pre-registered client {code(oauth['client_id'])}"
        scopes = oauth.get("scopes")
        if isinstance(scopes, list) and scopes:
            about += f", scopes {_names(scopes)}"
        lines.append(about)
    return "\n\n".join(lines)


def _tool(project: Project, doc: Document, scope: FileIndex, d: Occurrence) -> str:
    tool = _data(d.value)
    if not isinstance(tool, dict):
        return ""
    lines = []
    if isinstance(tool.get("description"), str):
        lines.append(tool["description"])
    command = tool.get("command")
    if isinstance(command, list):
        lines.append(f"argv: {code(shlex.join(map(str, command)))}")
    params = tool.get("parameters")
    props = params.get("properties") if isinstance(params, dict) else None
    if isinstance(props, dict) and props:
        required = params.get("required") if isinstance(params, dict) else None
        rows = []
        for name, spec in props.items():
            spec = spec if isinstance(spec, dict) else {}
            facts = [str(spec["type"])] if "type" in spec else []
            if isinstance(required, list) and name in required:
                facts.append("required")
            row = f"- {code(name)}" + (f" ({', '.join(facts)})" if facts else "")
            if isinstance(spec.get("description"), str):
                row += f": {spec['description']}"
            rows.append(row)
        lines.append("parameters:\n" + "\n".join(rows))
    elif params is None:
        lines.append("parameters: none")
    return "\n\n".join(lines)


_DESCRIBE = {
    Namespace.STEP: _step,
    Namespace.INPUT: _input,
    Namespace.SCHEMA: _schema,
    Namespace.INLINE_AGENT: _inline_agent,
    Namespace.MODEL: _model,
    Namespace.MCP: _mcp,
    Namespace.TOOL: _tool,
    Namespace.AGENT: _registered,
    Namespace.SKILL: _registered,
    Namespace.WORKFLOW: _registered,
    Namespace.PROMPT_VAR: _prompt_var,
}


# --------------------------------------------------------------------------------------------
# files


def file_markdown(project: Project, doc: Document, target: str, ns: Namespace, *, title: bool = True) -> str:
    """A summary of the agent, workflow or skill file ``target``."""
    shown = code(_relative(doc, target))
    head = f"**{ns} file** {shown}" if title else f"File: {shown}"
    text = project.read(target)
    if text is None:
        return f"{head}\n\nThe file cannot be read (it may not exist)."
    body = ""
    if ns is Namespace.AGENT:
        agent = project.index_path(target, FileKind.AGENT)
        front = agent.agent.front if agent is not None and agent.agent is not None else None
        system = agent.agent.system if agent is not None and agent.agent is not None else None
        body = _agent_summary(_data(front) if front is not None else {}, system)
    elif ns is Namespace.WORKFLOW:
        wf = project.index_path(target, FileKind.WORKFLOW)
        root = wf.root if wf is not None else None
        if isinstance(root, MappingNode):
            facts = []
            for key in ("name", "description"):
                value = _data(root.get(key))
                if isinstance(value, str):
                    facts.append(value if key == "description" else f"name: {code(value)}")
            inputs = root.get("inputs")
            if isinstance(inputs, MappingNode) and inputs.pairs:
                facts.append(f"inputs: {_names([str(k) for k in inputs])}")
            body = "\n\n".join(facts)
    elif ns is Namespace.SKILL:
        skill = parse_skill(text, target).frontmatter
        if skill is not None and skill.description:
            body = skill.description
        else:
            body = "No `description` in its frontmatter."
    return "\n\n".join(p for p in (head, body) if p)
