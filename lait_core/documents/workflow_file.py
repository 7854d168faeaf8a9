"""workflow.yml (version 2): load-time validation into located, typed steps.

Everything the original loader rejects is found here, but all of it at once (the original
stopped at the first problem) and each at its exact place: the document shape, the version,
unknown keys, types and ranges, identifiers, inline agents, inputs and their defaults, schema
references, every step's kind and keys, jq and template syntax, duplicate ids and the
placement of `break`/`stop`/`ask`/`write`.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lait_core.documents import document_models as m
from lait_core.documents.agent_file import check_agent_settings
from lait_core.documents.json_check import check_value
from lait_core.documents.placement import Misplaced, Placement, ask_problem, write_problem
from lait_core.documents.schema_files import shape_problem
from lait_core.documents.validate import Codes, accepted_keys, describe, first_line, suggest, validate_mapping
from lait_core.rules.agents.schema_name import CODE as CODE_SCHEMA_NAME
from lait_core.rules.agents.schema_source import CODE as CODE_SCHEMA_SOURCE
from lait_core.rules.templates.jq_syntax import CODE as CODE_JQ
from lait_core.rules.templates.template_syntax import CODE as CODE_TEMPLATE
from lait_core.rules.workflows.duplicate_step_id import CODE as CODE_DUPLICATE_ID
from lait_core.rules.workflows.empty_step_list import CODE as CODE_EMPTY_LIST
from lait_core.rules.workflows.inline_agent_system import CODE as CODE_INLINE_SYSTEM
from lait_core.rules.workflows.invalid_identifier import CODE as CODE_IDENTIFIER
from lait_core.rules.workflows.invalid_input import CODE as CODE_INPUTS
from lait_core.rules.workflows.misplaced_control import CODE as CODE_PLACEMENT
from lait_core.rules.workflows.step_invalid_value import CODE as STEP_INVALID_VALUE
from lait_core.rules.workflows.step_kind import CODE as CODE_KIND
from lait_core.rules.workflows.step_unknown_key import CODE as STEP_UNKNOWN_KEY
from lait_core.rules.workflows.undefined_schema import CODE as CODE_SCHEMA_REF
from lait_core.rules.workflows.workflow_invalid_value import CODE as WORKFLOW_INVALID_VALUE
from lait_core.rules.workflows.workflow_not_mapping import CODE as CODE_SHAPE
from lait_core.rules.workflows.workflow_unknown_key import CODE as WORKFLOW_UNKNOWN_KEY
from lait_core.rules.workflows.workflow_version import CODE as CODE_VERSION
from lait_core.support.cancel import checkpoint
from lait_core.syntax.diagnostics import Diagnostic, Fix, Related
from lait_core.syntax.positions import Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode, SourceText

TOP_CODES = Codes(unknown=WORKFLOW_UNKNOWN_KEY, invalid=WORKFLOW_INVALID_VALUE)
STEP_CODES = Codes(
    unknown=STEP_UNKNOWN_KEY,
    invalid=STEP_INVALID_VALUE,
    by_field=(("id", CODE_IDENTIFIER), ("schema_name", CODE_SCHEMA_NAME)),
)

KIND_LIST = ", ".join(m.STEP_KINDS)
TYPE_NAMES = ("string", "number", "integer", "boolean", "object", "array", "null")


def is_identifier(name: Any) -> bool:
    if not isinstance(name, str) or not name:
        return False
    first = name[0]
    if not (first.isascii() and (first.isalpha() or first == "_")):
        return False
    return all(c.isascii() and (c.isalnum() or c in "_-") for c in name)


def identifier_message(what: str, name: Any) -> str:
    return f"invalid {what} \"{name}\": use a letter or '_' followed by letters, digits, '_' or '-'"


def step_name(ident: str | None, number: int, kind: str) -> str:
    """The one name of a step, wherever lait shows it (outline, diagnostics, graph, dry run, run
    progress and events, trace): its ``id``, else ``step-<number> (<kind>)``, ``number`` being the
    step's place in the file counting every step in document order, nested ones included, from 1
    (the number the run's progress counter gives it when every step before it ran once)."""
    return ident if ident is not None else f"step-{number} ({kind})"


@dataclass(slots=True)
class Step:
    kind: str
    node: MappingNode
    label: str
    """How messages name the step: `step 'id'`, else its :attr:`name` (`step-4 (jq)`)."""
    model: m.StepBase | None
    children: list[tuple[str, list[Step]]] = field(default_factory=list)
    placement: Placement = field(default_factory=Placement)
    """Where the step runs within its own file (a child file adds its caller's placement)."""
    number: int = 0
    """The step's place among all the file's steps in document order (from 1, see :func:`step_name`)."""

    @property
    def id(self) -> str | None:
        value = self.node.get("id")
        v = value.to_python() if value is not None else None
        return v if isinstance(v, str) else None

    @property
    def name(self) -> str:
        """The step's one name (:func:`step_name`)."""
        return step_name(self.id, self.number, self.kind)

    @property
    def title(self) -> str:
        """The name with the kind: ``classify (prompt)``, ``step-4 (jq)`` (whose name has it already)."""
        return self.name if self.id is None else f"{self.name} ({self.kind})"

    def get(self, key: str) -> Node | None:
        return self.node.get(key)


@dataclass(slots=True)
class Expr:
    """A jq expression or template in the document, with the node holding it and a context."""

    node: ScalarNode
    text: str
    context: str
    """The lint context, e.g. `step 'x''s 'when'`."""


@dataclass(slots=True)
class WorkflowDocument:
    path: str
    source: SourceText
    root: MappingNode | None = None
    model: m.Workflow | None = None
    steps: list[Step] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    jq: list[Expr] = field(default_factory=list)
    templates: list[Expr] = field(default_factory=list)
    inline_agents: dict[str, m.InlineAgent] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.model is not None and not any(d.severity == "error" for d in self.diagnostics)

    def all_steps(self) -> list[Step]:
        out: list[Step] = []
        stack = list(reversed(self.steps))
        while stack:
            step = stack.pop()
            out.append(step)
            for _name, kids in reversed(step.children):
                stack.extend(reversed(kids))
        return out


@dataclass(frozen=True, slots=True)
class _Place:
    break_ok: bool = False
    concurrent: bool = False
    concurrent_for_each: bool = False

    @property
    def placement(self) -> Placement:
        return Placement(self.concurrent, self.concurrent_for_each)


class _Loader:
    def __init__(self, doc: WorkflowDocument) -> None:
        self.doc = doc
        self.out = doc.diagnostics
        self.ids: dict[str, Node] = {}
        self.schema_names: set[str] = set()
        self.numbered = 0
        """Steps numbered so far (every item of a step list takes the next number, in document order)."""

    # -- helpers ------------------------------------------------------------------------------
    def error(self, code: str, message: str, rng: Range, **kw: Any) -> None:
        self.out.append(Diagnostic(code, message, rng, **kw))

    def misplaced(self, problem: Misplaced | None) -> None:
        if problem is not None:
            self.error(CODE_PLACEMENT, problem.message, problem.range)

    def jq_field(self, node: Node | None, context: str) -> None:
        if isinstance(node, ScalarNode) and isinstance(node.value, str):
            self.doc.jq.append(Expr(node, node.value, context))

    def template_field(self, node: Node | None, context: str) -> None:
        if isinstance(node, ScalarNode) and isinstance(node.value, str):
            self.doc.templates.append(Expr(node, node.value, context))

    def template_list(self, node: Node | None, context: str) -> None:
        if isinstance(node, SequenceNode):
            for item in node.items:
                self.template_field(item, context)

    # -- top level ----------------------------------------------------------------------------
    def load(self, root: Node | None) -> None:
        doc = self.doc
        if not isinstance(root, MappingNode):
            rng = root.range if root is not None else Range.at(0, 0)
            got = describe(root.to_python()) if root is not None else "an empty document"
            self.error(CODE_SHAPE, f"a workflow file must be a YAML mapping with 'steps:' (got {got})", rng)
            return
        doc.root = root
        if self.version_problem(root):
            return
        data: dict[str, Any] = {}
        for key, _k, v in root.items():
            if key == "steps":
                data[key] = []  # step lists are checked by step_list()
            elif key in ("agents", "schemas"):
                data[key] = {} if isinstance(v, MappingNode) else v.to_python()
            else:
                data[key] = v.to_python()
        model = validate_mapping(root, m.Workflow, TOP_CODES, self.out, where="the workflow", data=data)
        self.names(root)
        self.inline_agents(root.get("agents"))
        self.schemas(root.get("schemas"))
        self.inputs(root.get("inputs"))
        self.schema_ref(root.get("input_schema"), "input_schema", "the workflow")
        default = root.get("default")
        if isinstance(default, MappingNode):
            self.template_field(default.get("system"), "the workflow's 'default'")
        self.jq_field(root.get("output"), "the workflow's 'output'")
        steps = root.get("steps")
        if steps is not None:
            doc.steps = self.step_list(steps, "steps", _Place(), TOP_CODES.invalid)
        doc.model = model

    def version_problem(self, root: MappingNode) -> bool:
        version = root.get("version")
        nodes_key = root.key_node("nodes")
        value = version.to_python() if version is not None else None
        if nodes_key is not None or value == 1:
            where = nodes_key if nodes_key is not None else version
            assert where is not None
            self.error(
                CODE_VERSION,
                "this is a version 1 workflow ('nodes:'/'use:'); lait reads version 2: rewrite it with one kind key"
                " per step (prompt:, run:, jq:, ...) as described in the migration guide",
                where.range,
            )
            return True
        if version is not None and (value != 2 or isinstance(value, bool)):
            shown = f"the string {value!r}" if isinstance(value, str) else f"'version: {value}'"
            self.error(
                CODE_VERSION,
                f"unsupported workflow version ({shown}); lait supports the integer 2 (or omit 'version:')",
                version.range,
            )
            return True
        return False

    def names(self, root: MappingNode) -> None:
        for section, what in (("inputs", "input name"), ("schemas", "schema name"), ("agents", "agent name")):
            node = root.get(section)
            if isinstance(node, MappingNode):
                for key, knode, _v in node.items():
                    if not is_identifier(key):
                        self.error(CODE_IDENTIFIER, identifier_message(what, key), knode.range)

    def inline_agents(self, node: Node | None) -> None:
        if not isinstance(node, MappingNode):
            return
        for name, _k, value in node.items():
            where = f"agents.{name}"
            before = len(self.out)
            data: dict[str, Any] | None = None
            if isinstance(value, MappingNode) and "system" not in value:
                self.error(
                    CODE_INLINE_SYSTEM,
                    f"agent '{name}': an inline agent requires a 'system:' prompt template",
                    first_line(value) if value.pairs else value.range,
                )
                data = dict(value.to_python())
                data["system"] = ""
            model = validate_mapping(
                value, m.InlineAgent, TOP_CODES, self.out, where=f"'{where}'", prefix=where, data=data
            )
            if isinstance(value, MappingNode):
                check_agent_settings(value, self.out, prefix=where)
                self.template_field(value.get("system"), f"agent '{name}'")
            if model is not None and len(self.out) == before:
                self.doc.inline_agents[str(name)] = model

    def schemas(self, node: Node | None) -> None:
        if not isinstance(node, MappingNode):
            return
        for name, _k, value in node.items():
            self.schema_names.add(str(name))
            problem = shape_problem(value, names_allowed=False)
            if problem:
                self.error(CODE_SCHEMA_SOURCE, f"'schemas.{name}' {problem}", value.range)

    def schema_ref(self, node: Node | None, key: str, ctx: str) -> None:
        if node is None:
            return
        problem = shape_problem(node, names_allowed=True)
        if problem:
            self.error(CODE_SCHEMA_SOURCE, f"{ctx}'s '{key}' {problem}", node.range)
            return
        value = node.to_python()
        if isinstance(value, str) and value not in self.schema_names:
            names = sorted(self.schema_names)
            guess = suggest(value, names)
            hint = f"; did you mean '{guess}'?" if guess else ""
            fixes: tuple[Fix, ...] = ()
            if guess:
                fixes = (Fix(f"Replace with '{guess}'", node.range, guess),)
            self.error(
                CODE_SCHEMA_REF,
                f"'{key}' refers to schema '{value}', which is not defined in 'schemas:'{hint}",
                node.range,
                fixes=fixes,
            )

    def inputs(self, node: Node | None) -> None:
        if not isinstance(node, MappingNode):
            return
        for name, _k, value in node.items():
            if not isinstance(name, str):
                self.error(CODE_INPUTS, f"input name {name!r} must be a string", _k.range)
                continue
            v = value.to_python()
            if v is None or isinstance(value, MappingNode):
                pass
            elif isinstance(v, str) and v in TYPE_NAMES:
                continue
            else:
                self.error(
                    CODE_INPUTS,
                    f"inputs.{name}: expected a JSON Schema mapping or a type name such as 'string'"
                    f" (one of {', '.join(TYPE_NAMES)}; got {describe(v)})",
                    value.range,
                )
                continue
            if isinstance(value, MappingNode) and "default" in value:
                default_node = value.get("default")
                assert default_node is not None
                for problem in check_value(default_node.to_python(), v, f"inputs.{name}.default"):
                    self.error(
                        CODE_INPUTS, f"input '{name}' has an invalid default: {problem}", default_node.range
                    )

    # -- steps --------------------------------------------------------------------------------
    def step_list(self, node: Node, where: str, place: _Place, code: str = STEP_CODES.invalid) -> list[Step]:
        if not isinstance(node, SequenceNode):
            self.error(
                code,
                f"'{where}' must be a list of steps (got {describe(node.to_python())})",
                node.range,
            )
            return []
        if not node.items:
            self.error(CODE_EMPTY_LIST, f"'{where}' must contain at least one step", node.range)
            return []
        return [s for item in node.items if (s := self.step(item, place)) is not None]

    def step(self, node: Node, place: _Place) -> Step | None:
        self.numbered += 1
        number = self.numbered
        if not isinstance(node, MappingNode):
            self.error(CODE_KIND, f"a step must be a mapping (got {describe(node.to_python())})", node.range)
            return None
        kinds = [k for k in node if isinstance(k, str) and k in m.STEP_KINDS]
        if not kinds:
            hint = ""
            if "use" in node:
                hint = " ('use:' is the version 1 format; put the kind key on the step itself)"
            self.error(CODE_KIND, f"a step needs exactly one of: {KIND_LIST}{hint}", first_line(node))
            return None
        if len(kinds) > 1:
            second = node.key_node(kinds[1])
            assert second is not None
            self.error(
                CODE_KIND,
                f"a step must have exactly one kind, found {' and '.join(kinds)}",
                second.range,
            )
            return None
        kind = kinds[0]
        idv = node.get("id")
        idval = idv.to_python() if idv is not None else None
        label = f"step '{idval}'" if isinstance(idval, str) else step_name(None, number, kind)
        model_cls = m.STEP_KINDS[kind]
        data = self.shallow(node, kind)
        before = len(self.out)
        model = validate_mapping(node, model_cls, STEP_CODES, self.out, where=label, data=data)
        if len(self.out) != before:
            for i in range(before, len(self.out)):
                d = self.out[i]
                if d.code == STEP_CODES.unknown and "did you mean" not in d.message:
                    allowed = ", ".join(accepted_keys(model_cls))
                    key = d.message.split("'")[1]
                    self.out[i] = Diagnostic(
                        d.code,
                        f"unknown key '{key}' in {label}; '{kind}' steps accept: {allowed}",
                        d.range,
                        d.severity,
                    )
        step = Step(kind, node, label, model, placement=place.placement, number=number)
        self.common(step)
        getattr(self, f"kind_{kind}")(step, place)
        return step

    @staticmethod
    def shallow(node: MappingNode, kind: str) -> dict[str, Any]:
        """The step as plain data with nested step lists left out (they are validated on their own)."""
        data: dict[str, Any] = {}
        for key, _k, v in node.items():
            if key in ("on_error", "group", "steps", "else"):
                data[key] = []  # step lists are checked by step_list()
            elif key == "parallel" and isinstance(v, MappingNode):
                data[key] = {bk: [] for bk, _bkn, _bv in v.items()}
            elif key == "switch" and isinstance(v, SequenceNode):
                cases: list[Any] = []
                for case in v.items:
                    if isinstance(case, MappingNode):
                        cases.append(
                            {ck: ([] if ck == "steps" else cv.to_python()) for ck, _ckn, cv in case.items()}
                        )
                    else:
                        cases.append(case.to_python())
                data[key] = cases
            else:
                data[key] = v.to_python()
        return data

    def common(self, step: Step) -> None:
        node = step.node
        idk = node.get("id")
        if idk is not None:
            value = idk.to_python()
            if isinstance(value, str):
                first = self.ids.get(value)
                if first is not None:
                    self.error(
                        CODE_DUPLICATE_ID,
                        f"step id '{value}' is used more than once; ids must be unique within a workflow file",
                        idk.range,
                        related=(Related(self.doc.path, first.range, f"'{value}' is first used here"),),
                    )
                else:
                    self.ids[value] = idk
        for key in ("when", "input", "output"):
            self.jq_field(node.get(key), f"the '{key}' of {step.label}")

    def children(self, step: Step, key: str, place: _Place, where: str | None = None) -> None:
        node = step.node.get(key)
        if node is not None:
            step.children.append((key, self.step_list(node, where or key, place)))

    def on_error(self, step: Step, place: _Place) -> None:
        self.children(step, "on_error", place)

    # -- kinds ----------------------------------------------------------------------------------
    def llm_step(self, step: Step) -> None:
        self.template_list(step.get("files"), step.label)
        self.template_list(step.get("images"), step.label)

    def kind_prompt(self, step: Step, place: _Place) -> None:
        self.template_field(step.get("prompt"), f"the 'prompt' of {step.label}")
        self.template_field(step.get("system"), f"the 'system' of {step.label}")
        self.llm_step(step)
        for key in ("input_schema", "output_schema"):
            self.schema_ref(step.get(key), key, step.label)
        name_key = step.node.key_node("schema_name")
        if name_key is not None and "output_schema" not in step.node:
            self.error(CODE_SCHEMA_NAME, "'schema_name' requires an 'output_schema'", name_key.range)
        elif name_key is None:
            ref = step.get("output_schema")
            value = ref.to_python() if ref is not None else None
            if isinstance(value, str) and value in self.schema_names and ref is not None:
                import re

                if not re.fullmatch(m.SCHEMA_NAME[1:-1], value):
                    self.error(
                        CODE_SCHEMA_NAME,
                        f"schema '{value}' cannot be used as the Structured Outputs name (1 to 64 characters of"
                        " A-Z, a-z, 0-9, '_' or '-'); set 'schema_name'",
                        ref.range,
                    )
        self.on_error(step, place)

    def kind_agent(self, step: Step, place: _Place) -> None:
        self.llm_step(step)
        self.on_error(step, place)

    def kind_run(self, step: Step, place: _Place) -> None:
        run = step.get("run")
        if isinstance(run, SequenceNode) and run.items:
            first = run.items[0].to_python()
            if isinstance(first, str) and not first.strip():
                self.error(
                    STEP_CODES.invalid, "'run' must start with the program to execute", run.items[0].range
                )
            self.template_list(run, f"the 'run' of {step.label}")
        self.on_error(step, place)

    def kind_decide(self, step: Step, place: _Place) -> None:
        questions = step.get("decide")
        if isinstance(questions, MappingNode):
            for qid, _k, q in questions.items():
                if isinstance(q, MappingNode):
                    self.decide_question(str(qid), q)
        self.on_error(step, place)

    def decide_question(self, qid: str, q: MappingNode) -> None:
        qtype = q.get("type")
        kind = qtype.to_python() if qtype is not None else None
        criteria = q.get("criteria")
        value = criteria.to_python() if criteria is not None else None
        at = criteria.range if criteria is not None else first_line(q)
        bad = STEP_CODES.invalid
        if kind == "noul":
            if value is not None and (
                not isinstance(value, dict) or any(k not in ("true", "false") for k in value)
            ):
                self.error(
                    bad, f"question '{qid}': 'noul' criteria may only have 'true' and 'false' keys", at
                )
        elif kind == "choice":
            if not isinstance(value, dict) or not 2 <= len(value) <= 255 or any(not str(k) for k in value):
                self.error(
                    bad, f"question '{qid}': 'choice' needs 'criteria' with 2 to 255 named options", at
                )
            elif any(v is not None and not isinstance(v, str | dict | list) for v in value.values()):
                self.error(
                    bad,
                    f"question '{qid}': each 'choice' option must be null, a string, a mapping or a list",
                    at,
                )
        elif kind == "score" and (not isinstance(value, list) or not 2 <= len(value) <= 10):
            self.error(bad, f"question '{qid}': 'score' needs 'criteria' as a list of 2 to 10 levels", at)

    def kind_workflow(self, step: Step, place: _Place) -> None:
        self.jq_field(step.get("with"), f"the 'with' of {step.label}")
        self.on_error(step, place)

    def kind_jq(self, step: Step, place: _Place) -> None:
        self.jq_field(step.get("jq"), f"the 'jq' of {step.label}")
        self.on_error(step, place)

    def kind_ask(self, step: Step, place: _Place) -> None:
        ask = step.get("ask")
        if isinstance(ask, ScalarNode) and isinstance(ask.value, str) and not ask.value.strip():
            self.error(STEP_CODES.invalid, "'ask' needs a question (it is blank)", ask.range)
        self.template_field(ask, f"the 'ask' of {step.label}")
        choices = step.get("choices")
        values = choices.to_python() if choices is not None else None
        if isinstance(choices, SequenceNode):
            for item in choices.items:
                if item.to_python() == "":
                    self.error(STEP_CODES.invalid, "'choices' must not contain an empty string", item.range)
        default = step.get("default")
        if default is not None and isinstance(values, list) and default.to_python() not in values:
            self.error(
                STEP_CODES.invalid,
                f"'default' {default.to_python()!r} is not one of the 'choices'",
                default.range,
            )
        self.misplaced(ask_problem(step, place.placement))
        self.on_error(step, place)

    def kind_write(self, step: Step, place: _Place) -> None:
        write = step.get("write")
        if isinstance(write, ScalarNode) and isinstance(write.value, str):
            if write.value and not write.value.strip():
                self.error(STEP_CODES.invalid, "'write' needs a path (it is blank)", write.range)
            else:
                self.misplaced(write_problem(step, place.placement))
        self.template_field(write, f"the 'write' of {step.label}")
        self.on_error(step, place)

    def kind_group(self, step: Step, place: _Place) -> None:
        self.children(step, "group", place)
        self.on_error(step, place)

    def kind_switch(self, step: Step, place: _Place) -> None:
        cases = step.get("switch")
        if isinstance(cases, SequenceNode):
            for i, case in enumerate(cases.items):
                if not isinstance(case, MappingNode):
                    continue
                self.jq_field(case.get("when"), f"a case 'when' of {step.label}")
                body = case.get("steps")
                if body is not None:
                    step.children.append((f"switch[{i}]", self.step_list(body, f"switch[{i}].steps", place)))
        self.children(step, "else", place)
        self.on_error(step, place)

    def kind_parallel(self, step: Step, place: _Place) -> None:
        branches = step.get("parallel")
        inner = _Place(break_ok=False, concurrent=True, concurrent_for_each=place.concurrent_for_each)
        if isinstance(branches, MappingNode):
            for name, knode, body in branches.items():
                if not is_identifier(name):
                    self.error(CODE_IDENTIFIER, identifier_message("branch name", name), knode.range)
                step.children.append((f"parallel.{name}", self.step_list(body, f"parallel.{name}", inner)))
        self.on_error(step, place)

    def kind_for_each(self, step: Step, place: _Place) -> None:
        self.jq_field(step.get("for_each"), f"the 'for_each' of {step.label}")
        conc = step.get("max_concurrency")
        n = conc.to_python() if conc is not None else 1
        concurrent = isinstance(n, int) and not isinstance(n, bool) and n >= 2
        inner = (
            _Place(break_ok=False, concurrent=True, concurrent_for_each=True)
            if concurrent
            else _Place(
                break_ok=True, concurrent=place.concurrent, concurrent_for_each=place.concurrent_for_each
            )
        )
        self.children(step, "steps", inner)
        self.on_error(step, place)

    def loop(self, step: Step, place: _Place, key: str) -> None:
        self.jq_field(step.get(key), f"the '{key}' of {step.label}")
        inner = _Place(
            break_ok=True, concurrent=place.concurrent, concurrent_for_each=place.concurrent_for_each
        )
        self.children(step, "steps", inner)
        self.on_error(step, place)

    def kind_while(self, step: Step, place: _Place) -> None:
        self.loop(step, place, "while")

    def kind_until(self, step: Step, place: _Place) -> None:
        self.loop(step, place, "until")

    def literal_true(self, step: Step, key: str) -> None:
        node = step.get(key)
        value = node.to_python() if node is not None else None
        if node is not None and isinstance(value, int) and not isinstance(value, bool):
            self.error(STEP_CODES.invalid, f"'{key}' only accepts 'true' (got {describe(value)})", node.range)

    def kind_stop(self, step: Step, place: _Place) -> None:
        self.literal_true(step, "stop")
        if place.concurrent:
            key = step.node.key_node("stop")
            assert key is not None
            self.error(
                CODE_PLACEMENT,
                f"{step.label}: 'stop' cannot be used inside a 'parallel' branch or a concurrent 'for_each'",
                key.range,
            )

    def kind_break(self, step: Step, place: _Place) -> None:
        self.literal_true(step, "break")
        if not place.break_ok:
            key = step.node.key_node("break")
            assert key is not None
            self.error(
                CODE_PLACEMENT,
                f"{step.label}: 'break' must be inside a 'for_each', 'while' or 'until' body (and not across a"
                " 'parallel' branch or a concurrent 'for_each')",
                key.range,
            )


def is_agent_path(ref: str) -> bool:
    """An `agent:` reference is a file path (not an inline or registry name) when it has a separator
    or ends in `.md`."""
    return "/" in ref or os.sep in ref or ref.endswith(".md")


def is_workflow_path(ref: str) -> bool:
    """A `workflow:` reference is a file path when it has a separator or ends in `.yml`/`.yaml`."""
    return "/" in ref or os.sep in ref or ref.endswith((".yml", ".yaml"))


def agent_file_references(text: str, path: Path) -> set[str]:
    """Absolute paths of the agent files a workflow text uses by path (`agent: ./x.md`)."""
    doc = recent_parse(text, str(path))
    out: set[str] = set()
    for step in doc.all_steps():
        ref = step.get("agent")
        value = ref.to_python() if ref is not None and step.kind == "agent" else None
        if isinstance(value, str) and value and is_agent_path(value):
            out.add(os.path.normpath(os.path.abspath(path.parent / value)))
    return out


def check_syntax(doc: WorkflowDocument) -> None:
    """jq and template syntax of every expression the loader collected (batched for speed)."""
    from lait_core.syntax import jq
    from lait_core.syntax.template import check_syntax as template_syntax

    results = jq.check_many([e.text for e in doc.jq])
    for expr, problem in zip(doc.jq, results, strict=True):
        if problem is not None:
            rng = (
                expr.node.span(problem.start, problem.end if problem.end is not None else problem.start + 1)
                if problem.start is not None
                else expr.node.range
            )
            doc.diagnostics.append(Diagnostic(CODE_JQ, f"{expr.context}: invalid jq: {problem.message}", rng))
    for i, expr in enumerate(doc.templates):
        if not i & 255:
            checkpoint()
        error = template_syntax(expr.text)
        if error is not None:
            doc.diagnostics.append(
                Diagnostic(
                    CODE_TEMPLATE,
                    f"{expr.context}: invalid template: {error.message}",
                    expr.node.span(error.start, error.end),
                )
            )


_RECENT: OrderedDict[tuple[str, str], WorkflowDocument] = OrderedDict()
_RECENT_SIZE = 8
_RECENT_PER_FILE = 2
"""Parses kept of one named file: its newest text and the one used before it (a request may still
be answered from the text the lint had; an incomplete edit's dependants read its last good text). An
editor's every keystroke is a new text of the same file: with only the overall bound, typing into a
10,000-line workflow kept eight of its parses alive (about 12 MiB each, docs/performance.md)."""
_RECENT_LOCK = threading.Lock()


def parse_workflow(text: str, path: str = "") -> WorkflowDocument:
    """Parse and validate a workflow file; never raises for bad input.

    The last few results are kept by file and text (at most :data:`_RECENT_PER_FILE` texts of one
    file), so the linter, the outline and the navigation index of an editor share one parse per
    document version (a parsed document is never mutated afterwards). The file is part of the key
    exactly as given, because the parse's locations and messages name it: two files with the same
    text are two parses, and so are one file's relative display path (``lait lint .``, a workspace
    pull) and its absolute path (an open document), or a workspace pull's messages would name the
    file absolutely whenever the editor had parsed it first.
    """
    key = (path, text)
    with _RECENT_LOCK:  # the language server parses on its request loop and its lint thread
        cached = _RECENT.get(key)
        if cached is not None:
            _RECENT.move_to_end(key)
            return cached
    doc = _parse_workflow(text, path)
    dropped: list[WorkflowDocument] = []  # freed after the lock: a lookup never waits for that
    with _RECENT_LOCK:
        _RECENT[key] = doc
        if path:  # texts parsed without a file name are not versions of one document
            same = [k for k in _RECENT if k[0] == path]
            dropped += [_RECENT.pop(k) for k in same[: len(same) - _RECENT_PER_FILE]]
        if len(_RECENT) > _RECENT_SIZE:
            dropped.append(_RECENT.popitem(last=False)[1])
    return doc


def kept_parse(text: str) -> WorkflowDocument | None:
    """A kept parse of ``text`` made for any file (usually the same file under the linter's display
    name), for readers of its values and positions only: its messages and ``path`` may name another
    file, so nothing that reports them may use it. With it, the language server's lint,
    agent-reference scan, navigation index, semantic tokens and completion share one parse per edit."""
    with _RECENT_LOCK:
        for (_path, kept_text), doc in reversed(_RECENT.items()):
            if kept_text is text or kept_text == text:
                return doc
    return None


def recent_parse(text: str, path: str = "") -> WorkflowDocument:
    """:func:`kept_parse`, else :func:`parse_workflow` ``(text, path)`` (same restriction of use)."""
    return kept_parse(text) or parse_workflow(text, path)


def _parse_workflow(text: str, path: str) -> WorkflowDocument:
    source = SourceText(text, path)
    doc = WorkflowDocument(path, source)
    parsed = parse_yaml(text, path, source=source)
    doc.diagnostics.extend(parsed.problems)
    if not parsed.ok:
        return doc
    checkpoint()
    loader = _Loader(doc)
    loader.load(parsed.root)
    checkpoint()
    if doc.root is not None:
        check_syntax(doc)
    return doc
