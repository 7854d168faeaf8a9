"""`lait run --dry-run`: a workflow's execution plan as text (docs/workflows.md).

Nothing is called: no model, no MCP server, no process. The only reads are the agent files that
``agent:`` steps use, because their frontmatter takes part in model resolution, which is done
exactly as a run does it (so a missing model or an unset ``${VAR}`` in a base URL fails here too,
with the run's error).

Templates are rendered where their data is known before the run: ``{{ inputs.* }}`` always, and
``{{ input }}`` for the first step of the file (or of a group entered with it) when that step has
no ``input:``. Anything else is shown raw, followed by ``[unrendered: ...]``.

Steps are numbered as the run numbers them (docs/workflows.md; :class:`_Count`), so that ``step-4`` in a
run's error is ``[4] step-4`` in the plan: nested lists (``group``, ``switch`` cases, ``on_error``,
sequential loop bodies) continue their parent's count, ``parallel`` branches and concurrent
``for_each`` items count from 1 of their own. Where the number depends on the run -- after a
sequential loop, a ``switch`` whose cases run different numbers of steps, a skipped (``when:``) or
retried step with nested steps, or an ``on_error`` -- the plan shows ``[?] step-?`` and says why at
the end; a loop body shows its first iteration's numbers.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lait_core.documents import document_models as m
from lait_core.documents.workflow_file import Step, WorkflowDocument, is_agent_path
from lait_core.engine.llm.chat_types import EngineError

HEADER = "dry run: showing the execution plan only; no model, MCP server, or command process will be invoked"
UNRENDERED = "  [unrendered: depends on a value not known before the run]"
MODEL_KINDS = frozenset({"prompt", "agent", "decide"})
DEFAULT_SCHEMA_NAME = "structured_output"
_MISSING = object()
LOOP_NOTE = "(numbered as in the first iteration; each iteration continues the count)"
UNKNOWN_NOTE = (
    "[?]: numbered only at run time (after a loop, a switch whose cases run different numbers of "
    "steps, a skipped or retried step with nested steps, or an on_error); an 'id:' names a step "
    "the same in the plan and in the run"
)
_RUN_TIME_ROOTS = re.compile(r"\{\{[^}]*?(?<![\w.-])(steps|loop)\b")
"""``steps``/``loop`` in a tag: only known while the workflow runs (even where a block helper would
treat the missing value as empty)."""


class PlanError(EngineError):
    """The plan cannot be shown (an agent file does not load, say)."""


def compact_json(value: Any) -> str:
    """JSON without spaces (the text form of non-strings)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def number(value: float) -> str:
    """``1.0`` as ``1``, ``1.5`` as ``1.5``."""
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    return str(value)


def describe_schema(ref: Any) -> str:
    """A schema reference in one line: a ``schemas:`` name, a file, or an inline schema."""
    if isinstance(ref, str):
        return f"'{ref}' (from 'schemas:')"
    if isinstance(ref, dict) and set(ref) == {"file"}:
        return f"file {ref['file']}"
    if isinstance(ref, bool):
        return f"inline schema {str(ref).lower()}"
    return "inline schema"


@dataclass(frozen=True, slots=True)
class PlanSettings:
    """What model resolution yields for one LLM step."""

    model_id: str
    base_url: str
    capabilities: tuple[tuple[str, tuple[str, ...]], ...]


def resolve_step_settings(
    label: str,
    layers: Sequence[m.LlmKeys | m.DefaultSettings | None],
    config: m.Config,
    *,
    workflow_models: Mapping[str, Sequence[m.ModelDefinition]] | None,
    agent_layer: bool,
    environ: Mapping[str, str] | None = None,
) -> PlanSettings:
    """Model and capability lists of an LLM step, resolved exactly as a run resolves them (docs/workflows.md:
    each field from the first layer that sets it, then the config's ``default:``); the base URL is
    expanded, so an unset ``${VAR}`` fails here as it would in the run."""
    from lait_core.engine.llm.llm_settings import resolve_llm_settings
    from lait_core.engine.workflow.llm_steps import AGENT_NOTE, PROMPT_NOTE

    settings = resolve_llm_settings(
        f"step '{label}'",
        layers,
        config,
        workflow_models=workflow_models,
        note=AGENT_NOTE if agent_layer else PROMPT_NOTE,
    )
    endpoint = settings.model.endpoints[0]
    caps = (
        ("mcp", settings.mcp),
        ("skills", settings.skills),
        ("subagents", settings.subagents),
        ("tools", settings.tools),
    )
    return PlanSettings(endpoint.model_id, endpoint.base_url(environ), caps)


@dataclass(slots=True)
class _Count:
    """The run's progress counter of one step list and the lists nested in it, as far as it is
    known before the run: ``value`` is the last number given; once ``exact`` is False the numbers
    depend on the run. ``ended``: the list ends the workflow (``stop``) or the loop (``break``)
    here, so no later step of it runs on this path."""

    value: int = 0
    exact: bool = True
    ended: str | None = None

    def copy(self) -> _Count:
        return _Count(self.value, self.exact, self.ended)

    def join(self, paths: Sequence[_Count]) -> None:
        """Become the count after one of ``paths`` ran (a switch's cases, a step or its
        ``on_error``, a step or its skipping): exact when every path that goes on to the next
        step ends at the same known number."""
        going = [path for path in paths if path.ended is None]
        if not going:
            self.value = max(path.value for path in paths)
            self.ended = "stop" if all(path.ended == "stop" for path in paths) else "break"
            return
        self.value = max(path.value for path in going)
        self.exact = all(path.exact and path.value == self.value for path in going)
        self.ended = None


class _Planner:
    def __init__(
        self,
        doc: WorkflowDocument,
        path: Path,
        config: m.Config,
        inputs: Mapping[str, Any],
        environ: Mapping[str, str] | None = None,
    ) -> None:
        assert doc.model is not None
        self.environ = environ
        self.doc = doc
        self.workflow = doc.model
        self.base = path.parent
        self.config = config
        self.inputs = dict(inputs)
        self.lines: list[str] = []
        self.count = _Count()
        self.unknown = False
        """Some step's number is shown as ``?``."""

    def out(self, indent: str, text: str) -> None:
        first, *rest = text.split("\n")
        self.lines.append(f"{indent}{first}".rstrip())
        self.lines.extend(f"{indent}  {line}".rstrip() for line in rest)

    # -- templates ------------------------------------------------------------------------------
    def preview(self, source: str, known: Any) -> str:
        from lait_core.syntax.template import TemplateRenderError, TemplateSyntaxError, render

        if _RUN_TIME_ROOTS.search(source):
            return source.rstrip("\n") + UNRENDERED
        context: dict[str, Any] = {"inputs": self.inputs}
        if known is not _MISSING:
            context["input"] = known
        try:
            text = render(source, context)
        except (TemplateRenderError, TemplateSyntaxError):
            return source.rstrip("\n") + UNRENDERED
        return text.rstrip("\n")

    # -- effective retry/timeout ----------------------------------------------------------------
    def retry(self, step: Step) -> m.RetryDefinition | None:
        own = getattr(step.model, "retry", None)
        if own is not None:
            return own  # type: ignore[no-any-return]
        default = self.workflow.default
        return default.retry if default is not None and step.kind in MODEL_KINDS else None

    def timeout(self, step: Step) -> int | None:
        own = getattr(step.model, "timeout", None)
        if own is not None:
            return own  # type: ignore[no-any-return]
        default = self.workflow.default
        return default.timeout if default is not None and step.kind in MODEL_KINDS else None

    # -- steps ----------------------------------------------------------------------------------
    def steps(self, steps: list[Step], indent: str, first_input: Any) -> None:
        for position, step in enumerate(steps, 1):
            model = step.model
            known = first_input if position == 1 and model is not None and model.input is None else _MISSING
            self.step(step, position, indent, known)

    def kids(self, step: Step, key: str) -> list[Step]:
        for name, kids in step.children:
            if name == key:
                return kids
        return []

    def step(self, step: Step, position: int, indent: str, known: Any) -> None:
        model = step.model
        assert model is not None
        count = self.count
        count.value += 1  # as the run: every step takes a number, a skipped one too
        shown = str(count.value) if count.exact else "?"
        self.unknown = self.unknown or not count.exact
        own = count.copy()
        label = step.name
        kind = step.kind
        inner = indent + "    "
        body = inner + "    "
        self.out(indent, f"[{shown}] {label}" if step.id is None else f"[{shown}] {label}  ({kind})")
        if model.when is not None:
            self.out(inner, f"when: {model.when}")
        if model.input is not None:
            self.out(inner, f"input: {model.input}")
        getattr(self, f"kind_{kind}")(step, model, label, inner, body, known)
        self.after_step(step, own)
        if model.output is not None:
            self.out(inner, f"output: {model.output}")
        retry = self.retry(step)
        if retry is not None:
            self.out(
                inner,
                f"retry: max_attempts={retry.max_attempts}, delay_seconds={retry.delay_seconds}, "
                f"backoff={number(retry.backoff)}",
            )
        timeout = self.timeout(step)
        if timeout is not None:
            self.out(inner, f"timeout: {timeout}s")
        on_error = self.kids(step, "on_error")
        if on_error:
            self.out(inner, "on_error:")
            # after the step's own number when it has no nested steps; else after some of them
            nested = count.value != own.value
            self.count = _Count(own.value, own.exact and not nested)
            self.steps(on_error, body, _MISSING)
            handled = self.count
            self.count = count
            count.join([count.copy(), handled])  # the handlers run only when the step fails

    def after_step(self, step: Step, own: _Count) -> None:
        """What the step's nested steps did to the count, seen from the steps after it."""
        model = step.model
        assert model is not None
        count = self.count
        if step.kind in ("stop", "break"):
            count.ended = step.kind
        if count.value != own.value and getattr(model, "retry", None) is not None:
            count.exact = False  # an attempt after the first numbers the nested steps again
        if model.when is not None:  # skipped: none of its nested steps runs
            count.join([count.copy(), _Count(own.value, own.exact)])

    def settings(self, label: str, layers: Sequence[Any], inner: str, *, agent_layer: bool) -> None:
        settings = resolve_step_settings(
            label,
            layers,
            self.config,
            workflow_models=self.workflow.models,
            agent_layer=agent_layer,
            environ=self.environ,
        )
        self.out(inner, f"model: {settings.model_id} @ {settings.base_url}")
        for key, values in settings.capabilities:
            if values:
                self.out(inner, f"{key}: {', '.join(values)}")

    # -- kinds ----------------------------------------------------------------------------------
    def kind_prompt(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.PromptStep)
        self.out(inner, f"prompt: {self.preview(model.prompt, known)}")
        default = self.workflow.default
        system = model.system if model.system is not None else default.system if default else None
        if system is not None:
            self.out(inner, f"system: {self.preview(system, known)}")
        if model.input_schema is not None:
            self.out(inner, f"input_schema: {describe_schema(model.input_schema)}")
        if model.output_schema is not None:
            ref = model.output_schema
            name = model.schema_name or (ref if isinstance(ref, str) else DEFAULT_SCHEMA_NAME)
            self.out(inner, f"output_schema: {describe_schema(ref)} (name: {name})")
        self.settings(label, [model, default], inner, agent_layer=False)

    def kind_agent(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.AgentStep)
        ref = model.agent
        definition: m.LlmKeys | None
        if ref in self.doc.inline_agents:
            self.out(inner, f"agent: {ref} (inline, from 'agents:')")
            definition = self.doc.inline_agents[ref]
        elif is_agent_path(ref):
            self.out(inner, f"agent: {ref}")
            definition = self.load_agent(self.base / ref, f"step '{label}': failed to load agent file {ref}")
        elif ref in self.config.agents:
            self.out(inner, f"agent: {ref} (registered in lait.config.yml)")
            definition = self.load_agent(
                Path(self.config.agents[ref]), f"step '{label}': failed to load agent '{ref}'"
            )
        else:
            self.out(inner, f"agent: {ref}")
            self.out(inner, f"(agent '{ref}' is not registered; the run would fail)")
            return
        self.settings(label, [model, definition, self.workflow.default], inner, agent_layer=True)

    @staticmethod
    def load_agent(path: Path, context: str) -> m.AgentFrontmatter:
        from lait_core.documents.agent_file import parse_agent
        from lait_core.syntax.bounded_read import read_source

        loaded = read_source(path)
        if loaded.text is None:
            assert loaded.problem is not None
            raise PlanError(f"{context}: {loaded.problem.message}")
        doc = parse_agent(loaded.text, str(path))
        errors = [d for d in doc.diagnostics if d.severity == "error"]
        if doc.frontmatter is None or errors:
            first = errors[0] if errors else None
            where = ""
            if first is not None:
                start = first.range.start
                where = f"{path}:{start.line + 1}:{start.character + 1}: {first.message}"
            raise PlanError(f"{context}: {where or 'invalid agent file'}")
        return doc.frontmatter

    def kind_run(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.RunStep)
        self.out(inner, "run: " + " ".join(self.preview(arg, known) for arg in model.run))
        if model.env:
            self.out(inner, f"env: {', '.join(sorted(model.env))}")
        if model.cwd is not None:
            self.out(inner, f"cwd: {model.cwd}")

    def kind_decide(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.DecideStep)
        questions = ", ".join(f"{qid} ({q.type})" for qid, q in model.decide.items())
        self.out(inner, f"decide: {questions}")
        if model.model is not None:
            self.out(inner, f"model: {model.model}")
        self.out(inner, "(running 'decide' steps is not supported by this version of lait)")

    def kind_workflow(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.WorkflowStepModel)
        self.out(inner, f"workflow: {model.workflow} (not expanded; run 'lait run --dry-run' on it directly)")
        if model.with_ is not None:
            self.out(inner, f"with: {model.with_}")

    def kind_jq(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.JqStep)
        self.out(inner, f"jq: {model.jq}")

    def kind_ask(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.AskStep)
        self.out(inner, f"ask: {self.preview(model.ask, known)}")
        if model.choices:
            self.out(inner, f"choices: {', '.join(model.choices)}")
        if model.default is not None:
            self.out(inner, f"default: {model.default}  (used when stdin is not an interactive terminal)")
        else:
            self.out(inner, "default: none  (fails when stdin is not an interactive terminal)")

    def kind_write(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.WriteStep)
        self.out(inner, f"write: {self.preview(model.write, known)}")

    def kind_group(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        self.steps(self.kids(step, "group"), inner, known)

    def kind_switch(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.SwitchStep)
        start = self.count
        ends: list[_Count] = []
        for index, case in enumerate(model.switch):
            self.out(inner, f"case {index + 1}: when {case.when}")
            self.count = start.copy()  # one case runs: each starts where the switch is
            self.steps(self.kids(step, f"switch[{index}]"), body, _MISSING)
            ends.append(self.count)
        otherwise = self.kids(step, "else")
        if otherwise:
            self.out(inner, "else:")
            self.count = start.copy()
            self.steps(otherwise, body, _MISSING)
            ends.append(self.count)
        else:
            self.out(inner, "else: (none; no matching case is a runtime error)")
        self.count = start
        start.join(ends)

    def own_count(self, kids: list[Step], body: str) -> None:
        """A parallel branch or a concurrent item: a count of its own, from 1."""
        outer = self.count
        self.count = _Count()
        self.steps(kids, body, _MISSING)
        self.count = outer

    def loop_body(self, kids: list[Step], body: str) -> None:
        """A sequential loop: the body continues the count, once per iteration."""
        start = self.count.value
        if kids and self.count.exact:
            self.out(body, LOOP_NOTE)
        self.steps(kids, body, _MISSING)
        count = self.count
        if count.value != start:
            count.exact = False
        count.ended = None  # `break` ends the loop; without an iteration, nothing of it ran

    def kind_parallel(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.ParallelStep)
        for name in model.parallel:
            self.out(inner, f"branch '{name}':")
            self.own_count(self.kids(step, f"parallel.{name}"), body)

    def kind_for_each(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.ForEachStep)
        self.out(inner, f"items: {model.for_each}")
        if model.max_concurrency > 1:
            self.out(inner, f"max_concurrency: {model.max_concurrency}")
            self.own_count(self.kids(step, "steps"), body)
        else:
            self.loop_body(self.kids(step, "steps"), body)

    def kind_while(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.WhileStep)
        self.out(inner, f"while {model.while_}, max_iterations: {model.max_iterations}")
        self.loop_body(self.kids(step, "steps"), body)

    def kind_until(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        assert isinstance(model, m.UntilStep)
        self.out(inner, f"until {model.until}, max_iterations: {model.max_iterations}")
        self.loop_body(self.kids(step, "steps"), body)

    def kind_stop(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        self.out(inner, "-> ends the workflow with the current value")

    def kind_break(self, step: Step, model: Any, label: str, inner: str, body: str, known: Any) -> None:
        self.out(inner, "-> ends the innermost loop with the current value")

    # -- the whole file -------------------------------------------------------------------------
    def plan(self, initial_input: Any) -> str:
        wf = self.workflow
        self.lines.append(HEADER)
        if wf.input_schema is not None:
            self.lines.append(f"input_schema: {describe_schema(wf.input_schema)}")
        if self.inputs:
            self.lines.append(f"inputs: {compact_json(self.inputs)}")
        self.steps(self.doc.steps, "", initial_input)
        if wf.output is not None:
            self.lines.append(f"output: {wf.output}")
        if wf.timeout is not None:
            self.lines.append(f"timeout: {wf.timeout}s (whole workflow)")
        if self.unknown:
            self.lines.append(UNKNOWN_NOTE)
        return "\n".join(self.lines) + "\n"


def dry_run_plan(
    doc: WorkflowDocument,
    *,
    path: Path,
    config: m.Config,
    initial_input: Any,
    inputs: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The plan of a loaded, valid workflow file (``doc.ok``) as text.

    ``initial_input`` is the typed initial value (PROMPT after the ``input_schema`` rules, ``None``
    without one); ``inputs`` the resolved ``inputs:`` values. Raises :class:`ConfigurationError`
    for model resolution problems and :class:`PlanError` when an agent file does not load.
    """
    if doc.model is None:
        raise PlanError(f"{path}: the workflow did not load")
    return _Planner(doc, path, config, inputs or {}, environ).plan(initial_input)


# -- the whole dry run: inputs and the initial value typed and checked as a run does ---------------
def top_level_schema(doc: WorkflowDocument, path: Path) -> Any:
    """The body of the workflow's ``input_schema`` (None without one)."""
    from lait_core.documents.schema_files import load_schema_file
    from lait_core.engine.workflow.workflow_errors import WorkflowError

    assert doc.model is not None
    ref = doc.model.input_schema
    if isinstance(ref, str):
        ref = (doc.model.schemas or {}).get(ref)
    if isinstance(ref, dict) and set(ref) == {"file"} and isinstance(ref["file"], str):
        loaded = load_schema_file(path.parent, ref["file"])
        if loaded.error is not None:
            raise WorkflowError(f"input_schema: {loaded.error}")
        return loaded.value
    return ref


def dry_run(
    doc: WorkflowDocument,
    path: Path,
    config: m.Config,
    prompt: str | None,
    cli_inputs: dict[str, str],
    environ: Mapping[str, str] | None = None,
) -> str:
    """The plan text; the initial value and inputs are typed and checked as a run does (``environ``:
    the run's environment for ``${VAR}`` in base URLs; None: the process's)."""
    from lait_core.engine.workflow.inputs import bind_inputs, initial_value
    from lait_core.engine.workflow.schema_refs import validate

    assert doc.model is not None
    inputs = bind_inputs(doc.model.inputs, cli_inputs, from_text=True)
    schema = top_level_schema(doc, path)
    initial = initial_value(prompt, schema)
    if schema is not None and prompt is not None:  # without a PROMPT the null value is not checked
        validate(initial, schema, "input", "the workflow's input")
    return dry_run_plan(doc, path=path, config=config, initial_input=initial, inputs=inputs, environ=environ)
