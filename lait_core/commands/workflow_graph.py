"""`lait graph`: a workflow's control flow as a Mermaid flowchart or a Graphviz DOT digraph.

The graph is built once from the loaded :class:`WorkflowDocument` (a :class:`Graph` of nodes,
edges and nested clusters) and then written in either syntax:

* actions (``prompt``, ``agent``, ``run``, ``decide``, ``jq``, ``ask``, ``write``, ``workflow``) are
  rectangles; control steps (``group``, ``switch``, ``parallel``, ``for_each``, ``while``,
  ``until``) are diamonds; ``stop``/``break`` are terminals;
* a ``when:`` labels the edge into its step, and a ``skipped`` edge goes around it;
* switch case conditions, ``else``, branch names and loop edges (``each item``, ``next``,
  ``done``) are edge labels; loop bodies, branches, cases, groups and ``on_error`` lists are
  subgraphs; ``on_error`` is entered by a dashed edge;
* child workflows are not expanded; ``decide`` shows its question ids.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from lait_core.documents.workflow_file import Step, WorkflowDocument

Shape = Literal["action", "control", "terminal", "start", "end"]
FORMATS = ("mermaid", "dot")
ACTIONS = frozenset({"prompt", "agent", "run", "decide", "jq", "ask", "write", "workflow"})
DETAIL_WIDTH = 48


@dataclass(slots=True)
class Node:
    id: str
    text: str
    shape: Shape
    step: Step | None = None
    """The step the node stands for (None for start and end): the editor's graph links to it."""


@dataclass(slots=True)
class Edge:
    source: str
    target: str
    label: str = ""
    dashed: bool = False


@dataclass(slots=True)
class Cluster:
    id: str
    title: str
    items: list[Node | Cluster] = field(default_factory=list)


@dataclass(slots=True)
class Graph:
    title: str
    root: Cluster
    edges: list[Edge] = field(default_factory=list)

    def nodes(self) -> Iterator[Node]:
        stack: list[Node | Cluster] = [self.root]
        while stack:
            item = stack.pop()
            if isinstance(item, Node):
                yield item
            else:
                stack.extend(reversed(item.items))


@dataclass(frozen=True, slots=True)
class _Exit:
    """A loose end waiting for the next node: an edge from ``source`` with this label."""

    source: str
    label: str = ""
    dashed: bool = False


def _short(text: str, width: int = DETAIL_WIDTH) -> str:
    """One line of at most ``width`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _scalar(step: Step, key: str) -> object:
    node = step.get(key)
    return node.to_python() if node is not None else None


def step_detail(step: Step) -> str:
    """The second line of a step's box: what the kind acts on."""
    kind = step.kind
    value = _scalar(step, kind)
    if kind == "run" and isinstance(value, list):
        return _short(" ".join(str(v) for v in value))
    if kind == "decide" and isinstance(value, dict):
        return "questions: " + _short(", ".join(str(k) for k in value))
    if kind == "workflow":
        return f"{value} (not expanded)"
    if kind in ("group", "parallel", "switch", "stop", "break"):
        return ""
    if kind == "for_each":
        concurrency = _scalar(step, "max_concurrency")
        extra = f" ×{concurrency}" if isinstance(concurrency, int) and concurrency > 1 else ""
        return _short(f"each of {value}") + extra
    if kind in ("while", "until"):
        return _short(f"{kind} {value}") + f" (max {_scalar(step, 'max_iterations')})"
    return _short(str(value)) if isinstance(value, str) else ""


class _Builder:
    def __init__(self, doc: WorkflowDocument) -> None:
        self.doc = doc
        self.counter = 0
        self.edges: list[Edge] = []
        self.end = "n_end"
        self.loop_breaks: list[list[_Exit]] = []

    def new_id(self, prefix: str = "n") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def connect(self, pending: list[_Exit], target: str, extra: str = "") -> None:
        for e in pending:
            label = "; ".join(x for x in (e.label, extra) if x)
            self.edges.append(Edge(e.source, target, label, e.dashed))

    def steps(self, steps: list[Step], pending: list[_Exit], cluster: Cluster) -> list[_Exit]:
        for step in steps:
            pending = self.step(step, pending, cluster)
        return pending

    def body(self, title: str, steps: list[Step], pending: list[_Exit], parent: Cluster) -> list[_Exit]:
        cluster = Cluster(self.new_id("c"), title)
        parent.items.append(cluster)
        return self.steps(steps, pending, cluster)

    def children(self, step: Step, prefix: str) -> list[tuple[str, list[Step]]]:
        return [(key, kids) for key, kids in step.children if key == prefix or key.startswith(prefix)]

    def step(self, step: Step, pending: list[_Exit], cluster: Cluster) -> list[_Exit]:
        kind = step.kind
        label = step.name
        detail = step_detail(step)
        text = step.title + (f"\n{detail}" if detail else "")
        shape: Shape = "action" if kind in ACTIONS else "terminal" if kind in ("stop", "break") else "control"
        node = Node(self.new_id(), text, shape, step)
        cluster.items.append(node)
        when = _scalar(step, "when")
        self.connect(pending, node.id, f"when {_short(str(when))}" if isinstance(when, str) else "")
        exits: list[_Exit] = []
        if isinstance(when, str):
            exits.extend(
                _Exit(e.source, "; ".join(x for x in (e.label, "skipped") if x), e.dashed) for e in pending
            )
        here = [_Exit(node.id)]
        if kind in ACTIONS:
            exits.extend(here)
        elif kind == "stop":
            self.edges.append(Edge(node.id, self.end))
        elif kind == "break":
            if self.loop_breaks:
                self.loop_breaks[-1].append(_Exit(node.id, "break"))
        elif kind == "group":
            for _key, kids in self.children(step, "group"):
                exits.extend(self.body(f"group {label}", kids, here, cluster))
        elif kind == "switch":
            cases = _scalar(step, "switch")
            for key, kids in self.children(step, "switch["):
                index = int(key[len("switch[") : -1])
                case = cases[index] if isinstance(cases, list) and index < len(cases) else None
                cond = case.get("when") if isinstance(case, dict) else None
                edge = f"case {index + 1}: {_short(str(cond))}"
                exits.extend(self.body(f"{label} case {index + 1}", kids, [_Exit(node.id, edge)], cluster))
            for _key, kids in self.children(step, "else"):
                exits.extend(self.body(f"{label} else", kids, [_Exit(node.id, "else")], cluster))
        elif kind == "parallel":
            for key, kids in self.children(step, "parallel."):
                name = key[len("parallel.") :]
                exits.extend(self.body(f"branch {name}", kids, [_Exit(node.id, name)], cluster))
        elif kind in ("for_each", "while", "until"):
            self.loop_breaks.append([])
            entry = "each item" if kind == "for_each" else "iterate"
            for _key, kids in self.children(step, "steps"):
                inner = self.body(f"{label} body", kids, [_Exit(node.id, entry)], cluster)
                self.connect(inner, node.id, "next")
            exits.append(_Exit(node.id, "done"))
            exits.extend(self.loop_breaks.pop())
        for _key, kids in self.children(step, "on_error"):
            exits.extend(self.body(f"on_error of {label}", kids, [_Exit(node.id, "on error", True)], cluster))
        return exits

    def build(self) -> Graph:
        model = self.doc.model
        title = (model.name if model is not None else None) or "workflow"
        root = Cluster("root", title)
        start = Node("n_start", "start", "start")
        root.items.append(start)
        pending = self.steps(self.doc.steps, [_Exit(start.id)], root)
        root.items.append(Node(self.end, "end", "end"))
        self.connect(pending, self.end)
        return Graph(title, root, self.edges)


def build_graph(doc: WorkflowDocument) -> Graph:
    """The control-flow graph of a loaded workflow (its step tree; load errors are the caller's)."""
    return _Builder(doc).build()


# -- Mermaid -----------------------------------------------------------------------------------
_MERMAID_SHAPES: dict[Shape, tuple[str, str]] = {
    "action": ("[", "]"),
    "control": ("{", "}"),
    "terminal": ("([", "])"),
    "start": ("((", "))"),
    "end": ("((", "))"),
}


def _mermaid_text(text: str) -> str:
    out = text.replace("#", "#35;").replace('"', "#quot;").replace("|", "#124;")
    out = out.replace("<", "#lt;").replace(">", "#gt;")
    return out.replace("\n", "<br/>")


def _mermaid_items(cluster: Cluster, indent: str, lines: list[str]) -> None:
    for item in cluster.items:
        if isinstance(item, Node):
            left, right = _MERMAID_SHAPES[item.shape]
            lines.append(f'{indent}{item.id}{left}"{_mermaid_text(item.text)}"{right}')
        else:
            lines.append(f'{indent}subgraph {item.id}["{_mermaid_text(item.title)}"]')
            _mermaid_items(item, indent + "  ", lines)
            lines.append(f"{indent}end")


def to_mermaid(graph: Graph) -> str:
    lines = ["flowchart TD"]
    _mermaid_items(graph.root, "  ", lines)
    for e in graph.edges:
        arrow = "-.->" if e.dashed else "-->"
        label = f'|"{_mermaid_text(e.label)}"|' if e.label else ""
        lines.append(f"  {e.source} {arrow}{label} {e.target}")
    return "\n".join(lines) + "\n"


# -- DOT ---------------------------------------------------------------------------------------
_DOT_SHAPES: dict[Shape, str] = {
    "action": "box",
    "control": "diamond",
    "terminal": "oval",
    "start": "circle",
    "end": "doublecircle",
}


def _dot_text(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_items(cluster: Cluster, indent: str, lines: list[str]) -> None:
    for item in cluster.items:
        if isinstance(item, Node):
            lines.append(
                f"{indent}{item.id} [label={_dot_text(item.text)}, shape={_DOT_SHAPES[item.shape]}];"
            )
        else:
            lines.append(f"{indent}subgraph cluster_{item.id} {{")
            lines.append(f"{indent}  label={_dot_text(item.title)};")
            _dot_items(item, indent + "  ", lines)
            lines.append(f"{indent}}}")


def to_dot(graph: Graph) -> str:
    lines = ["digraph workflow {", f"  label={_dot_text(graph.title)};", "  rankdir=TB;"]
    _dot_items(graph.root, "  ", lines)
    for e in graph.edges:
        attrs = []
        if e.label:
            attrs.append(f"label={_dot_text(e.label)}")
        if e.dashed:
            attrs.append("style=dashed")
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        lines.append(f"  {e.source} -> {e.target}{suffix};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def step_ranges(graph: Graph) -> dict[str, tuple[int, int, int, int]]:
    """Node id -> the range (0-based start line, character, end line, character) of its step."""
    out: dict[str, tuple[int, int, int, int]] = {}
    for node in graph.nodes():
        if node.step is not None:
            r = node.step.node.range
            out[node.id] = (r.start.line, r.start.character, r.end.line, r.end.character)
    return out


def render_graph(doc: WorkflowDocument, fmt: str = "mermaid") -> str:
    """The workflow's graph in ``fmt`` (``mermaid`` or ``dot``); ValueError for another format."""
    graph = build_graph(doc)
    if fmt == "mermaid":
        return to_mermaid(graph)
    if fmt == "dot":
        return to_dot(graph)
    raise ValueError(f"unknown graph format '{fmt}'; expected one of: {', '.join(FORMATS)}")
