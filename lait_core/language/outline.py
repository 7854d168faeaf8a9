"""Document outline (symbols) and folding ranges of lait files.

Workflows: the top-level sections, with the entries of ``inputs``/``schemas``/``agents``/
``models`` and the steps, nested as they run (``group`` bodies, switch cases and ``else``,
parallel branches, loop bodies, ``on_error``). Config files: the sections and their entries.
Agent files: the frontmatter keys and the system prompt body.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from lait_core.documents.workflow_file import Step, parse_workflow
from lait_core.language.nodes import tight_end, tight_range
from lait_core.lint.discovery import FileKind
from lait_core.syntax.frontmatter import Split, split_frontmatter
from lait_core.syntax.positions import Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode, SourceText

MAX_DETAIL = 60


class OutlineKind(StrEnum):
    SECTION = "section"
    STEP = "step"
    BRANCH = "branch"
    """A switch case, ``else``, a parallel branch or ``on_error``: a list of steps."""
    INPUT = "input"
    SCHEMA = "schema"
    AGENT = "agent"
    MODEL = "model"
    MCP = "mcp"
    TOOL = "tool"
    SKILL = "skill"
    WORKFLOW = "workflow"
    PROMPT = "prompt"
    KEY = "key"
    BODY = "body"


@dataclass(slots=True)
class OutlineSymbol:
    name: str
    kind: OutlineKind
    range: Range
    selection: Range
    """Inside ``range``: what to highlight (an id, a key)."""
    detail: str = ""
    children: list[OutlineSymbol] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Fold:
    start_line: int
    end_line: int


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MAX_DETAIL else line[: MAX_DETAIL - 1] + "…"


def _scalar_detail(node: Node | None) -> str:
    if isinstance(node, ScalarNode) and node.value is not None:
        value = node.value
        if isinstance(value, bool):
            return "true" if value else "false"
        return _short(str(value))
    return ""


def _pair_range(key: Node, value: Node) -> Range:
    end = tight_end(value)
    return Range(key.range.start, max(end, key.range.end))


def _name(key: Node) -> str:
    if isinstance(key, ScalarNode):
        value = key.value
        text = (
            ("true" if value else "false")
            if isinstance(value, bool)
            else str(value if value is not None else "")
        )
        return text if text.strip() else repr(text)
    return "?"


def _key_symbol(
    key: Node, value: Node, kind: OutlineKind = OutlineKind.KEY, detail: str | None = None
) -> OutlineSymbol:
    return OutlineSymbol(
        _name(key),
        kind,
        _pair_range(key, value),
        key.range,
        _scalar_detail(value) if detail is None else detail,
    )


def _entries(value: Node, kind: OutlineKind, detail: dict[str, str] | None = None) -> list[OutlineSymbol]:
    if not isinstance(value, MappingNode):
        return []
    out = []
    for k, v in value.pairs:
        sym = _key_symbol(k, v, kind, "")
        sym.detail = _entry_detail(kind, v)
        out.append(sym)
    return out


def _entry_detail(kind: OutlineKind, value: Node) -> str:
    if isinstance(value, ScalarNode):
        return _scalar_detail(value)
    if isinstance(value, MappingNode):
        if kind in (OutlineKind.INPUT, OutlineKind.SCHEMA):
            return _scalar_detail(value.get("type")) or ("file" if "file" in value else "schema")
        if kind is OutlineKind.MCP:
            return _scalar_detail(value.get("command")) or _scalar_detail(value.get("url"))
        if kind in (OutlineKind.TOOL, OutlineKind.AGENT):
            return _scalar_detail(value.get("description")) or _scalar_detail(value.get("model"))
        if kind is OutlineKind.PROMPT:
            return _scalar_detail(value.get("model"))
    if isinstance(value, SequenceNode) and kind is OutlineKind.MODEL and value.items:
        first = value.items[0]
        if isinstance(first, MappingNode):
            return _scalar_detail(first.get("model_id"))
    return ""


def _keys_of(value: Node) -> list[OutlineSymbol]:
    if not isinstance(value, MappingNode):
        return []
    return [_key_symbol(k, v) for k, v in value.pairs]


# --------------------------------------------------------------------------------------------
# workflows

_WORKFLOW_SECTIONS = {
    "inputs": OutlineKind.INPUT,
    "schemas": OutlineKind.SCHEMA,
    "agents": OutlineKind.AGENT,
    "models": OutlineKind.MODEL,
}


def _step_symbol(step: Step) -> OutlineSymbol:
    node = step.node
    ident = step.id
    id_node = node.get("id")
    kind_key = node.key_node(step.kind)
    selection = (id_node if ident is not None and id_node is not None else kind_key or node).range
    sym = OutlineSymbol(step.name, OutlineKind.STEP, tight_range(node), selection, step.kind)
    cases = node.get("switch")
    parallel = node.get("parallel")
    for name, kids in step.children:
        children = [_step_symbol(s) for s in kids]
        if name in ("group", "steps"):
            sym.children.extend(children)
            continue
        if name.startswith("switch[") and isinstance(cases, SequenceNode):
            i = int(name[len("switch[") : -1])
            case = cases.items[i] if i < len(cases.items) else None
            if case is None:
                continue
            when = case.get("when") if isinstance(case, MappingNode) else None
            when_key = case.key_node("when") if isinstance(case, MappingNode) else None
            sym.children.append(
                OutlineSymbol(
                    f"case {i + 1}",
                    OutlineKind.BRANCH,
                    tight_range(case),
                    (when_key or case).range,
                    _scalar_detail(when),
                    children,
                )
            )
            continue
        if name.startswith("parallel.") and isinstance(parallel, MappingNode):
            branch = name[len("parallel.") :]
            key, value = _pair(parallel, branch)
        else:
            key, value = _pair(node, name)
        if key is None or value is None:
            continue
        detail = "branch" if name.startswith("parallel.") else ""
        sym.children.append(
            OutlineSymbol(
                _name(key), OutlineKind.BRANCH, _pair_range(key, value), key.range, detail, children
            )
        )
    return sym


def _pair(mapping: MappingNode, name: str) -> tuple[Node | None, Node | None]:
    for k, v in mapping.pairs:
        if isinstance(k, ScalarNode) and str(k.value) == name:
            return k, v
    return None, None


def _workflow(text: str, path: str) -> list[OutlineSymbol]:
    doc = parse_workflow(text, path)
    root = doc.root
    if root is None:
        return []
    out = []
    for k, v in root.pairs:
        name = _name(k)
        if name == "steps":
            sym = _key_symbol(k, v, OutlineKind.SECTION, f"{len(doc.steps)} steps" if doc.steps else "")
            sym.children = [_step_symbol(s) for s in doc.steps]
        elif name in _WORKFLOW_SECTIONS:
            sym = _key_symbol(k, v, OutlineKind.SECTION, "")
            sym.children = _entries(v, _WORKFLOW_SECTIONS[name])
        elif name == "default":
            sym = _key_symbol(k, v, OutlineKind.SECTION, "")
            sym.children = _keys_of(v)
        else:
            sym = _key_symbol(k, v)
        out.append(sym)
    return out


# --------------------------------------------------------------------------------------------
# config and agents

_CONFIG_SECTIONS = {
    "models": OutlineKind.MODEL,
    "mcp_servers": OutlineKind.MCP,
    "tools": OutlineKind.TOOL,
    "agents": OutlineKind.AGENT,
    "skills": OutlineKind.SKILL,
    "workflows": OutlineKind.WORKFLOW,
    "prompts": OutlineKind.PROMPT,
}


def _config(text: str, path: str) -> list[OutlineSymbol]:
    root = parse_yaml(text, path).root
    if not isinstance(root, MappingNode):
        return []
    out = []
    for k, v in root.pairs:
        name = _name(k)
        if name in _CONFIG_SECTIONS:
            sym = _key_symbol(k, v, OutlineKind.SECTION, "")
            sym.children = _entries(v, _CONFIG_SECTIONS[name])
        elif isinstance(v, MappingNode):
            sym = _key_symbol(k, v, OutlineKind.SECTION, "")
            sym.children = _keys_of(v)
        else:
            sym = _key_symbol(k, v)
        out.append(sym)
    return out


def _frontmatter(text: str, path: str) -> tuple[Split | None, Node | None]:
    split = split_frontmatter(text)
    if not isinstance(split, Split):
        return None, None
    parsed = parse_yaml(split.yaml_text, path, source=SourceText(text, path))
    return split, parsed.root if parsed.ok else None


def _markdown(text: str, path: str) -> list[OutlineSymbol]:
    split, root = _frontmatter(text, path)
    if split is None:
        return []
    out = _keys_of(root) if root is not None else []
    source = SourceText(text, path)
    body = split.body
    stripped = body.strip()
    if stripped:
        start = split.body_start + (len(body) - len(body.lstrip()))
        end = start + len(stripped)
        rng = source.range(start, end)
        first = source.range(start, start + len(stripped.splitlines()[0]))
        out.append(
            OutlineSymbol("system prompt", OutlineKind.BODY, rng, first, _short(stripped.splitlines()[0]))
        )
    return out


def document_symbols(kind: FileKind, text: str, path: str = "") -> list[OutlineSymbol]:
    """The document symbols of a lait file of ``kind``. Never raises for bad input."""
    if kind is FileKind.WORKFLOW:
        return _workflow(text, path)
    if kind is FileKind.CONFIG:
        return _config(text, path)
    if kind in (FileKind.AGENT, FileKind.SKILL):
        return _markdown(text, path)
    return []


# --------------------------------------------------------------------------------------------
# folding


def _folds(root: Node | None, out: dict[int, int]) -> None:
    def add(start: int, end: int) -> None:
        if end > start and out.get(start, -1) < end:
            out[start] = end

    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, MappingNode):
            for k, v in node.pairs:
                if (
                    not isinstance(v, ScalarNode)
                    or v.style in ("|", ">")
                    or v.range.end.line > k.range.start.line
                ):
                    add(k.range.start.line, tight_end(v).line)
                stack.append(v)
        elif isinstance(node, SequenceNode):
            for item in node.items:
                add(item.range.start.line, tight_end(item).line)
                stack.append(item)


def folding_ranges(kind: FileKind, text: str) -> list[Fold]:
    """Folds for mappings, lists and block scalars spanning lines (and an agent's frontmatter)."""
    found: dict[int, int] = {}
    if kind in (FileKind.AGENT, FileKind.SKILL):
        split, root = _frontmatter(text, "")
        if split is None:
            return []
        if split.closing_line > 0:
            found[0] = split.closing_line
        _folds(root, found)
    elif kind in (FileKind.WORKFLOW, FileKind.CONFIG, FileKind.TEST, FileKind.EVAL):
        parsed = parse_yaml(text)
        if parsed.root is None:
            return []
        _folds(parsed.root, found)
    return [Fold(start, end) for start, end in sorted(found.items())]
