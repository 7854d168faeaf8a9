"""Every name a lait file defines or mentions, with the exact range of its characters.

A file's :class:`FileIndex` lists *occurrences*: a step id, an input, a schema, an inline agent, a
model alias, or a registry name (MCP server, shell tool, agent, skill, workflow), each either
defined (a mapping key, a step's ``id:`` value) or referenced (a list item, a ``model:``/``agent:``
value, a ``{{ steps.x }}``/``$inputs.x`` inside a template or jq string). Occurrences of the same
symbol share a :class:`SymbolKey`: its namespace, name and *scope*, the absolute path of the file
that defines it (the workflow for step ids, inputs, schemas, inline agents and workflow model
aliases; the governing lait.config.yml for everything else).

Values that are paths (``agents: {r: agents/r.md}``, ``agent: ./x.md``, ``workflow: child.yml``)
are :class:`FileLink` s to the file they name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from lait_core.documents.agent_file import AgentDocument, parse_agent
from lait_core.documents.config_file import ConfigDocument, parse_config
from lait_core.documents.workflow_file import WorkflowDocument, recent_parse
from lait_core.language.nodes import name_range
from lait_core.lint.discovery import FileKind
from lait_core.support.cancel import checkpoint
from lait_core.syntax.positions import Position, Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode, SourceText


class Namespace(StrEnum):
    STEP = "step"
    INPUT = "input"
    SCHEMA = "schema"
    INLINE_AGENT = "inline agent"
    MODEL = "model"
    MCP = "MCP server"
    TOOL = "tool"
    AGENT = "agent"
    SKILL = "skill"
    WORKFLOW = "workflow"
    PROMPT_VAR = "prompt variable"


FILE_SCOPED = frozenset(
    (Namespace.STEP, Namespace.INPUT, Namespace.SCHEMA, Namespace.INLINE_AGENT, Namespace.PROMPT_VAR)
)
"""Namespaces whose names belong to one file (a workflow; lait.config.yml for prompt variables)."""

CAPABILITY_LISTS: tuple[tuple[str, Namespace], ...] = (
    ("mcp", Namespace.MCP),
    ("skills", Namespace.SKILL),
    ("subagents", Namespace.AGENT),
    ("tools", Namespace.TOOL),
)
"""The name lists of agents, prompt/agent steps and defaults, and what their items name."""

CONFIG_SECTIONS: tuple[tuple[str, Namespace], ...] = (
    ("mcp_servers", Namespace.MCP),
    ("tools", Namespace.TOOL),
    ("agents", Namespace.AGENT),
    ("skills", Namespace.SKILL),
    ("workflows", Namespace.WORKFLOW),
    ("models", Namespace.MODEL),
)
"""The config sections whose keys define names."""


@dataclass(frozen=True, slots=True)
class SymbolKey:
    namespace: Namespace
    scope: str
    """Absolute path of the file whose definitions this name refers to ('' when there is none)."""
    name: str
    owner: str = ""
    """The named prompt a prompt variable belongs to (each prompt has its own ``vars``); else ''."""


@dataclass(frozen=True, slots=True)
class Occurrence:
    key: SymbolKey
    range: Range
    """Exactly the characters of the name (inside quotes, templates and jq strings)."""
    definition: bool
    node: ScalarNode
    """The scalar holding the name (a key, an ``id:`` value, a list item, a template)."""
    value: Node | None = None
    """For a definition: what is defined (the server's mapping, the step's mapping, ...)."""
    jq_field: bool = False
    """A ``$steps.name``/``$inputs.name`` reference: the name must stay a jq identifier."""


@dataclass(frozen=True, slots=True)
class FileLink:
    """A value naming a file (a registry path, an ``agent:``/``workflow:`` path)."""

    range: Range
    target: str
    """Absolute, normalised path (for a skill directory: its SKILL.md)."""
    node: ScalarNode
    namespace: Namespace
    """What the file is: AGENT, WORKFLOW or SKILL."""


Hit = Occurrence | FileLink


@dataclass(slots=True)
class FileIndex:
    path: str
    kind: FileKind
    text: str
    source: SourceText
    config: str
    """Absolute path of the governing lait.config.yml ('' when there is none)."""
    root: MappingNode | None = None
    occurrences: list[Occurrence] = field(default_factory=list)
    links: list[FileLink] = field(default_factory=list)
    named_children: list[tuple[str, ScalarNode]] = field(default_factory=list)
    """(registered workflow name, the step's ``with:``) of workflow steps that call a child by name:
    the project resolves the name (:func:`with_key_occurrences`)."""
    workflow: WorkflowDocument | None = None
    agent: AgentDocument | None = None
    config_doc: ConfigDocument | None = None

    def at(self, pos: Position) -> Hit | None:
        """The occurrence or file link at ``pos`` (the narrowest when several contain it)."""
        best: Hit | None = None
        hits: list[Hit] = [*self.occurrences, *self.links]
        for hit in hits:
            if hit.range.start <= pos <= hit.range.end and (best is None or _narrower(hit.range, best.range)):
                best = hit
        return best

    def definitions(self, key: SymbolKey) -> list[Occurrence]:
        return [o for o in self.occurrences if o.definition and o.key == key]

    def defined_names(self, namespace: Namespace) -> set[str]:
        return {o.key.name for o in self.occurrences if o.definition and o.key.namespace is namespace}


def _narrower(a: Range, b: Range) -> bool:
    return (a.start >= b.start and a.end <= b.end) and a != b


def normpath(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


def is_agent_path(ref: str) -> bool:
    """An ``agent:`` value that is a path rather than a name (as the loader decides)."""
    return "/" in ref or os.sep in ref or ref.endswith(".md")


def is_workflow_path(ref: str) -> bool:
    return "/" in ref or os.sep in ref or ref.endswith((".yml", ".yaml"))


def skill_target(path: str) -> str:
    """A skills registry value: a SKILL.md file, or a directory holding one."""
    return os.path.join(path, "SKILL.md") if not path.endswith(".md") else path


def parse_document(path: str, text: str, kind: FileKind) -> FileIndex:
    """Parse ``text`` as ``kind`` without indexing names (the config scope is left empty)."""
    return build_index(path, text, kind, "", names=False)


def build_index(path: str, text: str, kind: FileKind, config: str, *, names: bool = True) -> FileIndex:
    """Parse ``text`` as a lait file of ``kind`` and list its names. Never raises for bad input."""
    path = normpath(path) if path else path
    if kind is FileKind.WORKFLOW:
        wf = recent_parse(text, path)  # positions and values only (its messages are not used here)
        index = FileIndex(path, kind, text, wf.source, config, wf.root, workflow=wf)
        if names:
            _Builder(index).workflow(wf)
    elif kind is FileKind.AGENT:
        agent = parse_agent(text, path)
        index = FileIndex(path, kind, text, agent.source, config, agent.front, agent=agent)
        if names and agent.front is not None:
            _Builder(index).capabilities(agent.front, set())
    elif kind is FileKind.CONFIG:
        cfg = parse_config(text, path)
        index = FileIndex(path, kind, text, cfg.source, path, cfg.root, config_doc=cfg)
        if names:
            _Builder(index).config_file(cfg)
    elif kind in (FileKind.TEST, FileKind.EVAL):
        source = SourceText(text, path)
        parsed = parse_yaml(text, path, source=source)
        root = parsed.root if parsed.ok and isinstance(parsed.root, MappingNode) else None
        index = FileIndex(path, kind, text, source, config, root)
        if names and root is not None:
            _Builder(index).test_file(root)
    else:
        index = FileIndex(path, kind, text, SourceText(text, path), config)
    return index


def node_get(node: Node | None, key: str) -> Node | None:
    return node.get(key) if isinstance(node, MappingNode) else None


def _assertions(root: MappingNode) -> Iterator[MappingNode]:
    """Every assertion mapping of a test or eval file (nested ``step_output`` ones included)."""
    lists: list[Node | None] = [root.get("assert")]
    cases = root.get("cases")
    if isinstance(cases, SequenceNode):
        lists += [case.get("assert") for case in cases.items if isinstance(case, MappingNode)]
    while lists:
        items = lists.pop()
        if isinstance(items, SequenceNode):
            for item in items.items:
                if isinstance(item, MappingNode):
                    yield item
                    lists.append(item.get("assert"))


# --------------------------------------------------------------------------------------------
# References inside templates and jq strings: every occurrence, not only the first


@dataclass(frozen=True, slots=True)
class ExprReference:
    root: str
    name: str
    start: int
    end: int
    jq_field: bool = False


def _all_occurrences(
    text: str, finder: Callable[[str], list[Any]], prefix: str, *, jq: bool = False
) -> list[ExprReference]:
    """Every reference in ``text``. The finders report each name once, at its first occurrence, so
    the root of each found occurrence is masked (same length, no longer a root) and the text is
    searched again until nothing new is found."""
    out: list[ExprReference] = []
    seen: set[int] = set()
    work = text
    for _round in range(len(text) + 1):
        found = [r for r in finder(work) if r.start not in seen]
        if not found:
            break
        chars = list(work)
        for r in found:
            seen.add(r.start)
            field_form = jq and r.start > 0 and text[r.start - 1] == "."
            out.append(ExprReference(r.root, r.name, r.start, r.end, field_form))
            at = work.rfind(prefix + r.root, 0, r.start)
            if at >= 0:
                chars[at + len(prefix)] = "_"
        work = "".join(chars)
    out.sort(key=lambda r: r.start)
    return out


_TAG = re.compile(r"\{\{!--.*?--\}\}|\{\{.*?\}\}", re.DOTALL)
_LONG_TEMPLATE = 20_000
"""Templates longer than this are searched tag by tag: the whole-text search repeats once per repeated
name, which is quadratic on a prompt that names the same input thousands of times."""


def template_references(text: str) -> list[ExprReference]:
    """Every ``{{ inputs.x }}``/``{{ steps.x }}`` (and other roots) in a template, in order."""
    if "{{" not in text:
        return []
    from lait_core.syntax.template import references

    if len(text) <= _LONG_TEMPLATE or "{{{{" in text:
        return _all_occurrences(text, references, "")
    out: list[ExprReference] = []
    for tag in _TAG.finditer(text):
        start = tag.start()
        if start and text[start - 1] == "\\":
            continue  # an escaped \{{ is text
        for r in _all_occurrences(tag.group(0), references, ""):
            out.append(ExprReference(r.root, r.name, r.start + start, r.end + start, r.jq_field))
    return out


def jq_references(text: str) -> list[ExprReference]:
    """Every ``$inputs.x``/``$steps.x`` (also ``$steps["x"]``) in a jq program, in order."""
    if "$steps" not in text and "$inputs" not in text:
        return []
    from lait_core.syntax import jq

    return _all_occurrences(text, jq.references, "$", jq=True)


# --------------------------------------------------------------------------------------------


def with_key_occurrences(node: Node | None, child: str) -> list[Occurrence]:
    """The keys of a ``with:`` object literal: references to the child workflow's ``inputs:``."""
    s = _string(node)
    if s is None or "{" not in s.value:
        return []
    from lait_core.language.jq_objects import top_object_keys

    return [
        Occurrence(
            SymbolKey(Namespace.INPUT, normpath(child), name), s.span(start, end), False, s, jq_field=True
        )
        for start, end, name in top_object_keys(s.value)
    ]


def _string(node: Node | None) -> ScalarNode | None:
    """``node`` when it is a non-empty string scalar that lies in the file (not an alias copy)."""
    if isinstance(node, ScalarNode) and isinstance(node.value, str) and node.value and node.document:
        return node
    return None


def _keys(node: Node | None) -> Iterator[tuple[str, ScalarNode, Node]]:
    if isinstance(node, MappingNode):
        for k, v in node.pairs:
            key = _string(k)
            if key is not None:
                yield key.value, key, v


class _Builder:
    def __init__(self, index: FileIndex) -> None:
        self.index = index
        self.path = index.path
        self.config = index.config
        self.own_models: set[str] = set()

    def define(self, ns: Namespace, scope: str, name: str, node: ScalarNode, value: Node | None) -> None:
        self.index.occurrences.append(
            Occurrence(SymbolKey(ns, scope, name), name_range(node), True, node, value)
        )

    def refer(self, ns: Namespace, scope: str, node: Node | None) -> None:
        s = _string(node)
        if s is not None:
            self.index.occurrences.append(Occurrence(SymbolKey(ns, scope, s.value), name_range(s), False, s))

    def link(self, node: Node | None, target: str, ns: Namespace) -> None:
        s = _string(node)
        if s is not None:
            self.index.links.append(FileLink(name_range(s), normpath(target), s, ns))

    # -- shared -------------------------------------------------------------------------------
    def model_ref(self, node: Node | None) -> None:
        s = _string(node)
        if s is not None:
            scope = self.path if s.value in self.own_models else self.config
            self.refer(Namespace.MODEL, scope, s)

    def capabilities(self, owner: Node | None, own_models: set[str]) -> None:
        """``model:`` and the ``mcp``/``skills``/``subagents``/``tools`` lists of an agent-like mapping."""
        if not isinstance(owner, MappingNode):
            return
        self.own_models = own_models
        self.model_ref(owner.get("model"))
        for key, ns in CAPABILITY_LISTS:
            items = owner.get(key)
            if isinstance(items, SequenceNode):
                for item in items.items:
                    self.refer(ns, self.config, item)

    # -- workflows ----------------------------------------------------------------------------
    def workflow(self, doc: WorkflowDocument) -> None:
        root = doc.root
        if root is None:
            return
        here = self.path
        base = os.path.dirname(here)
        own_models = {name for name, _k, _v in _keys(root.get("models"))}
        for section, ns in (
            ("inputs", Namespace.INPUT),
            ("schemas", Namespace.SCHEMA),
            ("agents", Namespace.INLINE_AGENT),
            ("models", Namespace.MODEL),
        ):
            for name, key, value in _keys(root.get(section)):
                self.define(ns, here, name, key, value)
        inline = {name for name, _k, _v in _keys(root.get("agents"))}
        for _name, _key, value in _keys(root.get("agents")):
            self.capabilities(value, own_models)
        self.capabilities(root.get("default"), own_models)
        self.refer(Namespace.SCHEMA, here, root.get("input_schema"))
        for step in doc.all_steps():
            checkpoint()  # the language server builds indexes on its lint thread (lait_core.support.cancel)
            node = step.node
            id_node = _string(node.get("id"))
            if id_node is not None:
                self.define(Namespace.STEP, here, id_node.value, id_node, node)
            if step.kind in ("prompt", "agent"):
                self.capabilities(node, own_models)
            if step.kind == "prompt":
                for field_name in ("input_schema", "output_schema"):
                    self.refer(Namespace.SCHEMA, here, node.get(field_name))
            elif step.kind == "agent":
                ref = _string(node.get("agent"))
                if ref is None:
                    pass
                elif ref.value in inline:
                    self.refer(Namespace.INLINE_AGENT, here, ref)
                elif is_agent_path(ref.value):
                    self.link(ref, os.path.join(base, ref.value), Namespace.AGENT)
                else:
                    self.refer(Namespace.AGENT, self.config, ref)
            elif step.kind == "workflow":
                ref = _string(node.get("workflow"))
                if ref is None:
                    pass
                elif is_workflow_path(ref.value):
                    child = normpath(os.path.join(base, ref.value))
                    self.link(ref, child, Namespace.WORKFLOW)
                    self.with_keys(node.get("with"), child)
                else:
                    self.refer(Namespace.WORKFLOW, self.config, ref)
                    with_node = _string(node.get("with"))
                    if with_node is not None:
                        self.index.named_children.append((ref.value, with_node))
        roots = {"steps": Namespace.STEP, "inputs": Namespace.INPUT}
        for exprs, finder in ((doc.jq, jq_references), (doc.templates, template_references)):
            for expr in exprs:
                if expr.node.document is None:
                    continue
                for r in finder(expr.text):
                    root_ns = roots.get(r.root)
                    if root_ns is not None:
                        self.index.occurrences.append(
                            Occurrence(
                                SymbolKey(root_ns, here, r.name),
                                expr.node.span(r.start, r.end),
                                False,
                                expr.node,
                                jq_field=r.jq_field,
                            )
                        )

    # -- test and eval files ------------------------------------------------------------------
    def test_file(self, root: MappingNode) -> None:
        """``workflow:`` (``target: {workflow:}``) links to the target; a ``step_output`` ``id`` refers to
        the target's step; a ``tool_called`` ``name`` to the shell tool, subagent, skill or MCP server it
        is qualified from; an eval target's ``model:`` to the model alias."""
        from lait_core.rules.testfiles.target import resolve, workflow_node

        base = os.path.dirname(self.path)
        target_node = workflow_node(root)
        target = ""
        if target_node is not None:
            assert isinstance(target_node.value, str)
            target = str(resolve(Path(self.path), target_node.value)) if self.path else ""
            self.link(target_node, target or os.path.join(base, target_node.value), Namespace.WORKFLOW)
        target_map = root.get("target")
        if isinstance(target_map, MappingNode):
            self.model_ref(target_map.get("model"))
        given = root.get("inputs") if root.get("inputs") is not None else node_get(target_map, "inputs")
        if target:
            for _name, key, _value in _keys(given):
                self.refer(Namespace.INPUT, target, key)
        for assertion in _assertions(root):
            kind = assertion.get("type")
            kind_name = kind.value if isinstance(kind, ScalarNode) else None
            if kind_name == "step_output" and target:
                self.refer(Namespace.STEP, target, assertion.get("id"))
            elif kind_name == "tool_called":
                self.qualified_tool(assertion.get("name"))

    def qualified_tool(self, node: Node | None) -> None:
        s = _string(node)
        if s is None or "__" not in s.value:
            return
        prefix, rest = s.value.split("__", 1)
        by_prefix = {"tool": Namespace.TOOL, "agent": Namespace.AGENT, "skill": Namespace.SKILL}
        ns = by_prefix.get(prefix)
        if ns is not None and rest:
            start, name = len(prefix) + 2, rest
        elif ns is None and prefix:
            ns, start, name = Namespace.MCP, 0, prefix
        else:
            return
        span = s.span(start, start + len(name))
        self.index.occurrences.append(Occurrence(SymbolKey(ns, self.config, name), span, False, s))

    def with_keys(self, node: Node | None, child: str) -> None:
        self.index.occurrences.extend(with_key_occurrences(node, child))

    # -- lait.config.yml ----------------------------------------------------------------------
    def config_file(self, doc: ConfigDocument) -> None:
        root = doc.root
        if root is None:
            return
        here = self.path
        base = os.path.dirname(here)
        for section, ns in CONFIG_SECTIONS:
            for name, key, value in _keys(root.get(section)):
                self.define(ns, here, name, key, value)
                path = _string(value)
                if path is None or ns not in (Namespace.AGENT, Namespace.SKILL, Namespace.WORKFLOW):
                    continue
                target = os.path.join(base, path.value)
                self.link(path, skill_target(target) if ns is Namespace.SKILL else target, ns)
        default = root.get("default")
        self.capabilities(default, set())
        if isinstance(default, MappingNode):
            compaction = default.get("compaction")
            if isinstance(compaction, MappingNode):
                self.model_ref(compaction.get("model"))
        for name, _key, prompt in _keys(root.get("prompts")):
            if isinstance(prompt, MappingNode):
                self.model_ref(prompt.get("model"))
                self.prompt_vars(name, prompt)

    def prompt_vars(self, prompt_name: str, prompt: MappingNode) -> None:
        """A named prompt's variables (what ``--var NAME=VALUE`` sets): each key of its ``vars:`` is
        a definition, each ``{{ vars.NAME }}`` of its ``template`` a reference; both belong to that
        prompt alone."""
        here = self.path
        for name, key, value in _keys(prompt.get("vars")):
            self.index.occurrences.append(
                Occurrence(
                    SymbolKey(Namespace.PROMPT_VAR, here, name, prompt_name),
                    name_range(key),
                    True,
                    key,
                    value,
                )
            )
        template = _string(prompt.get("template"))
        if template is None:
            return
        for r in template_references(template.value):
            if r.root == "vars":
                self.index.occurrences.append(
                    Occurrence(
                        SymbolKey(Namespace.PROMPT_VAR, here, r.name, prompt_name),
                        template.span(r.start, r.end),
                        False,
                        template,
                    )
                )
