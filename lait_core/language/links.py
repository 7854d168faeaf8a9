"""Document links: every value of a lait file that names a file, resolved as the loader resolves it.

* a workflow's ``agent:`` and ``workflow:`` steps: a path relative to the workflow's folder, or a
  name registered under the config's ``agents:``/``workflows:`` (the registered file);
* ``{file: path}`` schema sources (``input_schema``, ``output_schema``, the workflow's ``schemas:``,
  inline agents, agent frontmatter): relative to the file that holds them;
* a prompt step's ``files:`` and (non-URL) ``images:`` without ``{{ }}``: relative to the working
  directory of a run (``workdir``; the language server passes its workspace folder);
* the config's ``agents:``/``workflows:``/``skills:`` registry paths (a skill directory links to its
  ``SKILL.md``): relative to the config's folder;
* ``models.<alias>[i].provider.gguf`` (``~`` expanded): relative to the defining file's folder.

A path that does not name an existing file is not a link (the linter already reports it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from lait_core.documents.schema_files import file_reference
from lait_core.language.index import is_agent_path, is_workflow_path, skill_target
from lait_core.language.nodes import name_range
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import Range
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

SCHEMA_KEYS = ("input_schema", "output_schema")


@dataclass(frozen=True, slots=True)
class Link:
    range: Range
    target: str
    """Absolute path of an existing file."""
    tooltip: str


def _string(node: Node | None) -> ScalarNode | None:
    if isinstance(node, ScalarNode) and isinstance(node.value, str) and node.value.strip() and node.document:
        return node
    return None


def _mapping_values(node: Node | None) -> Iterator[tuple[str, Node]]:
    if isinstance(node, MappingNode):
        for key, _k, value in node.items():
            if isinstance(key, str):
                yield key, value


class _Links:
    def __init__(self, base: str) -> None:
        self.base = base
        self.out: list[Link] = []

    def add(self, node: Node | None, target: str, what: str) -> None:
        s = _string(node)
        if s is None:
            return
        target = os.path.normpath(target if os.path.isabs(target) else os.path.join(self.base, target))
        if os.path.isfile(target):
            self.out.append(Link(name_range(s), target, f"Open {what}"))

    def schema(self, node: Node | None) -> None:
        if node is not None:
            ref = file_reference(node)
            s = _string(ref)
            if s is not None:
                self.add(s, os.path.expanduser(s.value), "the schema file")

    def schemas_of(self, owner: Node | None) -> None:
        """``input_schema``/``output_schema`` of an agent-like mapping or step."""
        if isinstance(owner, MappingNode):
            for key in SCHEMA_KEYS:
                self.schema(owner.get(key))

    def models(self, node: Node | None) -> None:
        for _alias, entries in _mapping_values(node):
            items = entries.items if isinstance(entries, SequenceNode) else [entries]
            for entry in items:
                provider = entry.get("provider") if isinstance(entry, MappingNode) else None
                gguf = _string(provider.get("gguf")) if isinstance(provider, MappingNode) else None
                if gguf is not None:
                    self.add(gguf, os.path.expanduser(gguf.value), "the GGUF model file")


def _workflow(
    links: _Links,
    text: str,
    path: str,
    workdir: str | None,
    agents: Mapping[str, str],
    workflows: Mapping[str, str],
) -> None:
    from lait_core.documents.workflow_file import parse_workflow

    doc = parse_workflow(text, path)
    root = doc.root
    if root is None:
        return
    inline = {name for name, _v in _mapping_values(root.get("agents"))}
    for _name, schema in _mapping_values(root.get("schemas")):
        links.schema(schema)
    links.schema(root.get("input_schema"))
    for _name, agent in _mapping_values(root.get("agents")):
        links.schemas_of(agent)
    links.models(root.get("models"))
    for step in doc.all_steps():
        node = step.node
        links.schemas_of(node)
        if step.kind == "agent":
            ref = _string(node.get("agent"))
            if ref is not None and ref.value not in inline:
                if is_agent_path(ref.value):
                    links.add(ref, ref.value, "the agent file")
                elif ref.value in agents:
                    links.add(ref, agents[ref.value], f"agent '{ref.value}'")
        elif step.kind == "workflow":
            ref = _string(node.get("workflow"))
            if ref is not None:
                if is_workflow_path(ref.value):
                    links.add(ref, ref.value, "the workflow file")
                elif ref.value in workflows:
                    links.add(ref, workflows[ref.value], f"workflow '{ref.value}'")
        if workdir is not None:
            for key in ("files", "images"):
                items = node.get(key)
                for item in items.items if isinstance(items, SequenceNode) else []:
                    s = _string(item)
                    if s is None or "{{" in s.value or s.value.startswith(("http://", "https://", "data:")):
                        continue
                    target = os.path.expanduser(s.value)
                    links.add(
                        s, target if os.path.isabs(target) else os.path.join(workdir, target), "the file"
                    )


def _config(links: _Links, text: str, path: str) -> None:
    from lait_core.documents.config_file import parse_config

    root = parse_config(text, path).root
    if not isinstance(root, MappingNode):
        return
    for section, what in (("agents", "agent"), ("workflows", "workflow"), ("skills", "skill")):
        for name, value in _mapping_values(root.get(section)):
            s = _string(value)
            if s is None:
                continue
            target = os.path.join(links.base, s.value)
            if section == "skills" and os.path.isdir(target):
                target = skill_target(target)
            links.add(s, target, f"{what} '{name}'")
    links.models(root.get("models"))


def document_links(
    kind: FileKind,
    text: str,
    path: str,
    *,
    workdir: str | None = None,
    agents: Mapping[str, str] | None = None,
    workflows: Mapping[str, str] | None = None,
) -> list[Link]:
    """The links of a lait file (``path`` absolute), in document order. ``agents``/``workflows``:
    the config's registries (name -> absolute path). Never raises for bad input."""
    links = _Links(os.path.dirname(os.path.abspath(path)))
    if kind is FileKind.WORKFLOW:
        _workflow(links, text, path, workdir, agents or {}, workflows or {})
    elif kind is FileKind.CONFIG:
        _config(links, text, path)
    elif kind is FileKind.AGENT:
        from lait_core.documents.agent_file import parse_agent

        links.schemas_of(parse_agent(text, path).front)
    links.out.sort(key=lambda link: link.range.start)
    return links.out


__all__ = ["Link", "document_links"]
