"""Lint a test or eval file (docs/testing.md): its shape (LAIT701/702), its target workflow
(LAIT703), the step ids (LAIT704) and tool names (LAIT705) its assertions name, its replay folder
(LAIT706) and the jq of ``jq``/``args_jq`` assertions (LAIT402)."""

from __future__ import annotations

from pathlib import Path

from lait_core.lint.discovery import FileKind
from lait_core.lint.workspace import Workspace
from lait_core.rules.templates.jq_syntax import CODE as JQ_SYNTAX
from lait_core.rules.templates.template_syntax import CODE as TEMPLATE_SYNTAX
from lait_core.rules.testfiles import (
    invalid_value,
    replay_folder,
    unknown_input,
    unknown_step,
    workflow_target,
)
from lait_core.rules.testfiles import unknown_asserted_tool as unknown_tool
from lait_core.rules.testfiles.invalid_value import AssertionNode
from lait_core.rules.testfiles.target import string_at, tool_names, workflow_node
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.positions import ZERO
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

JQ_FIELDS = {"jq": "expr", "tool_called": "args_jq"}


def check_file(text: str, path: Path, display: str, kind: FileKind, ws: Workspace) -> list[Diagnostic]:
    parsed = parse_yaml(text, display)
    out = list(parsed.problems)
    if not parsed.ok:
        return out
    root = parsed.root
    found: list[AssertionNode] = []
    if kind is FileKind.TEST:
        _test_shape(root, out, found)
    else:
        _eval_shape(root, out, found)
    if not isinstance(root, MappingNode):
        return out
    _jq(found, out)
    if kind is FileKind.TEST:
        replay_folder.check(root.get("replay"), path, out)
    workflow = workflow_target.check(workflow_node(root), path, ws, out)
    if workflow is not None:
        unknown_step.check(found, workflow, out)
        given = root.get("inputs") if kind is FileKind.TEST else string_free(root.get("target"), "inputs")
        unknown_input.check(given, workflow, out)
        if ws.config is not None:
            unknown_tool.check(found, tool_names(workflow, ws.config), out)
    return out


def string_free(node: Node | None, key: str) -> Node | None:
    """``node[key]`` of a mapping (any value)."""
    return node.get(key) if isinstance(node, MappingNode) else None


def _test_shape(root: Node | None, out: list[Diagnostic], found: list[AssertionNode]) -> None:
    from lait_core.testing.definition import TestDefinition

    if root is None:
        out.append(Diagnostic(invalid_value.CODE, "a test file needs 'workflow' and 'replay'", ZERO))
        return
    invalid_value.check_top(root, TestDefinition, "the test file", out)
    if isinstance(root, MappingNode):
        invalid_value.check_assertions(root.get("assert"), "", True, out, found)


def _eval_shape(root: Node | None, out: list[Diagnostic], found: list[AssertionNode]) -> None:
    from lait_core.testing.definition import EvalCase, EvalDefinition

    if root is None:
        out.append(Diagnostic(invalid_value.CODE, "an eval file needs 'target' and 'cases'", ZERO))
        return
    invalid_value.check_top(root, EvalDefinition, "the eval file", out)
    if not isinstance(root, MappingNode):
        return
    prompt = string_at(root, "target", "prompt")
    if prompt is not None:
        from lait_core.syntax.template import check_syntax

        error = check_syntax(prompt.value)
        if error is not None:
            out.append(
                Diagnostic(
                    TEMPLATE_SYNTAX,
                    f"'target.prompt': invalid template: {error.message}",
                    prompt.span(error.start, error.end),
                )
            )
    cases = root.get("cases")
    if isinstance(cases, SequenceNode):
        for i, case in enumerate(cases.items):
            where = f"cases[{i}]"
            invalid_value.check_top(case, EvalCase, f"'{where}'", out, prefix=where)
            if isinstance(case, MappingNode):
                invalid_value.check_assertions(case.get("assert"), f"{where}.", False, out, found)


def _jq(found: list[AssertionNode], out: list[Diagnostic]) -> None:
    from lait_core.syntax import jq

    nodes = []
    for a in found:
        key = JQ_FIELDS.get(a.type)
        node = a.node.get(key) if key else None
        if isinstance(node, ScalarNode) and isinstance(node.value, str):
            nodes.append((a, key, node))
    results = jq.check_many([node.value for _a, _k, node in nodes])
    for (a, key, node), problem in zip(nodes, results, strict=True):
        if problem is None:
            continue
        end = problem.end if problem.end is not None else (problem.start or 0) + 1
        rng = node.span(problem.start, end) if problem.start is not None else node.range
        out.append(Diagnostic(JQ_SYNTAX, f"'{a.prefix}.{key}': invalid jq: {problem.message}", rng))
