"""`--format junit` and `--format github` of `lait test` and `lait eval` (issue 14 item 3).

The JUnit XML is validated with a real XML Schema validator (``xmlschema``) against
``tests/junit/lait-junit.xsd`` -- the common ground of what Jenkins, GitLab and the GitHub
test-report actions read -- and its counts and failures are checked; a document with an attribute
Jenkins refuses fails the schema (so the validation can fail). The GitHub annotations point at the
failing assertion's line of the test or eval file."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, text
from tests.records.test_lait_test import FAILING, PASSING, recorded

SCHEMA = Path(__file__).resolve().parents[1] / "junit" / "lait-junit.xsd"


@pytest.fixture(scope="module")
def junit_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(SCHEMA)


def test_lait_test_junit_and_github(
    project: Lait, server: ScriptedOpenAIServer, junit_schema: xmlschema.XMLSchema
) -> None:
    recorded(project, server)
    project.write("a_ok.yml", PASSING)
    project.write("b_bad.yml", FAILING)
    project.write("c_invalid.yml", "workflow: wf.yml\nreplay: tape\nasert: []\n")
    junit = project("test", "--format", "junit", "a_ok.yml", "b_bad.yml", "c_invalid.yml")
    assert junit.returncode == 1, junit.stderr
    junit_schema.validate(junit.stdout)
    root = ET.fromstring(junit.stdout)
    assert (root.tag, root.get("name"), root.get("tests"), root.get("failures"), root.get("errors")) == (
        "testsuites",
        "lait test",
        "3",
        "2",
        "0",
    )
    (suite,) = list(root)
    cases = list(suite)
    assert [(c.get("name"), c.get("classname")) for c in cases] == [
        ("a_ok.yml", "lait.test"),
        ("b_bad.yml", "lait.test"),
        ("c_invalid.yml", "lait.test"),
    ]
    assert list(cases[0]) == []
    (failure,) = list(cases[1])
    assert failure.tag == "failure"
    assert failure.get("message") == 'assertion 1: equals: expected "nope", got ' + (
        '"{\\"research\\":\\"shouted and added\\",\\"items\\":[\\"item one\\",\\"item two\\"]}"'
    )
    assert failure.text is not None and len(failure.text.splitlines()) == 9
    assert (
        failure.text.splitlines()[8] == "assertion 9: llm_judge: not supported in lait test (use lait eval)"
    )
    assert cases[2][0].get("message", "").startswith("c_invalid.yml:3:1: unknown key 'asert'")

    github = project("test", "--format", "github", "a_ok.yml", "b_bad.yml", "c_invalid.yml")
    assert github.returncode == 1, github.stderr
    lines = github.stdout.splitlines()
    assert lines[-1] == "1 passed, 2 failed, 3 total"
    # FAILING's assertions start on lines 5, 7, 9, 11, 14, 17, 19, 24, 27 (each `- type:` item).
    assert [line.split("::")[1] for line in lines[:-1]] == [
        f"error file=b_bad.yml,line={n},col=5" for n in (5, 7, 9, 11, 14, 17, 19, 24, 27)
    ] + ["error file=c_invalid.yml,line=3,col=1"]
    assert lines[0].startswith(
        '::error file=b_bad.yml,line=5,col=5::assertion 1: equals: expected "nope", got "{'
    )
    assert (
        lines[8]
        == "::error file=b_bad.yml,line=27,col=5::assertion 9: llm_judge: not supported in lait test (use lait eval)"
    )


def test_a_document_jenkins_refuses_fails_the_schema(junit_schema: xmlschema.XMLSchema) -> None:
    bad = (
        '<testsuites name="x" tests="1" failures="0" errors="0" time="0.1">'
        '<testsuite name="x" tests="1" failures="0" errors="0" skipped="0" time="0.1">'
        '<testcase name="t" classname="c" time="0.1" file="t.yml"/></testsuite></testsuites>'
    )
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        junit_schema.validate(bad)
    junit_schema.validate(bad.replace(' file="t.yml"', ""))


EVAL = """\
target:
  model: main
  prompt: 'Echo {{ input }}'
cases:
  - input: one
    assert:
      - type: contains
        value: ONE
  - input: two
    assert:
      - type: contains
        value: TWO
      - type: equals
        value: "TWO & <two>"
"""


def test_lait_eval_junit_and_github(
    project: Lait, server: ScriptedOpenAIServer, junit_schema: xmlschema.XMLSchema
) -> None:
    project.write("e.yml", EVAL)
    server.route("Echo one", *[text("ONE")] * 4)
    server.route("Echo two", text("TWO & <two>"), text("two"), text("two"))
    junit = project("eval", "e.yml", "--format", "junit")
    assert junit.returncode == 0, junit.stderr
    junit_schema.validate(junit.stdout)
    root = ET.fromstring(junit.stdout)
    assert (root.get("name"), root.get("tests"), root.get("failures")) == ("lait eval", "2", "0")
    assert [(c.get("name"), c.get("classname"), len(c)) for c in root[0]] == [
        ("case 1: one", "lait.eval.e", 0),
        ("case 2: two", "lait.eval.e", 0),
    ]
    junit2 = project("eval", "e.yml", "--format", "junit", "--repeat", "2")  # case 2 now gets "two"
    assert junit2.returncode == 1
    junit_schema.validate(junit2.stdout)
    case2 = ET.fromstring(junit2.stdout)[0][1]
    assert case2[0].get("message") == "0/2 runs passed (0%)"
    assert case2[0].text is not None and sorted(case2[0].text.splitlines()) == [
        'run 1: assertion 1: contains: "TWO" not found in "two"',
        'run 1: assertion 2: equals: expected "TWO & <two>", got "two"',
        'run 2: assertion 1: contains: "TWO" not found in "two"',
        'run 2: assertion 2: equals: expected "TWO & <two>", got "two"',
    ]
    server.route("Echo two", text("two"))
    github = project("eval", "e.yml", "--format", "github")
    assert github.returncode == 1
    assert github.stdout.splitlines() == [
        '::error file=e.yml,line=11,col=9::case 2 run 1: assertion 1: contains: "TWO" not found in "two"',
        '::error file=e.yml,line=13,col=9::case 2 run 1: assertion 2: equals: expected "TWO & <two>", got "two"',
        "1 of 2 case(s) fully passed",
    ]
