"""Completion and key hover in test and eval files (docs/testing.md).

Completion offers the file's keys, the assertion types (as `type:` values and as whole new list
items with their required fields), each assertion type's fields, the target workflow's step ids in a
``step_output`` ``id``, the qualified tool names the target can call in a ``tool_called`` ``name``,
workflow files for ``workflow:`` and model aliases for an eval target's ``model:``. Hover on a key
or on an assertion type says what it means (names and file links are hovered by the shared index:
:mod:`lait_core.language.index`). The documentation is :mod:`lait_core.rules.testfiles.docs`, the
table the JSON Schemas carry too.
"""

from __future__ import annotations

import re
from pathlib import Path

from lait_core.documents.workflow_file import WorkflowDocument, parse_workflow
from lait_core.language import completion_names as names
from lait_core.language.completion_names import ItemKind
from lait_core.language.completion_request import CompletionItem, Environment, PreparedDocument, RequestBase
from lait_core.language.context import CursorContext, Role, YamlPath, analyze
from lait_core.language.nodes import Segment
from lait_core.lint.discovery import FileKind
from lait_core.rules.testfiles import docs
from lait_core.rules.testfiles.invalid_value import assertion_models
from lait_core.rules.testfiles.target import ToolNames, resolve, tool_names, workflow_node
from lait_core.rules.testfiles.unknown_step import step_ids
from lait_core.syntax.bounded_read import read_source
from lait_core.syntax.positions import Position
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode

# -- where a path is ------------------------------------------------------------------------------


def assertion_path(path: YamlPath) -> bool:
    """Whether ``path`` is an assertion: ``assert[i]``, ``cases[j].assert[i]``, nested ``...assert[k]``."""
    return len(path) >= 2 and path[-2] == "assert" and isinstance(path[-1], int)


def key_table(kind: FileKind, path: YamlPath) -> dict[str, str] | None:
    """The keys the mapping at ``path`` accepts, with their documentation (None: not a known mapping)."""
    if path == ():
        return docs.TEST_KEYS if kind is FileKind.TEST else docs.EVAL_KEYS
    if kind is FileKind.EVAL and path == ("target",):
        return docs.EVAL_TARGET_KEYS
    if kind is FileKind.EVAL and len(path) == 2 and path[0] == "cases" and isinstance(path[1], int):
        return docs.EVAL_CASE_KEYS
    if assertion_path(path):
        return docs.ASSERTION_KEYS
    return None


def assertion_fields(type_name: str | None) -> list[tuple[str, bool]]:
    """(field, required) of an assertion type, ``type`` first; only ``type`` for an unknown type."""
    model = assertion_models().get(type_name or "")
    if model is None:
        return [("type", True)]
    return [(info.alias or key, info.is_required()) for key, info in model.model_fields.items()]


# -- hover ------------------------------------------------------------------------------------------


def key_markdown(kind: FileKind, segments: list[Segment], on_key: bool, node: Node | None) -> str | None:
    """Markdown for the key (or an assertion's ``type`` value) at the end of ``segments``."""
    if not segments:
        return None
    path: YamlPath = tuple(s.key for s in segments)
    last = path[-1]
    if not isinstance(last, str):
        return None
    if (
        not on_key
        and last == "type"
        and assertion_path(path[:-1])
        and isinstance(node, ScalarNode)
        and isinstance(node.value, str)
        and node.value in docs.ASSERTION_TYPES
    ):
        return f"**assertion** `{node.value}`\n\n{docs.ASSERTION_TYPES[node.value]}"
    table = key_table(kind, path[:-1])
    if table is None or last not in table:
        return None
    what = "test file" if kind is FileKind.TEST else "eval file"
    if assertion_path(path[:-1]):
        what = "assertion"
    elif len(path) > 1:
        what = "eval target" if path[0] == "target" else "eval case"
    return f"**{last}** ({what})\n\n{table[last]}"


# -- completion -------------------------------------------------------------------------------------


def complete(doc: PreparedDocument, position: Position, env: Environment) -> list[CompletionItem]:
    """Completion items at ``position`` of a test or eval file."""
    offset = doc.index.offset(position)
    ctx = analyze(doc.text, offset, doc.kind, doc.tree)
    if ctx.role is Role.NONE:
        return []
    return _Request(doc, ctx, env, doc.semantic_tree(position.line)).run()


_DOT_TOKEN = re.compile(r"(?<![\w$\])])((?:\.[A-Za-z_][A-Za-z0-9_]*)*)\.([A-Za-z_][A-Za-z0-9_]*)?$")
"""A path into ``.`` being typed: ``.``, ``.su``, ``.owner.``."""


class _Request(RequestBase):
    def __init__(
        self, doc: PreparedDocument, ctx: CursorContext, env: Environment, tree: Node | None
    ) -> None:
        super().__init__(doc, ctx, env, tree)
        self._workflow: WorkflowDocument | bool | None = False

    def run(self) -> list[CompletionItem]:
        ctx = self.ctx
        path = ctx.path
        if ctx.role is Role.KEY:
            if path and path[-1] == "assert" and not ctx.flow:  # a blank line under `assert:`
                return self.new_assertions("- ")
            if path in (("inputs",), ("target", "inputs")):
                return self.input_names(path)
            if assertion_path(path):
                return self.assertion_keys(path)
            table = key_table(self.doc.kind, path)
            return self.keys(table, path) if table is not None else []
        if ctx.role is Role.ITEM and len(path) >= 2 and path[-2] == "assert":
            return self.new_assertions("- " if ctx.needs_dash else "")
        if ctx.role is not Role.VALUE or not path:
            return []
        last = path[-1]
        holder = path[:-1]
        if assertion_path(holder):
            kind = self.type_of(holder)
            if last == "type":
                return self.assertion_types()
            if last == "id" and kind == "step_output":
                return self.step_ids()
            if last == "name" and kind == "tool_called":
                return self.tool_names()
            if last == "expr" and kind == "jq":
                return self.value_fields(holder)
            return []
        if path in (("workflow",), ("target", "workflow")):
            return self.workflow_files()
        if path == ("target", "model"):
            return [
                self.item(label, ItemKind.REFERENCE, label, detail, doc)
                for label, _k, detail, doc in names.model_names({}, {}, self.env.config)
            ]
        return []

    # -- helpers ------------------------------------------------------------------------------------
    def item(
        self,
        label: str,
        kind: ItemKind,
        insert: str,
        detail: str = "",
        documentation: str = "",
        *,
        snippet: bool = False,
        order: int = 0,
    ) -> CompletionItem:
        lead = " " if self.ctx.needs_space else ""
        return CompletionItem(
            label=label,
            kind=kind,
            range=self.word_range,
            insert=lead + insert,
            detail=detail,
            documentation=documentation,
            snippet=snippet,
            multiline="\n" in insert,
            filter_text=label,
            sort_text=f"{order:04d}",
        )

    def present(self, path: YamlPath) -> set[str]:
        node = self.node_at(path)
        found = {str(k) for k in node} if isinstance(node, MappingNode) else set()
        found |= set(self.ctx.keys) | set(self.ctx.frame_keys.get(path, ()))
        found.discard(self.whole_word)
        return found

    def type_of(self, path: YamlPath) -> str | None:
        node = self.node_at((*path, "type"))
        return node.value if isinstance(node, ScalarNode) and isinstance(node.value, str) else None

    def keys(self, table: dict[str, str], path: YamlPath) -> list[CompletionItem]:
        present = self.present(path)
        suffix = "" if self.ctx.colon_after else ": "
        return [
            self.item(key, ItemKind.KEY, key + suffix, "", doc, order=i)
            for i, (key, doc) in enumerate(table.items())
            if key not in present
        ]

    def assertion_keys(self, path: YamlPath) -> list[CompletionItem]:
        present = self.present(path)
        suffix = "" if self.ctx.colon_after else ": "
        out = []
        for i, (key, required) in enumerate(assertion_fields(self.type_of(path))):
            if key not in present:
                detail = "required" if required else "optional"
                out.append(
                    self.item(key, ItemKind.KEY, key + suffix, detail, docs.ASSERTION_KEYS[key], order=i)
                )
        return out

    def assertion_types(self) -> list[CompletionItem]:
        in_test = self.doc.kind is FileKind.TEST
        return [
            self.item(
                name,
                ItemKind.ENUM,
                name,
                "assertion type",
                doc,
                order=i + (100 if in_test and name == "llm_judge" else 0),
            )
            for i, (name, doc) in enumerate(docs.ASSERTION_TYPES.items())
        ]

    def new_assertions(self, prefix: str) -> list[CompletionItem]:
        """A whole assertion per type: ``type: T`` and its required fields on the lines below."""
        pad = " " * (self.ctx.column + len(prefix) + (1 if self.ctx.needs_space else 0))
        out = []
        for i, (name, doc) in enumerate(docs.ASSERTION_TYPES.items()):
            if name == "llm_judge" and self.doc.kind is FileKind.TEST:
                continue
            lines = [f"{prefix}type: {name}"]
            stop = 1
            for key, required in assertion_fields(name)[1:]:
                if not required:
                    continue
                if key == "assert":
                    lines.append(f"{pad}assert:\n{pad}  - ${stop}")
                else:
                    lines.append(f"{pad}{key}: ${stop}")
                stop += 1
            out.append(
                self.item(name, ItemKind.SNIPPET, "\n".join(lines), "assertion", doc, snippet=True, order=i)
            )
        return out

    # -- the target ---------------------------------------------------------------------------------
    def workflow(self) -> WorkflowDocument | None:
        if self._workflow is False:
            self._workflow = None
            node = workflow_node(self.tree)
            if node is not None and self.env.path is not None:
                assert isinstance(node.value, str)
                loaded = read_source(resolve(self.env.path, node.value))
                if loaded.text is not None:
                    self._workflow = parse_workflow(loaded.text, str(resolve(self.env.path, node.value)))
        return self._workflow if isinstance(self._workflow, WorkflowDocument) else None

    def value_fields(self, holder: YamlPath) -> list[CompletionItem]:
        """After ``.`` (``.a.``) in a ``jq`` assertion's ``expr``: the fields of what it checks, where
        the target workflow tells its shape -- the value of the ``step_output`` step it is nested
        in, else the workflow's result (lait_core.language.value_shapes)."""
        from lait_core.language import value_shapes
        from lait_core.language.value_shapes import field_markdown

        ctx = self.ctx
        if ctx.value_start is None:
            return []
        typed = self.doc.text[ctx.value_start : ctx.offset]
        m = _DOT_TOKEN.search(typed)
        workflow = self.workflow()
        if m is None or workflow is None:
            return []
        around = value_shapes.Surroundings(Path(workflow.path) if workflow.path else None, self.env.config)
        shapes = value_shapes.Shapes(workflow.root, around)
        outer = holder[:-2] if len(holder) >= 2 and holder[-2] == "assert" else None
        step = self.node_at((*outer, "id")) if outer and self.type_of(outer) == "step_output" else None
        if isinstance(step, ScalarNode) and isinstance(step.value, str):
            schema, owner = shapes.step(step.value), f"step `{step.value}`"
        else:
            schema, owner = shapes.final(), "the workflow"
        path = [p for p in m.group(1).split(".") if p]
        schema = value_shapes.walk(schema, path)
        partial = m.group(2) or ""
        rng = self.range(ctx.offset - len(partial), ctx.offset)
        out = []
        for i, (name, sub, required) in enumerate(value_shapes.fields(schema)):
            detail = value_shapes.describe(sub) + ("" if required else " (optional)")
            out.append(
                CompletionItem(
                    name,
                    ItemKind.FIELD,
                    rng,
                    names.member_insert(name, False),
                    detail,
                    field_markdown(name, sub, required, owner, ".".join(path)),
                    filter_text=name,
                    sort_text=f"{i:04d}",
                )
            )
        return out

    def step_ids(self) -> list[CompletionItem]:
        workflow = self.workflow()
        if workflow is None:
            return []
        top = {id(step.node) for step in workflow.steps}
        out = []
        for i, (name, node) in enumerate(step_ids(workflow).items()):
            owner = next((s for s in workflow.all_steps() if s.node.get("id") is node), None)
            nested = owner is not None and id(owner.node) not in top
            detail = f"step ({owner.kind})" if owner is not None else "step"
            doc = f"Step `{name}` of the target workflow, line {node.range.start.line + 1}."
            if nested:
                doc += " A nested step: `lait test` sees the outputs of top-level steps only."
            out.append(
                self.item(name, ItemKind.REFERENCE, name, detail, doc, order=i + (500 if nested else 0))
            )
        return out

    def input_names(self, path: YamlPath) -> list[CompletionItem]:
        """The target workflow's declared ``inputs:`` not given yet."""
        workflow = self.workflow()
        root = workflow.root if workflow is not None else None
        present = self.present(path)
        suffix = "" if self.ctx.colon_after else ": "
        return [
            self.item(name, ItemKind.KEY, name + suffix, "input of the workflow", doc, order=i)
            for i, (name, doc) in enumerate(names.declared_inputs(root.get("inputs") if root else None))
            if name not in present
        ]

    def tool_names(self) -> list[CompletionItem]:
        found: ToolNames = tool_names(self.workflow(), self.env.config)
        out = [
            self.item(name, ItemKind.REFERENCE, name, "tool", f"The {what}.", order=i)
            for i, (name, what) in enumerate(found.exact.items())
        ]
        for j, (server, what) in enumerate(found.servers.items()):
            label = f"{server}__"
            doc = f"A tool of the {what}: `{server}__TOOL` (its tools are listed when the server runs)."
            out.append(self.item(label, ItemKind.REFERENCE, label, "MCP tool prefix", doc, order=100 + j))
        return out

    def workflow_files(self) -> list[CompletionItem]:
        path = self.env.path
        if path is None:
            return []
        word = self.doc.text[self.ctx.value_start or self.ctx.word_start : self.ctx.offset]
        files = names.relative_files(path.parent, word, (".yml", ".yaml"), path)
        return [
            self.item(rel, ItemKind.FILE, rel, "workflow file", "A path relative to this file.", order=i)
            for i, rel in enumerate(files)
            if _is_workflow(path.parent / rel)
        ]


def _is_workflow(path: Path) -> bool:
    """Whether ``path`` is a workflow (not a test, eval or config file), by its name and head."""
    from lait_core.lint.discovery import yaml_kind
    from lait_core.syntax.bounded_read import read_head

    if path.name == "lait.config.yml":
        return False
    try:
        head = read_head(str(path), 4096).decode("utf-8", errors="replace")
    except OSError:
        return False
    return yaml_kind(path, head) is FileKind.WORKFLOW


__all__ = ["assertion_path", "complete", "key_markdown", "key_table"]
