"""CI report formats of ``lait test`` and ``lait eval`` beyond the text and JSON reports.

``junit``: JUnit XML as GitHub (test-reporter actions), GitLab (``artifacts:reports:junit``) and
Jenkins (the JUnit/xUnit plugins) read it: ``<testsuites>`` with one ``<testsuite>`` (``lait
test`` or ``lait eval``), one ``<testcase>`` per test file (``lait test``) or per case (``lait
eval``), and for a failing one a ``<failure>`` whose ``message`` is its first failure and whose
text is all of them. Only attributes every one of those readers accepts are written (the
``testcase`` carries ``name``, ``classname`` and ``time``; no ``file``/``line``: Jenkins' schema
refuses them). Times are seconds with 3 decimals. ``tests/junit/lait-junit.xsd`` is the schema
the tests validate against.

``github``: one ``::error file=F,line=L,col=C::message`` workflow command per failure, on the line
of the failing assertion in the test or eval file (a run error: on the ``workflow:`` key of a test
file, on the case of an eval file; an invalid file: on each problem's own line), then the text
report's summary line as a plain line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from lait_core.syntax.bounded_read import read_source
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, SequenceNode

if TYPE_CHECKING:
    from lait_core.testing.eval_run import CaseResult
    from lait_core.testing.suite_runner import FileResult

_ASSERTION = re.compile(r"assertion (\d+): ")
# XML 1.0 forbids most control characters even as references: they are dropped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(value: str) -> str:
    return escape(_NOT_XML.sub("", value))


def _xml_attr(value: str) -> str:
    return quoteattr(_NOT_XML.sub("", value), {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.3f}"


def _testcase(name: str, classname: str, seconds: float, failures: Sequence[str], summary: str | None) -> str:
    head = f"    <testcase name={_xml_attr(name)} classname={_xml_attr(classname)} time={_xml_attr(_seconds(seconds))}"
    if not failures:
        return head + "/>"
    message = summary if summary is not None else failures[0].splitlines()[0]
    body = _xml_text("\n".join(failures))
    return (
        f"{head}>\n      <failure message={_xml_attr(message)} type={_xml_attr('lait.assertion')}>"
        f"{body}</failure>\n    </testcase>"
    )


def _document(suite: str, cases: list[str], failed: int, seconds: float) -> str:
    counts = f'tests="{len(cases)}" failures="{failed}" errors="0"'
    time = _xml_attr(_seconds(seconds))
    return "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f"<testsuites name={_xml_attr(suite)} {counts} time={time}>",
            f'  <testsuite name={_xml_attr(suite)} {counts} skipped="0" time={time}>',
            *cases,
            "  </testsuite>",
            "</testsuites>",
            "",
        ]
    )


def junit_tests(results: Sequence[FileResult]) -> str:
    cases = [_testcase(r.file, "lait.test", r.seconds, r.failures, None) for r in results]
    failed = sum(not r.passed for r in results)
    return _document("lait test", cases, failed, sum(r.seconds for r in results))


def junit_eval(file: str, cases: Sequence[CaseResult], seconds: float) -> str:
    out = []
    for c in cases:
        lines = [f"run {k}: {failure}" for k, run in enumerate(c.runs, 1) for failure in run.failures]
        summary = f"{c.passed}/{c.total} runs passed ({c.success_rate * 100:.0f}%)"
        name = f"case {c.case}: {c.input if len(c.input) <= 80 else c.input[:77] + '...'}"
        out.append(_testcase(name, f"lait.eval.{Path(file).stem}", c.seconds, lines, summary))
    failed = sum(not c.fully_passed for c in cases)
    return _document("lait eval", out, failed, seconds)


# -- github --------------------------------------------------------------------------------------
def _gh_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(value: str) -> str:
    return _gh_data(value).replace(":", "%3A").replace(",", "%2C")


def _annotation(file: str, line: int, col: int, message: str) -> str:
    return f"::error file={_gh_property(file)},line={line},col={col}::{_gh_data(message)}"


def _root(path: Path) -> MappingNode | None:
    loaded = read_source(path)
    if loaded.text is None:
        return None
    parsed = parse_yaml(loaded.text, str(path))
    return parsed.root if parsed.ok and isinstance(parsed.root, MappingNode) else None


def _start(node: Node | None) -> tuple[int, int] | None:
    return None if node is None else (node.range.start.line + 1, node.range.start.character + 1)


def _items(node: Node | None) -> list[Node]:
    return node.items if isinstance(node, SequenceNode) else []


def _located_problems(file: str, failure: str) -> list[str] | None:
    """The annotations of an invalid file's located problems (``file:L:C: message`` lines)."""
    pattern = re.compile(re.escape(file) + r":(\d+):(\d+): (.*)")
    found = [pattern.fullmatch(line) for line in failure.splitlines()]
    if not found or not all(found):
        return None
    return [_annotation(file, int(m.group(1)), int(m.group(2)), m.group(3)) for m in found if m]


def _failure_lines(
    file: str, failures: Sequence[str], asserts: list[Node], fallback: tuple[int, int], prefix: str = ""
) -> list[str]:
    out = []
    for failure in failures:
        located = _located_problems(file, failure)
        if located is not None:
            out.extend(located)
            continue
        match = _ASSERTION.match(failure)
        where = None
        if match is not None and 1 <= int(match.group(1)) <= len(asserts):
            where = _start(asserts[int(match.group(1)) - 1])
        line, col = where or fallback
        out.append(_annotation(file, line, col, prefix + failure))
    return out


def github_tests(results: Sequence[FileResult], summary: str) -> str:
    out = []
    for r in results:
        if r.passed:
            continue
        root = _root(Path(r.file))
        asserts = _items(root.get("assert")) if root is not None else []
        fallback = (
            _start(root.key_node("workflow")) if root is not None and "workflow" in root else None
        ) or (1, 1)
        out.extend(_failure_lines(r.file, r.failures, asserts, fallback))
    out.append(summary)
    return "\n".join(out) + "\n"


def github_eval(file: str, cases: Sequence[CaseResult], summary: str) -> str:
    root = _root(Path(file))
    nodes = _items(root.get("cases")) if root is not None else []
    out = []
    for c in cases:
        node = nodes[c.case - 1] if c.case - 1 < len(nodes) else None
        asserts = _items(node.get("assert")) if isinstance(node, MappingNode) else []
        fallback = _start(node) or (1, 1)
        for k, run in enumerate(c.runs, 1):
            out.extend(_failure_lines(file, run.failures, asserts, fallback, f"case {c.case} run {k}: "))
    out.append(summary)
    return "\n".join(out) + "\n"
