"""Completion for lait files: keys, values, names, step snippets, ``{{ }}`` templates and jq variables.

Everything comes from the cursor context (:mod:`lait_core.language.context`), the models
(:mod:`lait_core.language.completion_shapes`), the document's own located tree and the merged
configuration. The language server only converts positions and types.

Usage::

    doc = prepare(text, FileKind.WORKFLOW)          # once per document version
    items = complete(doc, Position(line, character), Environment(path, config))

While the text does not parse (the usual state while typing), the names a file defines (step
ids, inputs, schemas, inline agents, model aliases) come from a repaired parse: the text with the
cursor's line blanked, or, failing that, the text above the cursor's line.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from lait_core.documents import document_models as m
from lait_core.language import completion_names as names
from lait_core.language.child_inputs import InputSpec, child_inputs
from lait_core.language.completion_names import Choice, ItemKind
from lait_core.language.completion_request import (
    CompletionItem,
    Environment,
    PreparedDocument,
    RequestBase,
    prepare,
)
from lait_core.language.completion_shapes import (
    Place,
    Shape,
    default_text,
    field_of,
    fields,
    literal_text,
    model_doc,
    shape_of,
    type_text,
    walk,
)
from lait_core.language.context import (
    CursorContext,
    Role,
    TemplateCursor,
    YamlPath,
    analyze,
    step_prefixes,
)
from lait_core.language.value_shapes import field_markdown
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import Position, Range
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

# --------------------------------------------------------------------------------------------
# A prepared document (one per version)


# --------------------------------------------------------------------------------------------
# Entry points


def complete(
    doc: PreparedDocument, position: Position, env: Environment | None = None, trigger: str | None = None
) -> list[CompletionItem]:
    """Completion items at ``position`` (code points) of a prepared document."""
    env = env or Environment()
    if doc.kind in (FileKind.TEST, FileKind.EVAL):
        from lait_core.language import testfiles

        return testfiles.complete(doc, position, env)
    offset = doc.index.offset(position)
    ctx = analyze(
        doc.text,
        offset,
        doc.kind,
        doc.tree,
        body_start=doc.body_start,
        first_line=doc.first_line,
        last_line=doc.last_line,
    )
    if ctx.role is Role.NONE:
        return []
    if doc.kind is FileKind.AGENT:
        closing = doc.last_line is not None and doc.body_start is not None and doc.last_line < position.line
        if position.line == 0 or (closing and doc.body_start is not None and offset < doc.body_start):
            return []  # on a `---` delimiter line
    line_start = doc.index.line_start(position.line)
    if trigger == " " and ctx.role is Role.KEY and not doc.text[line_start:offset].strip():
        return []  # typing indentation is not asking for keys
    req = _Request(doc, ctx, env, doc.semantic_tree(position.line))
    return req.run()


def complete_text(
    text: str, position: Position, kind: FileKind, env: Environment | None = None, trigger: str | None = None
) -> list[CompletionItem]:
    return complete(prepare(text, kind), position, env, trigger)


# --------------------------------------------------------------------------------------------
# Step kind snippets

_KIND_SNIPPETS: dict[str, str] = {
    "prompt": "prompt: ${1}",
    "agent": "agent: ${1}",
    "run": "run: [${1:program}]",
    "decide": "decide:\n{i}  ${1:question}:\n{i}    type: ${2|noul,choice,score|}",
    "workflow": "workflow: ${1}",
    "jq": "jq: '${1:.}'",
    "ask": "ask: ${1}",
    "write": "write: ${1:path}",
    "group": "group:\n{i}  - ${1}",
    "switch": "switch:\n{i}  - when: '${1:.}'\n{i}    steps:\n{i}      - ${2}\n{i}else:\n{i}  - ${3}",
    "parallel": "parallel:\n{i}  ${1:branch}:\n{i}    - ${2}",
    "for_each": "for_each: '${1:.items}'\n{i}steps:\n{i}  - ${2}",
    "while": "while: '${1:.}'\n{i}max_iterations: ${2:10}\n{i}steps:\n{i}  - ${3}",
    "until": "until: '${1:.}'\n{i}max_iterations: ${2:10}\n{i}steps:\n{i}  - ${3}",
    "stop": "stop: true",
    "break": "break: true",
}
_COMMON_STEP_KEYS = ("id", "when", "input", "output", "retry", "timeout", "on_error")

_TEMPLATE_HELPERS = {
    "json": "`{{ json x }}` — the value as JSON (strings quoted).",
    "text": "`{{ text x }}` — the value's text form (strings raw, anything else compact JSON).",
}
_BLOCK_HELPERS = {
    "if": "`{{#if x}} … {{else}} … {{/if}}` — render the body when `x` is truthy.",
    "unless": "`{{#unless x}} … {{/unless}}` — render the body when `x` is falsy.",
    "each": "`{{#each list}} {{ this }} {{@index}} {{/each}}` — render the body per element (or per key).",
    "with": "`{{#with x}} {{ this }} {{/with}}` — render the body with `x` as the context.",
}
_DATA_VARIABLES = {
    "index": "The element's position (0-based) in `#each`.",
    "key": "The key of the current entry when `#each` iterates over a mapping.",
    "first": "true for the first element in `#each`.",
    "last": "true for the last element in `#each`.",
}
TYPE_NAMES = ("string", "number", "integer", "boolean", "object", "array", "null")
_SCHEMA_KEYWORDS = {
    "type": (
        "type: ${1|string,number,integer,boolean,object,array,null|}",
        "The value's JSON type (checked by lait).",
    ),
    "description": ("description: $0", "Shown in the error when a required input is missing."),
    "default": ("default: $0", "Makes the input optional; validated against the schema."),
    "enum": ("enum: [$0]", "The allowed values (checked by lait)."),
    "properties": ("properties:\n{i}$0", "Schemas of an object's fields (checked by lait)."),
    "required": ("required: [$0]", "Fields an object must have (checked by lait)."),
    "items": ("items:\n{i}$0", "The schema of an array's elements (checked by lait)."),
}


_PLACEHOLDER = re.compile(r"\\(.)|\$\{\d+:((?:[^}\\]|\\.)*)\}|\$\{\d+\|([^,|]*)[^|]*\|\}|\$\{\d+\}|\$\d+")


def snippet_text(snippet: str) -> str:
    """A snippet as plain text (for editors without snippet support): placeholders become their
    default (a choice its first option), tab stops vanish, escapes are undone."""

    def one(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return m.group(1)
        if m.group(2) is not None:
            return re.sub(r"\\(.)", r"\1", m.group(2))
        if m.group(3) is not None:
            return m.group(3)
        return ""

    return _PLACEHOLDER.sub(one, snippet)


def _escape(text: str) -> str:
    """Literal text inside a snippet."""
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


def _yaml_scalar(name: str) -> str:
    """``name`` as a plain YAML scalar, quoted when it would not read back as itself."""
    if re.fullmatch(r"[A-Za-z0-9_./][A-Za-z0-9_./@+-]*", name) and name not in ("true", "false", "null"):
        return name
    return "'" + name.replace("'", "''") + "'"


# --------------------------------------------------------------------------------------------
# One request


class _Request(RequestBase):
    def __init__(
        self, doc: PreparedDocument, ctx: CursorContext, env: Environment, tree: Node | None
    ) -> None:
        super().__init__(doc, ctx, env, tree)
        self.kind = doc.kind
        self.config = env.config

    def keys_at(self, path: YamlPath) -> list[str]:
        node = self.node_at(path)
        out: list[str] = []
        if isinstance(node, MappingNode):
            out = [str(k) for k in node]
        for k in self.ctx.frame_keys.get(path, ()):
            if k not in out:
                out.append(k)
        return out

    def step_kind(self, path: YamlPath) -> str | None:
        for key in self.keys_at(path):
            if key in m.STEP_KINDS:
                return key
        return None

    # -- dispatch -------------------------------------------------------------------------------
    def run(self) -> list[CompletionItem]:
        ctx = self.ctx
        if ctx.in_body or ctx.language == "template":
            return self.template_items(ctx.template) if ctx.template is not None else []
        if ctx.language == "jq":
            if ctx.jq is None and self.kind is FileKind.WORKFLOW and ctx.path and ctx.path[-1] == "with":
                return self.with_items()
            return self.jq_items() if ctx.jq is not None else []
        place = walk(self.kind, ctx.path, self.step_kind)
        if place is None:
            return self.path_special()
        shape = place.shape
        if ctx.role is Role.VALUE and shape.kind in ("model", "step") and self.alone_on_line():
            # `retry:` then `    max‸` on the next line: YAML reads a value, the person types a key
            ctx = self.ctx = replace(ctx, role=Role.KEY, keys=frozenset(), colon_after=False)
        if ctx.role is Role.KEY:
            if shape.kind == "step":
                return self.step_keys(ctx.path, prefix="")
            if shape.kind == "model" and shape.model is not None:
                return self.model_keys(shape.model, ctx.path, prefix="")
            if shape.kind in ("list", "steps") and shape.item is not None and not ctx.flow:
                return self.item_items(place, shape.item, prefix="- ")
            if shape.kind == "schema" and not shape.schema_name:
                return self.schema_keywords()  # an inline JSON Schema
            if shape.kind in ("scalar", "schema"):
                return self.value_items(place, ctx.path)
            return self.path_special()
        if ctx.role is Role.ITEM:
            return self.item_items(place, shape, prefix="- " if ctx.needs_dash else "")
        if shape.kind == "list" and shape.item is not None and shape.item.kind == "scalar":
            return self.value_items(place, (*ctx.path, 0), wrap=True)
        return self.value_items(place, ctx.path)

    def alone_on_line(self) -> bool:
        text = self.doc.text
        line_start = text.rfind("\n", 0, self.ctx.word_start) + 1
        return not text[line_start : self.ctx.word_start].strip()

    def item_items(self, place: Place, shape: Shape, prefix: str) -> list[CompletionItem]:
        ctx = self.ctx
        path = ctx.path
        if shape.kind == "step":
            if ctx.role is Role.KEY:  # a blank line under `steps:`: a new step goes here
                path = (*path, self.new_index(path))
            return self.step_keys(path, prefix=prefix, fresh=True)
        if shape.kind == "model" and shape.model is not None:
            return self.model_keys(shape.model, path, prefix=prefix, fresh=True)
        if shape.kind == "scalar":
            item_path = path if ctx.role is Role.ITEM else (*path, 0)
            return self.value_items(place, item_path, prefix=prefix)
        return []

    def new_index(self, list_path: YamlPath) -> int:
        node = self.node_at(list_path)
        if isinstance(node, SequenceNode):
            return sum(1 for item in node.items if item.start < self.ctx.offset)
        return 0

    # -- keys -----------------------------------------------------------------------------------
    def insert_prefix(self, prefix: str) -> tuple[str, int]:
        """The text before an insert and the column its first key lands on."""
        ctx = self.ctx
        lead = (" " if ctx.needs_space else "") + prefix
        return lead, ctx.column + len(lead)

    def key_item(
        self, key: str, info: FieldInfo, owner: type[BaseModel], prefix: str, order: int, fresh: bool
    ) -> CompletionItem:
        ctx = self.ctx
        lead, col = self.insert_prefix(prefix)
        shape = shape_of(info.annotation, info.metadata)
        pad = " " * col
        body: str
        snippet = True
        if ctx.colon_after and not fresh:
            body, snippet = key, False
        elif ctx.flow:
            body = f"{key}: $0"
        elif shape.kind == "steps":
            body = f"{key}:\n{pad}  - $0"
        elif shape.kind in ("model", "map"):
            body = f"{key}:\n{pad}  $0"
        elif shape.kind == "list":
            body = f"{key}: [$0]"
        elif shape.literals:
            if len(shape.literals) == 1:
                body = f"{key}: {literal_text(shape.literals[0])}"
            else:
                body = f"{key}: ${{1|{','.join(literal_text(v) for v in shape.literals)}|}}"
        elif shape.boolean:
            body = f"{key}: ${{1|true,false|}}"
        else:
            body = f"{key}: $0"
        doc = _key_doc(key, info, owner)
        return CompletionItem(
            label=key,
            kind=ItemKind.KEY,
            range=self.word_range,
            insert=(_escape(lead) + body) if snippet else lead + body,
            detail=type_text(info.annotation, info.metadata),
            documentation=doc,
            snippet=snippet,
            multiline="\n" in body,
            filter_text=key,
            sort_text=f"1{order:03d}",
        )

    def model_keys(
        self, model: type[BaseModel], path: YamlPath, prefix: str, fresh: bool = False
    ) -> list[CompletionItem]:
        present = set() if fresh else set(self.ctx.keys) | set(self.present_keys(path))
        present.discard(self.whole_word)
        out = []
        for order, (key, info) in enumerate(fields(model)):
            if key in present:
                continue
            out.append(self.key_item(key, info, model, prefix, order, fresh))
        return out

    def present_keys(self, path: YamlPath) -> list[str]:
        if self.ctx.role is not Role.KEY:
            return []
        node = self.node_at(path)
        if isinstance(node, MappingNode) and (self.doc.tree is not None or node.start < self.ctx.offset):
            return [str(k) for k in node]
        return []

    def step_keys(self, path: YamlPath, prefix: str, fresh: bool = False) -> list[CompletionItem]:
        present = set() if fresh else set(self.ctx.keys) | set(self.present_keys(path))
        present.discard(self.whole_word)
        kind = next((k for k in present if k in m.STEP_KINDS), None)
        if kind is None and not fresh:
            kind = next((k for k in self.ctx.frame_keys.get(path, ()) if k in m.STEP_KINDS), None)
            if kind is not None and kind == self.whole_word:
                kind = None
        out: list[CompletionItem] = []
        if kind is not None:
            model = m.STEP_KINDS[kind]
            for order, (key, info) in enumerate(fields(model)):
                if key in present or key in m.STEP_KINDS:
                    continue
                out.append(self.key_item(key, info, model, prefix, order, fresh))
            return out
        for order, step_kind in enumerate(m.STEP_KINDS):
            out.append(self.kind_snippet(step_kind, prefix, order))
        for order, key in enumerate(_COMMON_STEP_KEYS):
            common = field_of(m.CommonStep, key)
            if common is None or key in present:
                continue
            out.append(self.key_item(key, common, m.CommonStep, prefix, 50 + order, fresh))
        return out

    def kind_snippet(self, kind: str, prefix: str, order: int) -> CompletionItem:
        lead, col = self.insert_prefix(prefix)
        body = _KIND_SNIPPETS[kind].replace("{i}", " " * col)
        if self.ctx.colon_after and not prefix:
            body = kind  # the value is already there
        model = m.STEP_KINDS[kind]
        info = field_of(model, kind)
        example = _KIND_SNIPPETS[kind].replace("{i}", "  ")
        doc = model_doc(model)
        if info is not None and info.description:
            doc += f"\n\n`{kind}`: {info.description}"
        accepted = ", ".join(f"`{k}`" for k, _i in fields(model) if k != kind)
        doc += f"\n\n```yaml\n- {snippet_text(example)}\n```\n\nAlso accepts: {accepted}"
        return CompletionItem(
            label=kind,
            kind=ItemKind.SNIPPET,
            range=self.word_range,
            insert=_escape(lead) + body,
            detail=f"{kind} step",
            documentation=doc,
            snippet=True,
            multiline="\n" in body,
            filter_text=kind,
            sort_text=f"0{order:03d}",
        )

    # -- values ---------------------------------------------------------------------------------
    def value_items(
        self, place: Place, path: YamlPath, prefix: str = "", wrap: bool = False
    ) -> list[CompletionItem]:
        """Values for the scalar at ``path`` (``wrap``: a list is expected, insert ``[name]``)."""
        ctx = self.ctx
        shape = place.shape
        if shape.kind == "list" and shape.item is not None:
            shape = shape.item
        choices: list[Choice] = []
        if shape.literals:
            choices = [
                (literal_text(v), ItemKind.ENUM, type_text(place.info.annotation) if place.info else "", "")
                for v in shape.literals
            ]
        elif shape.boolean:
            choices = [("true", ItemKind.KEYWORD, "boolean", ""), ("false", ItemKind.KEYWORD, "boolean", "")]
        else:
            choices = self.names_for(place, path)
        if not choices:
            choices = self.path_choices(path)
        lead = (" " if ctx.needs_space else "") + prefix
        taken = set(ctx.siblings) | self.sibling_items(path)
        taken.discard(self.whole_word)
        out = []
        for order, (label, kind, detail, doc) in enumerate(choices):
            if label in taken:
                continue
            text = _yaml_scalar(label)
            insert = f"[{text}]" if wrap else text
            out.append(
                CompletionItem(
                    label=label,
                    kind=kind,
                    range=self.word_range,
                    insert=lead + insert,
                    detail=detail,
                    documentation=doc,
                    filter_text=label,
                    sort_text=f"{order:04d}",
                )
            )
        return out

    def sibling_items(self, path: YamlPath) -> set[str]:
        if not path or not isinstance(path[-1], int):
            return set()
        node = self.node_at(path[:-1])
        if not isinstance(node, SequenceNode):
            return set()
        return {
            str(item.value)
            for i, item in enumerate(node.items)
            if isinstance(item, ScalarNode) and i != path[-1] and isinstance(item.value, str)
        }

    def names_for(self, place: Place, path: YamlPath) -> list[Choice]:
        owner, key = place.owner, place.key
        if owner is None or key is None:
            return []
        config = self.config
        if key in ("mcp", "tools", "subagents", "skills") and issubclass(
            owner, m.LlmKeys | m.DefaultSettings
        ):
            return names.capability_names(key, self.config_names(names.SECTIONS[key]), config)
        if key == "model" and issubclass(
            owner, m.LlmKeys | m.DefaultSettings | m.PromptDefinition | m.CompactionConfig
        ):
            local = self.local_models() if self.kind is FileKind.WORKFLOW else {}
            config_only = owner is m.CompactionConfig
            return names.model_names({} if config_only else local, self.config_names("models"), config)
        if (
            key in ("input_schema", "output_schema")
            and place.shape.schema_name
            and self.kind is FileKind.WORKFLOW
        ):
            return names.mapping_names(self.node_at(("schemas",)), "schema", "`schemas:` in this workflow")
        if key == "agent" and owner is m.AgentStep:
            return names.agent_refs(self.node_at(("agents",)), config, self.env.path, self.ctx.word)
        if key == "workflow" and owner is m.WorkflowStepModel:
            return names.workflow_refs(config, self.env.path, self.ctx.word)
        if key == "default" and owner is m.AskStep:
            choices = self.node_at((*path[:-1], "choices"))
            if isinstance(choices, SequenceNode):
                return [
                    (str(c.value), ItemKind.VALUE, "one of 'choices'", "")
                    for c in choices.items
                    if isinstance(c, ScalarNode) and c.value is not None
                ]
        if key in ("allow", "deny") and owner is m.ToolPolicy:
            return names.tool_patterns(self.config_names, config)
        return []

    def path_choices(self, path: YamlPath) -> list[Choice]:
        """Values the models do not type: JSON Schema type names in `inputs:`."""
        if self.kind is FileKind.WORKFLOW and (
            (len(path) == 2 and path[0] == "inputs")
            or (len(path) == 3 and path[0] in ("inputs", "schemas") and path[2] == "type")
        ):
            return [(t, ItemKind.ENUM, "JSON Schema type", "") for t in TYPE_NAMES]
        return []

    def path_special(self) -> list[CompletionItem]:
        ctx = self.ctx
        path = ctx.path
        if ctx.role is Role.KEY and self.kind is FileKind.WORKFLOW and len(path) == 2 and path[0] == "inputs":
            return self.schema_keywords()
        if ctx.role in (Role.VALUE, Role.KEY):
            choices = self.path_choices(ctx.path)
            if choices:
                lead = " " if ctx.needs_space else ""
                return [
                    CompletionItem(
                        label, kind, self.word_range, lead + label, detail, doc, sort_text=f"{i:04d}"
                    )
                    for i, (label, kind, detail, doc) in enumerate(choices)
                ]
        return []

    def schema_keywords(self) -> list[CompletionItem]:
        """The JSON Schema keywords lait's validator reads (and `default`/`description` of inputs)."""
        ctx = self.ctx
        present = set(ctx.keys) | set(self.present_keys(ctx.path))
        present.discard(self.whole_word)
        lead, col = self.insert_prefix("")
        out = []
        for order, (key, (body, doc)) in enumerate(_SCHEMA_KEYWORDS.items()):
            if key in present:
                continue
            text = key if ctx.colon_after else body.replace("{i}", " " * (col + 2))
            out.append(
                CompletionItem(
                    label=key,
                    kind=ItemKind.KEY,
                    range=self.word_range,
                    insert=_escape(lead) + text,
                    detail="JSON Schema",
                    documentation=doc,
                    snippet=not ctx.colon_after,
                    multiline="\n" in text,
                    filter_text=key,
                    sort_text=f"{order:03d}",
                )
            )
        return out

    def config_names(self, section: str) -> dict[str, Node | None]:
        """Names a config section defines in this very file (a config being edited)."""
        if self.kind is not FileKind.CONFIG:
            return {}
        node = self.node_at((section,))
        if not isinstance(node, MappingNode):
            return {}
        return {str(k): v for k, _kn, v in node.items()}

    def local_models(self) -> dict[str, Node | None]:
        node = self.node_at(("models",))
        if not isinstance(node, MappingNode):
            return {}
        return {str(k): v for k, _kn, v in node.items()}

    # -- templates ------------------------------------------------------------------------------
    def scope(self) -> names.Scope:
        ctx = self.ctx
        kind, path = self.kind, ctx.path
        if kind is FileKind.AGENT:
            return names.Scope(input=True)
        if kind is FileKind.CONFIG:
            if path and path[0] == "prompts":
                vars_node = self.node_at((*path[:2], "vars"))
                keys = [str(k) for k in vars_node] if isinstance(vars_node, MappingNode) else []
                return names.Scope(input=True, vars=keys)
            if path and path[0] == "tools":
                return names.Scope(input=True, input_fields=names.tool_parameters(self.node_at(path[:2])))
            return names.Scope()
        inputs = names.declared_inputs(self.node_at(("inputs",)))
        prefixes = step_prefixes(path)
        if not prefixes:
            if path == ("output",):
                return names.Scope(inputs=inputs, steps=self.visible_steps(None), dollar=True)
            return names.Scope(input=True, inputs=inputs)
        current = path[: prefixes[-1]]
        loop: str | None = None
        for n in prefixes[:-1]:
            if len(path) > n and path[n] == "steps":
                kind_here = self.step_kind(path[:n])
                if kind_here in ("for_each", "while", "until"):
                    loop = kind_here
        return names.Scope(input=True, inputs=inputs, steps=self.visible_steps(current), loop=loop)

    def visible_steps(self, current: YamlPath | None) -> list[names.StepInfo]:
        """Steps that run before the step at ``current``: document order, not itself, not its ancestors."""
        steps = self.doc.steps(self.tree)
        if current is None:
            return [s for s in steps if s.id]
        line_start = self.doc.index.line_start(self.doc.index.position(self.ctx.offset).line)
        node = self.node_at(current)
        start = min(node.start, line_start) if isinstance(node, MappingNode) else line_start
        ancestors = {current[:n] for n in step_prefixes(current)}
        return [s for s in steps if s.id and s.start < start and s.path not in ancestors]

    def template_items(self, t: TemplateCursor) -> list[CompletionItem]:
        scope = self.scope()
        ctx = self.ctx
        token = t.token
        end = self.word_end_after(ctx.offset)
        out: list[CompletionItem] = []
        if token.startswith("#"):
            rng = self.range(t.token_start, end)
            out.extend(_block_helper_items(rng, ""))
            return out
        if token.startswith("/"):
            if t.blocks:
                name = t.blocks[-1]
                rng = self.range(t.token_start, end)
                out.append(
                    CompletionItem(
                        f"/{name}",
                        ItemKind.KEYWORD,
                        rng,
                        f"/{name}",
                        "close block",
                        f"Closes `{{{{#{name}}}}}`.",
                        filter_text=f"/{name}",
                    )
                )
            return out
        in_each = "each" in t.blocks
        if token.startswith("@"):
            rng = self.range(t.token_start, end)
            data = list(_DATA_VARIABLES.items()) if in_each else []
            data.append(("root", "The template's root context (`@root.input`, ...)."))
            out.extend(_data_variable_item(name, doc, rng, f"{i:02d}") for i, (name, doc) in enumerate(data))
            return out
        if "." in token:
            root, _, rest = token.partition(".")
            if "[" in rest:
                return []
            if "." in rest:
                *path, partial = rest.split(".")
                return self.field_items(root, path, self.range(ctx.offset - len(partial), end), True)
            rng = self.range(ctx.offset - len(rest), end)
            for i, (label, kind, detail, doc, insert) in enumerate(names.members(root, scope, template=True)):
                out.append(
                    CompletionItem(
                        label, kind, rng, insert, detail, doc, filter_text=label, sort_text=f"{i:04d}"
                    )
                )
            return out
        rng = self.range(t.token_start, end)
        roots = names.roots(scope)
        for i, (label, kind, detail, doc) in enumerate(roots):
            out.append(
                CompletionItem(label, kind, rng, label, detail, doc, filter_text=label, sort_text=f"0{i:02d}")
            )
        if t.blocks and ("each" in t.blocks or "with" in t.blocks):
            out.append(
                CompletionItem(
                    "this",
                    ItemKind.VARIABLE,
                    rng,
                    "this",
                    "current element",
                    "The current element of `#each` (or the value of `#with`).",
                    sort_text="000",
                )
            )
            if in_each:
                for i, (name, doc) in enumerate(_DATA_VARIABLES.items()):
                    if name in ("index", "key"):
                        out.append(_data_variable_item(name, doc, rng, f"01{i}"))
        if t.first:
            for i, (name, doc) in enumerate(_TEMPLATE_HELPERS.items()):
                out.append(
                    CompletionItem(
                        name,
                        ItemKind.FUNCTION,
                        rng,
                        f"{name} ",
                        "helper",
                        doc,
                        filter_text=name,
                        sort_text=f"1{i:02d}",
                    )
                )
            out.extend(_block_helper_items(rng, "2"))
        return out

    def field_items(self, root: str, path: list[str], rng: Range, template: bool) -> list[CompletionItem]:
        """The fields after ``steps.<id>.<...>.`` / ``inputs.<name>.<...>.`` (``$``-forms in jq) where
        the value's shape is known (:mod:`lait_core.language.value_shapes`)."""
        from lait_core.language import value_shapes

        scope = self.scope()
        visible = {s.id for s in scope.steps} if root == "steps" else {n for n, _d in scope.inputs}
        if root not in ("steps", "inputs") or not path or path[0] not in visible:
            return []
        around = value_shapes.Surroundings(self.env.path, self.config, self.env.reader)
        schema = value_shapes.Shapes(self.tree, around).at(root, path)
        owner = f"{'step' if root == 'steps' else 'input'} `{path[0]}`"
        where = ".".join(path[1:])
        out: list[CompletionItem] = []
        for i, (name, sub, required) in enumerate(value_shapes.fields(schema)):
            doc = field_markdown(name, sub, required, owner, where)
            out.append(
                CompletionItem(
                    name,
                    ItemKind.FIELD,
                    rng,
                    names.member_insert(name, template),
                    value_shapes.describe(sub) + ("" if required else " (optional)"),
                    doc,
                    filter_text=name,
                    sort_text=f"{i:04d}",
                )
            )
        return out

    def word_end_after(self, offset: int) -> int:
        text = self.doc.text
        end = offset
        while end < len(text) and (text[end].isalnum() or text[end] in "_-"):
            end += 1
        return end

    # -- jq -------------------------------------------------------------------------------------
    def jq_items(self) -> list[CompletionItem]:
        ctx = self.ctx
        assert ctx.jq is not None
        token = ctx.jq.token
        scope = self.scope()
        end = self.word_end_after(ctx.offset)
        out: list[CompletionItem] = []
        if "." in token:
            root, _, rest = token[1:].partition(".")
            if "." in rest:
                *path, partial = rest.split(".")
                return self.field_items(root, path, self.range(ctx.offset - len(partial), end), False)
            dot = ctx.offset - len(rest) - 1
            for i, (label, kind, detail, doc, insert) in enumerate(
                names.members(root, scope, template=False)
            ):
                if insert.startswith("["):
                    rng, text, filt = self.range(dot, end), insert, f".{label}"
                else:
                    rng, text, filt = self.range(dot + 1, end), insert, label
                out.append(
                    CompletionItem(
                        label, kind, rng, text, detail, doc, filter_text=filt, sort_text=f"{i:04d}"
                    )
                )
            return out
        rng = self.range(ctx.jq.token_start, end)
        for i, (label, kind, detail, doc) in enumerate(names.roots(scope, dollar=True)):
            out.append(
                CompletionItem(label, kind, rng, label, detail, doc, filter_text=label, sort_text=f"{i:02d}")
            )
        return out

    # -- with: keys of a workflow step ---------------------------------------------------------
    def with_items(self) -> list[CompletionItem]:
        """At a key of the object literal a ``workflow:`` step's ``with:`` is: the child workflow's
        inputs not given yet, required ones first."""
        ctx = self.ctx
        step = self.node_at(ctx.path[:-1])
        ref = step.get("workflow") if isinstance(step, MappingNode) else None
        if ctx.value_start is None or not isinstance(ref, ScalarNode) or not isinstance(ref.value, str):
            return []
        text = self.doc.text
        start = ctx.value_start
        end = text.find("\n", ctx.offset)
        end = len(text) if end == -1 else end
        node = self.node_at(ctx.path)
        if isinstance(node, ScalarNode) and node.start <= ctx.offset <= node.end:
            end = node.end - 1 if node.style in ("'", '"') and node.end > start else node.end
        if text[start : start + 1] in ("|", ">"):  # a block scalar: the program starts on the next line
            start = text.find("\n", start) + 1
            if start == 0 or start > ctx.offset:
                return []
        from lait_core.language.jq_objects import key_places

        src = text[start:end]
        places = key_places(src)
        cursor = ctx.offset - start
        here = next((p for p in places if p.holds(cursor)), None)
        if here is None:
            return []
        found = child_inputs(ref.value, self.env.path, self.config, self.env.reader)
        if found is None:
            return []
        child, specs = found
        present = {p.name for p in places if p is not here}
        if here.name:
            rng = self.range(start + here.start, start + here.end)
        else:
            rng = self.range(ctx.offset, ctx.offset)
        colon = re.match(r"[ \t\r\n]*:", src[here.end + (1 if here.quoted else 0) :]) is not None
        out: list[CompletionItem] = []
        ordered = [s for s in specs if s.required] + [s for s in specs if not s.required]
        for i, spec in enumerate(ordered):
            if spec.name in present:
                continue
            name = spec.name
            if not here.quoted and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                name = json.dumps(name, ensure_ascii=False)
            insert = name if here.quoted or colon else f"{name}: "
            out.append(
                CompletionItem(
                    spec.name,
                    ItemKind.FIELD,
                    rng,
                    insert,
                    _input_detail(spec),
                    _input_doc(spec, ref.value, child),
                    filter_text=spec.name,
                    sort_text=f"{0 if spec.required else 1}{i:04d}",
                )
            )
        return out


def _input_detail(spec: InputSpec) -> str:
    parts = ["required input" if spec.required else "optional input"]
    if spec.type:
        parts.append(spec.type)
    if spec.default:
        parts.append(f"= {spec.default}")
    return " · ".join(parts)


def _input_doc(spec: InputSpec, ref: str, child: Path) -> str:
    lines = [f"Input `{spec.name}` of `{ref}` (`{child.name}`)."]
    if spec.description:
        lines.append(spec.description)
    lines.append(f"Type: `{spec.type}`" if spec.type else "Type: any value")
    lines.append(
        f"Optional: defaults to `{spec.default}`."
        if not spec.required
        else "Required: the child fails without it."
    )
    return "\n\n".join(lines)


def _key_doc(key: str, info: FieldInfo, owner: type[BaseModel]) -> str:
    parts = [info.description or ""]
    facts = [f"Type: {type_text(info.annotation, info.metadata)}"]
    if info.is_required():
        facts.append("required")
    default = default_text(info)
    if default is not None:
        facts.append(f"default `{default}`")
    parts.append(" · ".join(facts))
    if key in m.STEP_KINDS and owner is m.STEP_KINDS[key]:
        parts.insert(0, model_doc(owner))
    return "\n\n".join(p for p in parts if p)


__all__ = [
    "CompletionItem",
    "Environment",
    "ItemKind",
    "PreparedDocument",
    "complete",
    "complete_text",
    "prepare",
    "snippet_text",
]


def _data_variable_item(name: str, doc: str, rng: Range, sort_text: str) -> CompletionItem:
    """``@name`` (``@index``, ``@root``, ...) in a template."""
    return CompletionItem(
        f"@{name}",
        ItemKind.VARIABLE,
        rng,
        f"@{name}",
        "data variable",
        doc,
        filter_text=f"@{name}",
        sort_text=sort_text,
    )


def _block_helper_items(rng: Range, order: str) -> list[CompletionItem]:
    """`#if`, `#each`, ... as snippets; ``order`` prefixes their sort text (to place them among others)."""
    return [
        CompletionItem(
            f"#{name}",
            ItemKind.KEYWORD,
            rng,
            f"#{name} ${{1:path}}",
            "block helper",
            doc,
            snippet=True,
            filter_text=f"#{name}",
            sort_text=f"{order}{i:02d}",
        )
        for i, (name, doc) in enumerate(_BLOCK_HELPERS.items())
    ]
