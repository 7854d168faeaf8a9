"""Lint-only workflow checks: references, schemas, capabilities, agent and child-workflow references.

Problems found inside another file (an agent file used by an `agent:` step, a child workflow)
are reported at the reference in this file, with every one of them as a related location in
the other file, so nothing is lost and the editor can jump there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from lait_core.documents.placement import Placement, inherited_message, nesting_problem
from lait_core.documents.schema_files import unknown_type_nodes
from lait_core.documents.validate import suggest
from lait_core.documents.workflow_file import (
    Expr,
    Step,
    WorkflowDocument,
    is_agent_path,
    is_workflow_path,
)
from lait_core.lint.checks.agents import check_agent_content, check_schema_source
from lait_core.lint.checks.capabilities import check_capabilities
from lait_core.lint.findings import ProblemCount, workflow_findings
from lait_core.lint.workspace import (
    AGENT_CONTEXT,
    AgentSummary,
    ChildFindings,
    Reach,
    WorkflowSummary,
    Workspace,
    canonical,
)
from lait_core.rules.capabilities.names_not_checked import CODE as SKIPPED
from lait_core.rules.capabilities.names_not_checked import SkipTracker
from lait_core.rules.config.missing_gguf_file import check_gguf_files
from lait_core.rules.security import shell_interpolation, write_path
from lait_core.rules.templates.undeclared_input import CODE as UNDECLARED_INPUT
from lait_core.rules.templates.unknown_step_reference import CODE as UNKNOWN_STEP_REFERENCE
from lait_core.rules.workflows.agent_reference import CODE as AGENT_REFERENCE
from lait_core.rules.workflows.misplaced_control import CODE as CODE_PLACEMENT
from lait_core.rules.workflows.unknown_schema_type import CODE as UNKNOWN_SCHEMA_TYPE
from lait_core.rules.workflows.unknown_schema_type import unknown_type_message
from lait_core.rules.workflows.unused_agent import check_unused_agents
from lait_core.rules.workflows.unused_schema import check_unused_schemas
from lait_core.rules.workflows.workflow_reference import CODE as WORKFLOW_REFERENCE
from lait_core.support.cancel import checkpoint
from lait_core.syntax import read_log as reads
from lait_core.syntax.diagnostics import Diagnostic, Fix, Related, Severity
from lait_core.syntax.positions import Range
from lait_core.syntax.yaml.tree import MappingNode, Node

_SUMMARY_CODES = (AGENT_REFERENCE, WORKFLOW_REFERENCE)


def _summary(ctx: str, verb: str, ref: str, problems: list[Diagnostic], code: str) -> Diagnostic | None:
    """One diagnostic at the reference for the problems found in another file (and, through nested
    references, in the files it uses): all of them attached as related locations, the first quoted.
    The count is the other file's own findings, counted as lint counts them (a nested reference's
    summary is one finding of the file holding it)."""
    if not problems:
        return None
    ordered = sorted(problems, key=lambda d: (d.severity != Severity.ERROR, d.range.start))
    severity = Severity.ERROR if ordered[0].severity == Severity.ERROR else Severity.WARNING
    flat: list[Related] = []
    for d in ordered:
        if d.code in _SUMMARY_CODES and d.related:
            flat.extend(d.related)
        else:
            flat.append(Related(d.path, d.range, f"{d.code} {d.message}"))
    leaf = flat[0]
    count = ProblemCount.of(problems).describe()
    message = (
        f"{ctx} {verb} '{ref}', which has {count}; the first: {leaf.message} ({leaf.path}:{leaf.range.start})"
    )
    return Diagnostic(code, message, problems[0].range, severity, related=tuple(flat))


@dataclass(slots=True)
class _Tally:
    """The nesting checks made while a child's findings are computed (see :class:`Reach`)."""

    base: int
    """The length of the chain that ends with the child."""
    files: set[str] = field(default_factory=set)
    deeper: int = 0
    dependent: bool = False
    """A check found a problem (or reused findings that do not hold here): the findings are this
    caller's only."""


@dataclass(slots=True)
class _FileState:
    used_schemas: set[str] = field(default_factory=set)
    used_agents: set[str] = field(default_factory=set)


class WorkflowChecks:
    """Runs the lint-only checks of one workflow file (and, through references, its children)."""

    def __init__(self, ws: Workspace, skip: SkipTracker) -> None:
        self.ws = ws
        self.skip = skip
        self._child_results: dict[str, tuple[list[Diagnostic], Reach | None]] = {}
        self._tallies: list[_Tally] = []
        self._project_root: tuple[Path | None] | None = None
        """The project's real directory for the 'write' checks, resolved once per run (None: not yet)."""

    def project_root(self) -> Path | None:
        if self._project_root is None:
            loaded = self.ws.loaded_config
            self._project_root = (
                (Path(os.path.realpath(Path(loaded.project.path).parent)),)
                if loaded and loaded.project
                else (None,)
            )
        return self._project_root[0]

    def run(self, doc: WorkflowDocument, path: Path, stack: tuple[str, ...] = ()) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        root = doc.root
        if root is None:
            return out
        base = path.parent
        stack = stack or (canonical(path),)
        state = _FileState()
        config = self.ws.config
        default = root.get("default")
        if isinstance(default, MappingNode):
            check_capabilities(default, "the workflow's 'default'", config, out, self.skip)
        inputs = root.get("inputs")
        if isinstance(inputs, MappingNode):
            for name, _k, value in inputs.items():
                for tname, at in unknown_type_nodes(value):
                    out.append(
                        Diagnostic(
                            UNKNOWN_SCHEMA_TYPE,
                            unknown_type_message(f"input '{name}'", tname),
                            at.range,
                            Severity.WARNING,
                        )
                    )
        schemas = root.get("schemas")
        if isinstance(schemas, MappingNode):
            for name, _k, value in sorted(schemas.items(), key=lambda t: str(t[0])):
                check_schema_source(value, f"schema '{name}'", base, out)
        agents = root.get("agents")
        if isinstance(agents, MappingNode):
            for name, _k, value in sorted(agents.items(), key=lambda t: str(t[0])):
                if isinstance(value, MappingNode):
                    check_agent_content(value, f"agent '{name}'", base, config, out, self.skip)
        check_gguf_files(root, base, out)  # a workflow's own `models:` (relative to the workflow)
        self.references(doc, out)
        input_schema = root.get("input_schema")
        if input_schema is not None:
            self.schema_use(input_schema, "the workflow's 'input_schema'", base, state, out)
        for i, step in enumerate(doc.all_steps()):
            if not i & 63:
                checkpoint()
            self.step(step, doc, base, state, stack, out)
        if isinstance(schemas, MappingNode):
            check_unused_schemas(schemas, state.used_schemas, out)
        if isinstance(agents, MappingNode):
            check_unused_agents(agents, state.used_agents, out)
        return out

    # -- references -------------------------------------------------------------------------------
    def references(self, doc: WorkflowDocument, out: list[Diagnostic]) -> None:
        from lait_core.syntax import jq
        from lait_core.syntax.template import references as template_references

        root = doc.root
        assert root is not None
        inputs_node = root.get("inputs")
        inputs = [str(k) for k in inputs_node] if isinstance(inputs_node, MappingNode) else []
        ids = [i for s in doc.all_steps() if (i := s.id) is not None]
        id_set, input_set = set(ids), set(inputs)
        exprs: list[tuple[Expr, list[tuple[str, str, int, int]]]] = []
        for n, e in enumerate(doc.jq):
            if not n & 255:
                checkpoint()
            exprs.append((e, [(r.root, r.name, r.start, r.end) for r in jq.references(e.text)]))
        for n, e in enumerate(doc.templates):
            if not n & 255:
                checkpoint()
            exprs.append((e, [(r.root, r.name, r.start, r.end) for r in template_references(e.text)]))
        for expr, refs in exprs:
            for root_name, name, start, end in refs:
                if root_name == "inputs" and name not in input_set:
                    self._ref(
                        out,
                        expr,
                        start,
                        end,
                        name,
                        inputs,
                        UNDECLARED_INPUT,
                        Severity.ERROR,
                        f"{expr.context} references input '{name}', which is not declared in 'inputs:'",
                    )
                elif root_name == "steps" and name not in id_set:
                    self._ref(
                        out,
                        expr,
                        start,
                        end,
                        name,
                        ids,
                        UNKNOWN_STEP_REFERENCE,
                        Severity.WARNING,
                        f"{expr.context} references step '{name}', but no step in this file has that 'id'",
                    )

    @staticmethod
    def _ref(
        out: list[Diagnostic],
        expr: Expr,
        start: int,
        end: int,
        name: str,
        known: list[str],
        code: str,
        severity: Severity,
        message: str,
    ) -> None:
        rng = expr.node.span(start, end)
        guess = suggest(name, known)
        fixes: tuple[Fix, ...] = ()
        if guess:  # the fix replaces the name inside the scalar, not the whole node
            message += f"; did you mean '{guess}'?"
            fixes = (Fix(f"Replace with '{guess}'", rng, guess),)
        out.append(Diagnostic(code, message, rng, severity, fixes=fixes))

    # -- steps ----------------------------------------------------------------------------------
    def schema_use(self, node: Node, ctx: str, base: Path, state: _FileState, out: list[Diagnostic]) -> None:
        value = node.to_python()
        if isinstance(value, str):
            state.used_schemas.add(value)
        else:
            check_schema_source(node, ctx, base, out)

    def step(
        self,
        step: Step,
        doc: WorkflowDocument,
        base: Path,
        state: _FileState,
        stack: tuple[str, ...],
        out: list[Diagnostic],
    ) -> None:
        if step.kind in ("prompt", "agent"):
            check_capabilities(step.node, step.label, self.ws.config, out, self.skip)
        if step.kind == "prompt":
            for key in ("input_schema", "output_schema"):
                node = step.get(key)
                if node is not None:
                    self.schema_use(node, f"the '{key}' of {step.label}", base, state, out)
        elif step.kind == "agent":
            self.agent_reference(step, doc, base, state, out)
        elif step.kind == "workflow":
            self.workflow_reference(step, base, stack, out)
        elif step.kind == "write":
            confined = self.ws.config is not None and self.ws.config.confine == "project"
            write_path.check(step.get("write"), step.label, self.project_root(), confined, out)
        elif step.kind == "run":
            shell_interpolation.check_run_step(step.get("run"), step.label, out)

    def target(
        self,
        ref: str,
        node: Node,
        *,
        is_path: bool,
        base: Path,
        registry: dict[str, str] | None,
        choices: list[str],
        code: str,
        unknown: str,
        out: list[Diagnostic],
    ) -> Path | None:
        """The file a reference names: a path relative to ``base``, or a config registry entry (None when
        it cannot be resolved: reported, or the config is absent and names count as unchecked)."""
        if is_path:
            return base / ref
        if registry is None:
            self.skip.skipped = True
            return None
        if ref in registry:
            return Path(registry[ref])
        hint, fixes = _did_you_mean(ref, choices, node)
        out.append(Diagnostic(code, unknown + hint, node.range, fixes=fixes))
        return None

    def agent_reference(
        self, step: Step, doc: WorkflowDocument, base: Path, state: _FileState, out: list[Diagnostic]
    ) -> None:
        node = step.get("agent")
        ref = node.to_python() if node is not None else None
        if not isinstance(ref, str) or not ref or node is None:
            return
        root = doc.root
        agents = root.get("agents") if root is not None else None
        if isinstance(agents, MappingNode) and ref in agents:
            state.used_agents.add(ref)
            return
        config = self.ws.config
        inline = [str(k) for k in agents] if isinstance(agents, MappingNode) else []
        target = self.target(
            ref,
            node,
            is_path=is_agent_path(ref),
            base=base,
            registry=config.agents if config else None,
            choices=sorted({*inline, *(config.agents if config else {})}),
            code=AGENT_REFERENCE,
            unknown=f"{step.label} uses agent '{ref}', which is neither defined in this workflow's 'agents:' nor"
            f" registered under 'agents:' in lait.config.yml (use a path such as './{ref}.md' for a file)",
            out=out,
        )
        if target is None:
            return
        loaded = self.ws.agent_summary(target)
        if not isinstance(loaded, AgentSummary):
            assert loaded.problem is not None
            out.append(
                Diagnostic(
                    AGENT_REFERENCE,
                    f"{step.label} uses agent '{ref}', which failed to load: {loaded.problem.message}",
                    node.range,
                )
            )
            return
        problems = list(loaded.problems)
        if loaded.ok:
            ctx = f"the agent of {step.label}"
            problems += [_in_context(d, ctx) for d in loaded.content]
            if loaded.skipped:
                self.skip.skipped = True
        summary = _summary(step.label, "uses agent", ref, problems, AGENT_REFERENCE)
        if summary is not None:
            out.append(_relocate(summary, node))

    def workflow_reference(
        self, step: Step, base: Path, stack: tuple[str, ...], out: list[Diagnostic]
    ) -> None:
        node = step.get("workflow")
        ref = node.to_python() if node is not None else None
        if not isinstance(ref, str) or not ref or node is None:
            return
        config = self.ws.config
        target = self.target(
            ref,
            node,
            is_path=is_workflow_path(ref),
            base=base,
            registry=config.workflows if config else None,
            choices=sorted(config.workflows) if config else [],
            code=WORKFLOW_REFERENCE,
            unknown=f"{step.label} runs workflow '{ref}', which is not registered under 'workflows:' in"
            f" lait.config.yml (use a path such as './{ref}.yml' for a file)",
            out=out,
        )
        if target is None:
            return
        reads.note(target)
        if not target.exists():
            out.append(
                Diagnostic(
                    WORKFLOW_REFERENCE,
                    f"{step.label} runs workflow '{ref}', which could not be resolved: no such file"
                    f" '{target}'",
                    node.range,
                )
            )
            return
        key = canonical(target)
        # The run-time loader's nesting rule (cycle, depth 32), through the same function.
        problem = nesting_problem(ref, Path(key), [Path(k) for k in stack], len(stack) - 1)
        self._compared(key, len(stack), problem is not None)
        if problem is not None:
            out.append(Diagnostic(WORKFLOW_REFERENCE, f"{step.label}: {problem}", node.range))
            return
        loaded = self.ws.workflow_summary(target)
        if not isinstance(loaded, WorkflowSummary):
            assert loaded.problem is not None
            out.append(
                Diagnostic(
                    WORKFLOW_REFERENCE,
                    f"{step.label} runs workflow '{ref}', which failed to load: {loaded.problem.message}",
                    node.range,
                )
            )
            return
        findings = self.child_findings(loaded, target, key, stack)
        # LAIT506 (names not checked: no config) is about this lint, not the child: the calling file
        # gets it once, as before
        problems = [d for d in findings if d.code != SKIPPED]
        if len(problems) != len(findings):
            self.skip.skipped = True
        summary = _summary(step.label, "runs workflow", ref, problems, WORKFLOW_REFERENCE)
        if summary is not None:
            out.append(_relocate(summary, node))
        if loaded.ok:
            self.inherited_placement(step, node, ref, loaded, target, stack, out)

    def child_findings(
        self, child: WorkflowSummary, target: Path, key: str, stack: tuple[str, ...]
    ) -> list[Diagnostic]:
        """Exactly what `lait lint` reports for the child at ``target`` run from the chain ``stack``:
        once per file (the first call's), and once per workspace when no nesting check of the child's
        depended on the caller (:class:`Reach`), so the child's parse need not be kept."""
        base = len(stack) + 1
        found = self._child_results.get(key)
        if found is not None:
            self._reused(found[1], stack)
            return found[0]
        folder = str(target.parent)
        known = child.findings.get(folder)
        if known is not None and known.reach.holds(stack):
            reads.note_all(known.reads)
            self._reused(known.reach, stack)
            self._child_results[key] = (known.findings, known.reach)
            return known.findings
        doc = child.doc
        if doc is None:
            again = self.ws.workflow_document(target)
            assert isinstance(again, WorkflowDocument), "the child loaded before"
            doc = again
        tally = _Tally(base)
        self._tallies.append(tally)
        seen: set[str] = set()
        try:
            with reads.recording(seen):
                findings = workflow_findings(doc, target, self, (*stack, key))
        finally:
            self._tallies.pop()
        reads.note_all(seen)
        reach = None if tally.dependent else Reach(frozenset(tally.files), tally.deeper)
        self._child_results[key] = (findings, reach)
        if reach is not None and folder not in child.findings:
            self.ws.keep_findings(child, target, folder, ChildFindings(findings, reach, frozenset(seen)))
        self._reused(reach, stack)
        return findings

    def _compared(self, key: str, chain: int | None, hit: bool) -> None:
        """A nesting check compared ``key`` with a chain of ``chain`` files (None: no depth check)."""
        for tally in self._tallies:
            if hit:
                tally.dependent = True
            tally.files.add(key)
            if chain is not None:
                tally.deeper = max(tally.deeper, chain - tally.base)

    def _reused(self, reach: Reach | None, stack: tuple[str, ...]) -> None:
        """Findings computed before stand for the child called from ``stack`` here: what they
        depended on counts for every child whose findings are being computed around this call."""
        for tally in self._tallies:
            if reach is None or not reach.holds(stack):
                tally.dependent = True
            else:
                tally.files |= reach.files
                tally.deeper = max(tally.deeper, len(stack) + 1 + reach.deeper - tally.base)

    def inherited_placement(
        self,
        step: Step,
        node: Node,
        ref: str,
        child: WorkflowSummary,
        target: Path,
        stack: tuple[str, ...],
        out: list[Diagnostic],
    ) -> None:
        """A child (and its children) called from a `parallel` branch or a concurrent `for_each`
        inherits that placement: what the run-time loader refuses there (`check_placement`, the
        same rules and message) is reported here, at the calling step, with the child's steps as
        related locations."""
        if not step.placement.concurrent:
            return
        found: list[tuple[str, Range, str]] = []
        self._collect_inherited(child, target, step.placement, (*stack, canonical(target)), found)
        if not found:
            return
        path, at, message = found[0]
        more = f"; {len(found) - 1} more" if len(found) > 1 else ""
        out.append(
            Diagnostic(
                CODE_PLACEMENT,
                f"{step.label}: {inherited_message(ref, message)} ({path}:{at.start}{more})",
                node.range,
                related=tuple(Related(p, r, m) for p, r, m in found),
            )
        )

    def _collect_inherited(
        self,
        child: WorkflowSummary,
        path: Path,
        placement: Placement,
        stack: tuple[str, ...],
        found: list[tuple[str, Range, str]],
    ) -> None:
        found.extend((child.path, at, message) for at, message in child.misplaced_under(placement))
        config = self.ws.config
        for ref, step_placement in child.calls:
            if is_workflow_path(ref):
                target = path.parent / ref
            elif config is not None and ref in config.workflows:
                target = Path(config.workflows[ref])
            else:
                continue  # reported in the child's own lint
            key = canonical(target)
            reads.note(target)
            self._compared(key, None, key in stack)
            if key in stack or not target.exists():
                continue
            loaded = self.ws.workflow_summary(target)
            if isinstance(loaded, WorkflowSummary) and loaded.ok:
                self._collect_inherited(loaded, target, placement | step_placement, (*stack, key), found)


def _did_you_mean(name: str, choices: list[str], node: Node) -> tuple[str, tuple[Fix, ...]]:
    """The "; did you mean 'x'?" hint and its replacement fix (both empty when nothing is close)."""
    guess = suggest(name, choices)
    if guess is None:
        return "", ()
    return f"; did you mean '{guess}'?", (Fix(f"Replace with '{guess}'", node.range, guess),)


def _in_context(diag: Diagnostic, ctx: str) -> Diagnostic:
    """An agent summary's finding with :data:`AGENT_CONTEXT` replaced by the using step's ``ctx``."""
    message = diag.message.replace(AGENT_CONTEXT, ctx)
    return Diagnostic(diag.code, message, diag.range, diag.severity, diag.path, diag.related, diag.fixes)


def _relocate(diag: Diagnostic, node: Node) -> Diagnostic:
    return Diagnostic(diag.code, diag.message, node.range, diag.severity, related=diag.related)
