"""Score one yaml-test-suite case against lait's located reader."""

from __future__ import annotations

from lait_core.syntax.diagnostics import Severity
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, SequenceNode
from tests.conformance.yaml_suite import Case, expected_value, same

ERROR_CODES = frozenset(("LAIT001", "LAIT008"))


def outcome(case: Case) -> str | None:
    """None when lait agrees with the suite, else what went wrong."""
    parsed = parse_yaml(case.yaml, "case.yml")
    errors = [p for p in parsed.problems if p.severity is Severity.ERROR]
    lines = parsed.source.index.line_count
    for problem in errors:
        if problem.range.start.line >= lines or problem.range.end.line >= lines:
            return f"{problem.code} located outside the text: {problem.range}"
    if case.fail:
        if not errors:
            return "accepted an invalid document"
        if not any(p.code in ERROR_CODES for p in errors):
            return f"rejected with {[p.code for p in errors]}, not LAIT001"
        return None
    if errors:
        first = errors[0]
        return f"rejected a valid document: {first.range.start}: {first.code} {first.message}"
    if parsed.root is not None:
        misplaced = _misplaced(parsed.root)
        if misplaced:
            return misplaced
    value = None if parsed.root is None else parsed.root.to_python()
    want = expected_value(case)
    if not same(value, want):
        return f"composed {value!r}, the suite says {want!r}"
    return None


def _misplaced(root: Node) -> str | None:
    """Every node's (line, character) range must be where its code-point offsets are."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.document is not None:
            index = node.document.index
            if not 0 <= node.start <= node.end <= len(node.document.text):
                return f"{node!r}: offsets {node.start}..{node.end} outside the text"
            if index.range(node.start, node.end) != node.range:
                return f"{node!r}: range {node.range} is not at offsets {node.start}..{node.end}"
        if isinstance(node, MappingNode):
            for k, v in node.pairs:
                stack += (k, v)
        elif isinstance(node, SequenceNode):
            stack += node.items
    return None
