"""`lait lint` end to end: formats, exit codes, output file, stdin, discovery and config modes,
plus `lait --version`, `lait schema` and `lait rule`. Every run is a real subprocess."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from lait_core import __version__
from tests.cli.conftest import EXAMPLES, REPO, Lait

TEXT_LINE = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>LAIT\d{3}) (?P<sev>error|warning|info): (?P<msg>.+)$"
)
NOTE_LINE = re.compile(r"^    (?P<path>.+?):(?P<line>\d+):(?P<col>\d+): note: (?P<msg>.+)$")
GITHUB_LINE = re.compile(r"^::(?P<level>error|warning|notice) (?P<props>[^:]*)::(?P<msg>.*)$")

CONFIG = """\
skills:
  notes: skills/notes
agents:
  helper: agents/helper.md
"""
SKILL = "---\nname: notes\ndescription: Notes about the project.\n---\nWrite things down.\n"
BAD_WORKFLOW = """\
name: bad
bogus_key: 1
schemas:
  unused: {type: object}
steps:
  - id: first
    prompt: "Hello {{ steps.missing }}"
    skills: [notes, nope]
  - agent: helper
"""
BAD_AGENT = "---\nname: helper\ntemperature: hot\n---\nHelp with {{ input }}.\n"
GOOD_AGENT = "---\nname: helper\ntemperature: 0.5\n---\nHelp with {{ input }}.\n"
WARN_WORKFLOW = """\
name: warn
schemas:
  unused: {type: object}
steps:
  - id: first
    prompt: "Hello {{ steps.later }}"
"""
CLEAN_WORKFLOW = """\
name: clean
inputs:
  topic: string
steps:
  - id: first
    prompt: "Write about {{ inputs.topic }}."
    skills: [notes]
  - jq: '$steps.first'
"""

# (path, line, column, code, severity) of every diagnostic of the mixed project, in output order.
MIXED_EXPECTED = [
    ("agents/helper.md", 3, 14, "LAIT204", "error"),
    ("workflows/bad.yml", 2, 1, "LAIT303", "error"),
    ("workflows/bad.yml", 4, 3, "LAIT315", "warning"),
    ("workflows/bad.yml", 7, 29, "LAIT404", "warning"),
    ("workflows/bad.yml", 8, 21, "LAIT503", "error"),
    ("workflows/bad.yml", 9, 12, "LAIT319", "error"),
]


def _project(
    lait: Lait, *, workflow: str = BAD_WORKFLOW, agent: str = BAD_AGENT, config: bool = True
) -> None:
    if config:
        lait.write("lait.config.yml", CONFIG)
    lait.write("skills/notes/SKILL.md", SKILL)
    lait.write("agents/helper.md", agent)
    lait.write("workflows/bad.yml", workflow)


def _records(stdout: str) -> list[tuple[str, int, int, str, str]]:
    return [(r["file"], r["line"], r["column"], r["code"], r["severity"]) for r in json.loads(stdout)]


def _rule_codes(lait: Lait) -> list[str]:
    done = lait("rule", "--all")
    assert done.returncode == 0, done.stderr
    return [line.split()[0] for line in done.lines]


# --------------------------------------------------------------------------------------------
# formats


def test_text_format_lists_every_diagnostic_with_path_line_column_code_and_severity(lait: Lait) -> None:
    _project(lait)
    done = lait("lint", ".")
    assert done.returncode == 3
    parsed = []
    notes = []
    for line in done.lines:
        if line.startswith("    "):
            match = NOTE_LINE.match(line)
            assert match, line
            notes.append(match.groupdict())
            continue
        match = TEXT_LINE.match(line)
        assert match, line
        g = match.groupdict()
        parsed.append((g["path"], int(g["line"]), int(g["col"]), g["code"], g["sev"]))
    assert parsed == MIXED_EXPECTED
    assert (
        "workflows/bad.yml:2:1: LAIT303 error: unknown key 'bogus_key' in the workflow; expected one of: "
        in done.stdout
    )
    # the LAIT319 error explains itself with a note at the agent's own problem
    assert notes == [
        {
            "path": "agents/helper.md",
            "line": "3",
            "col": "14",
            "msg": "LAIT204 'temperature' must be a number (got the string 'hot')",
        }
    ]
    assert "lait: 4 errors and 2 warnings" in done.stderr


def test_json_format_is_a_list_of_records(lait: Lait) -> None:
    _project(lait)
    done = lait("lint", "--format", "json", ".")
    assert done.returncode == 3
    records = json.loads(done.stdout)
    assert _records(done.stdout) == MIXED_EXPECTED
    keys = {
        "file",
        "line",
        "column",
        "end_line",
        "end_column",
        "code",
        "severity",
        "message",
        "related",
        "fixes",
    }
    for record in records:
        assert set(record) == keys
        assert (record["end_line"], record["end_column"]) >= (record["line"], record["column"])
        assert isinstance(record["message"], str) and record["message"]
    unknown_key = records[1]
    assert (unknown_key["end_line"], unknown_key["end_column"]) == (2, 10)  # exactly `bogus_key`
    related = records[5]["related"]
    assert related == [
        {
            "file": "agents/helper.md",
            "line": 3,
            "column": 14,
            "message": "LAIT204 'temperature' must be a number (got the string 'hot')",
        }
    ]


def test_json_positions_agree_with_text_positions(lait: Lait) -> None:
    _project(lait)
    text = lait("lint", ".")
    data = lait("lint", "--format", "json", ".")
    from_text = []
    for line in text.lines:
        match = TEXT_LINE.match(line)
        if match:
            from_text.append(f"{match['path']}:{match['line']}:{match['col']}: {match['code']}")
    from_json = [f"{r['file']}:{r['line']}:{r['column']}: {r['code']}" for r in json.loads(data.stdout)]
    assert from_text == from_json


_LOCATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["physicalLocation"],
    "properties": {
        "physicalLocation": {
            "type": "object",
            "required": ["artifactLocation", "region"],
            "properties": {
                "artifactLocation": {
                    "type": "object",
                    "required": ["uri"],
                    "properties": {"uri": {"type": "string", "minLength": 1}},
                },
                "region": {
                    "type": "object",
                    "required": ["startLine", "startColumn", "endLine", "endColumn"],
                    "properties": {
                        "startLine": {"type": "integer", "minimum": 1},
                        "startColumn": {"type": "integer", "minimum": 1},
                        "endLine": {"type": "integer", "minimum": 1},
                        "endColumn": {"type": "integer", "minimum": 1},
                    },
                },
            },
        },
        "message": {"$ref": "#/$defs/message"},
    },
}

SARIF_SUBSET_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "message": {
            "type": "object",
            "required": ["text"],
            "properties": {"text": {"type": "string"}, "markdown": {"type": "string"}},
        },
        "location": _LOCATION_SCHEMA,
    },
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "maxItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results", "columnKind"],
                "properties": {
                    "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name", "version", "rules"],
                                "properties": {
                                    "name": {"const": "lait"},
                                    "version": {"type": "string"},
                                    "informationUri": {"type": "string", "format": "uri"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": [
                                                "id",
                                                "name",
                                                "shortDescription",
                                                "fullDescription",
                                                "help",
                                                "defaultConfiguration",
                                            ],
                                            "properties": {
                                                "id": {"type": "string", "pattern": "^LAIT[0-9]{3}$"},
                                                "name": {
                                                    "type": "string",
                                                    "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$",
                                                },
                                                "shortDescription": {"$ref": "#/$defs/message"},
                                                "fullDescription": {"$ref": "#/$defs/message"},
                                                "help": {
                                                    "$ref": "#/$defs/message",
                                                    "required": ["text", "markdown"],
                                                },
                                                "defaultConfiguration": {
                                                    "type": "object",
                                                    "required": ["level"],
                                                    "properties": {
                                                        "level": {"enum": ["note", "warning", "error"]}
                                                    },
                                                },
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ruleId", "level", "message", "locations"],
                            "properties": {
                                "ruleId": {"type": "string", "pattern": "^LAIT[0-9]{3}$"},
                                "ruleIndex": {"type": "integer", "minimum": 0},
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {"$ref": "#/$defs/message"},
                                "locations": {
                                    "type": "array",
                                    "minItems": 1,
                                    "items": {"$ref": "#/$defs/location"},
                                },
                                "relatedLocations": {
                                    "type": "array",
                                    "items": {
                                        "allOf": [
                                            {"$ref": "#/$defs/location"},
                                            {"required": ["id", "message"]},
                                        ]
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


def test_sarif_format_is_sarif_2_1_0_with_rule_metadata(lait: Lait) -> None:
    _project(lait)
    done = lait("lint", "--format", "sarif", ".")
    assert done.returncode == 3
    doc = json.loads(done.stdout)
    jsonschema.validate(
        doc, SARIF_SUBSET_SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    driver = run["tool"]["driver"]
    assert driver["version"] == __version__
    rule_ids = [r["id"] for r in driver["rules"]]
    assert rule_ids == _rule_codes(lait)
    assert len(rule_ids) >= 52
    assert len(set(rule_ids)) == len(rule_ids)
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in driver["rules"]}
    assert levels["LAIT303"] == "error"
    assert levels["LAIT404"] == "warning"

    got = []
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        loc = result["locations"][0]["physicalLocation"]
        region = loc["region"]
        got.append(
            (
                loc["artifactLocation"]["uri"],
                region["startLine"],
                region["startColumn"],
                result["ruleId"],
                result["level"],
            )
        )
    assert got == MIXED_EXPECTED
    unknown_key = run["results"][1]
    assert unknown_key["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 2,
        "startColumn": 1,
        "endLine": 2,
        "endColumn": 10,
    }
    assert unknown_key["message"]["text"].startswith("unknown key 'bogus_key' in the workflow")
    related = run["results"][5]["relatedLocations"]
    assert len(related) == 1
    assert related[0]["physicalLocation"]["artifactLocation"]["uri"] == "agents/helper.md"
    assert related[0]["physicalLocation"]["region"]["startLine"] == 3


def test_sarif_columns_count_code_points(lait: Lait) -> None:
    lait.write("w.yml", "name: 日本語😀\nbogus_key: 1\n日本: x\nsteps:\n  - jq: '.'\n")
    done = lait("lint", "--format", "sarif", "w.yml")
    results = json.loads(done.stdout)["runs"][0]["results"]
    regions = {
        r["message"]["text"].split("'")[1]: r["locations"][0]["physicalLocation"]["region"] for r in results
    }
    assert regions["日本"] == {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 3}


def test_sarif_uri_is_a_percent_encoded_relative_reference(lait: Lait) -> None:
    lait.write("my dir/100%.yml", "name: x\nbogus_key: 1\nsteps:\n  - jq: '.'\n")
    done = lait("lint", "--format", "sarif", "my dir/100%.yml")
    (result,) = json.loads(done.stdout)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20dir/100%25.yml"


def test_github_format_lines_are_workflow_commands(lait: Lait) -> None:
    _project(lait)
    done = lait("lint", "--format", "github", ".")
    assert done.returncode == 3
    got = []
    for line in done.lines:
        match = GITHUB_LINE.match(line)
        assert match, line
        props = dict(p.split("=", 1) for p in match["props"].split(","))
        assert set(props) >= {"file", "line", "col", "endLine", "title"}
        got.append((props["file"], int(props["line"]), int(props["col"]), props["title"], match["level"]))
    assert got == MIXED_EXPECTED
    assert done.lines[1] == (
        "::error file=workflows/bad.yml,line=2,col=1,endLine=2,endColumn=10,title=LAIT303::"
        "unknown key 'bogus_key' in the workflow; expected one of: version, name, description, inputs,"
        " input_schema, output, timeout, default, models, schemas, agents, steps"
    )


def _gh_unescape_data(value: str) -> str:
    return value.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def _gh_unescape_property(value: str) -> str:
    return _gh_unescape_data(value.replace("%3A", ":").replace("%2C", ","))


def test_github_format_escapes_data_and_properties(lait: Lait) -> None:
    # a key with '%', a line feed and a carriage return, in a file whose path has ',', ':' and '%'
    lait.write("odd,dir:x/100%.yml", 'name: a\n"bad%\\nkey\\rx, y: z": 1\nsteps:\n  - jq: "."\n')
    done = lait("lint", "--format", "github", "odd,dir:x/100%.yml")
    assert done.returncode == 3
    assert done.stdout.count("\n") == 1, done.stdout  # one annotation, on one line
    line = done.stdout.rstrip("\n")
    assert "\r" not in line
    assert line.startswith(
        "::error file=odd%2Cdir%3Ax/100%25.yml,line=2,col=1,endLine=2,endColumn=21,title=LAIT303::"
        "unknown key 'bad%25%0Akey%0Dx, y: z' in the workflow; expected one of: "
    )
    match = GITHUB_LINE.match(line)
    assert match
    data = lait("lint", "--format", "json", "odd,dir:x/100%.yml")
    (record,) = json.loads(data.stdout)
    assert _gh_unescape_data(match["msg"]) == record["message"]
    props = dict(p.split("=", 1) for p in match["props"].split(","))
    assert _gh_unescape_property(props["file"]) == record["file"] == "odd,dir:x/100%.yml"


# --------------------------------------------------------------------------------------------
# exit codes


def test_clean_example_project_exits_0_in_every_format(lait: Lait) -> None:
    shutil.copytree(EXAMPLES, lait.cwd / "examples")
    for fmt in ("text", "json", "github", "sarif"):
        done = lait("lint", "--strict", "--format", fmt, "examples")
        assert done.returncode == 0, done.stdout + done.stderr
        if fmt == "text":
            assert done.stdout == ""
            assert "no problems" in done.stderr
        elif fmt == "json":
            assert json.loads(done.stdout) == []
        elif fmt == "github":
            assert done.stdout == ""
        else:
            assert json.loads(done.stdout)["runs"][0]["results"] == []


def test_empty_directory_exits_0(lait: Lait) -> None:
    (lait.cwd / "empty").mkdir()
    done = lait("lint", "empty")
    assert done.returncode == 0
    assert done.stdout == ""
    assert "0 files checked, no problems" in done.stderr
    sarif = lait("lint", "--format", "sarif", "empty")
    assert sarif.returncode == 0
    assert json.loads(sarif.stdout)["runs"][0]["results"] == []


def test_errors_exit_3(lait: Lait) -> None:
    _project(lait)
    assert lait("lint", "workflows/bad.yml").returncode == 3


def test_warnings_only_exit_0_and_3_under_strict(lait: Lait) -> None:
    _project(lait, workflow=WARN_WORKFLOW, agent=GOOD_AGENT)
    done = lait("lint", ".")
    assert done.returncode == 0, done.stdout
    assert [r[3] for r in _records(lait("lint", "--format", "json", ".").stdout)] == ["LAIT315", "LAIT404"]
    assert "lait: 2 warnings in" in done.stderr
    for fmt in ("text", "json", "github", "sarif"):
        assert lait("lint", "--strict", "--format", fmt, ".").returncode == 3


def test_strict_does_not_fail_a_clean_project(lait: Lait) -> None:
    _project(lait, workflow=CLEAN_WORKFLOW, agent=GOOD_AGENT)
    done = lait("lint", "--strict", ".")
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["lint", "--format", "xml", "."], "unknown --format 'xml'"),
        (["lint", "--format"], "requires an argument"),
        (["lint"], "Missing argument"),
        (["lint", "--config", "lait.config.yml", "--no-config", "."], "cannot be used together"),
        (["--config", "lait.config.yml", "--no-config", "lint", "."], "cannot be used together"),
        (["lint", "--no-such-option", "."], "No such option"),
        # `lait WORD` is a chat prompt (bare chat), not an unknown command
        (["schema", "nope"], "unknown schema kind 'nope'"),
        (["rule", "NOPE"], "no rule 'NOPE'"),
    ],
)
def test_usage_errors_exit_2(lait: Lait, args: list[str], needle: str) -> None:
    _project(lait)
    done = lait(*args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert needle in done.stderr
    assert done.stdout == ""


def test_global_config_options_apply_under_python_dash_m(lait: Lait) -> None:
    lait.write("lait.config.yml", CONFIG)
    lait.write("w.yml", "steps:\n  - prompt: hi\n    skills: [notes]\n")
    lait.write("skills/notes/SKILL.md", SKILL)
    conflict = lait("--config", "lait.config.yml", "lint", "--no-config", "w.yml")
    assert conflict.returncode == 2
    no_config = lait("--no-config", "lint", "--format", "json", "w.yml")
    assert [r[3] for r in _records(no_config.stdout)] == ["LAIT506"]


# --------------------------------------------------------------------------------------------
# --output-file


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_output_file_receives_the_report(lait: Lait, fmt: str) -> None:
    _project(lait)
    expected = lait("lint", "--format", fmt, ".")
    done = lait("lint", "--format", fmt, "--output-file", "report.out", ".")
    assert done.returncode == 3
    assert done.stdout == ""
    report = (lait.cwd / "report.out").read_text(encoding="utf-8")
    assert report == expected.stdout
    assert "4 errors and 2 warnings" in done.stderr
    short = lait("lint", "--format", fmt, "-o", "short.out", ".")
    assert short.returncode == 3
    assert (lait.cwd / "short.out").read_text(encoding="utf-8") == report


def test_output_file_is_written_for_a_clean_run_too(lait: Lait) -> None:
    _project(lait, workflow=CLEAN_WORKFLOW, agent=GOOD_AGENT)
    done = lait("lint", "--format", "json", "--output-file", "report.json", ".")
    assert done.returncode == 0
    assert json.loads((lait.cwd / "report.json").read_text(encoding="utf-8")) == []


def test_output_file_in_a_missing_directory_or_a_directory_is_refused_before_linting(lait: Lait) -> None:
    _project(lait)
    done = lait("lint", "--output-file", "no/such/dir/report.txt", ".")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "lait: -o 'no/such/dir/report.txt': the folder 'no/such/dir' does not exist\n"
    (lait.cwd / "reports").mkdir()
    into_dir = lait("lint", "-o", "reports", ".")
    assert (into_dir.returncode, into_dir.stdout) == (2, "")
    # refused before the lint: no problem of the project is reported
    assert into_dir.stderr == "lait: -o 'reports' is a directory; name a file to write the report to\n"


# --------------------------------------------------------------------------------------------
# standard input


def test_stdin_takes_its_kind_from_stdin_filename(lait: Lait) -> None:
    _project(lait)
    agent = b"---\nname: a\nbogus: 1\nskills: [nope]\n---\nBody {{ input }}\n"
    done = lait("lint", "--format", "json", "--stdin-filename", "agents/a.md", "-", stdin=agent)
    assert done.returncode == 3
    records = _records(done.stdout)
    assert ("agents/a.md", 3, 1, "LAIT202", "error") in records
    assert {r[0] for r in records} == {"agents/a.md"}


@pytest.mark.parametrize(
    ("name", "text", "code"),
    [
        ("w.yml", b"bogus: 1\nsteps:\n  - jq: '.'\n", "LAIT303"),
        ("agents/a.md", b"---\nbogus: 1\n---\nBody\n", "LAIT202"),
        ("skills/s/SKILL.md", b"---\nname: [s]\ndescription: d\n---\nBody\n", "LAIT207"),
        ("sub/lait.config.yml", b"bogus: 1\n", "LAIT101"),
        ("notes.txt", b"bogus: 1\n", "LAIT007"),
    ],
)
def test_stdin_kind_follows_the_name(lait: Lait, name: str, text: bytes, code: str) -> None:
    done = lait("lint", "--format", "json", "--stdin-filename", name, "-", stdin=text)
    assert done.returncode == 3
    assert {(r[0], r[3]) for r in _records(done.stdout)} == {(name, code)}


def test_stdin_uses_the_project_config_found_from_its_name(lait: Lait) -> None:
    _project(lait)
    text = b"steps:\n  - prompt: hi\n    skills: [notes, nope]\n"
    done = lait("lint", "--stdin-filename", "workflows/piped.yml", "-", stdin=text)
    assert done.returncode == 3
    assert done.lines == [
        "workflows/piped.yml:3:21: LAIT503 error: step-1 (prompt) references unknown skill 'nope'; define it"
        " under 'skills:' in lait.config.yml; did you mean 'notes'?"
    ]


def test_stdin_defaults_to_a_workflow_named_stdin_yml(lait: Lait) -> None:
    done = lait("lint", "-", stdin=b"name: x\nbogus: 1\nsteps:\n  - jq: '.'\n")
    assert done.returncode == 3
    assert done.lines[0].startswith("stdin.yml:2:1: LAIT303 error:")
    clean = lait("lint", "-", stdin=b"steps:\n  - jq: '.'\n")
    assert clean.returncode == 0
    assert clean.stdout == ""


def test_stdin_same_text_same_diagnostics_as_the_file(lait: Lait) -> None:
    _project(lait)
    text = (lait.cwd / "workflows/bad.yml").read_bytes()
    from_file = lait("lint", "--format", "json", "workflows/bad.yml")
    from_stdin = lait("lint", "--format", "json", "--stdin-filename", "workflows/bad.yml", "-", stdin=text)
    file_records = [r for r in json.loads(from_file.stdout) if r["file"] == "workflows/bad.yml"]
    assert json.loads(from_stdin.stdout) == file_records


def test_stdin_together_with_files(lait: Lait) -> None:
    lait.write("w.yml", "bogus: 1\nsteps:\n  - jq: '.'\n")
    done = lait(
        "lint", "--format", "json", "w.yml", "-", "--stdin-filename", "s.yml", stdin=b"x: 1\nsteps: []\n"
    )
    files = [r[0] for r in _records(done.stdout)]
    assert files[0] == "w.yml"
    assert "s.yml" in files
    assert done.returncode == 3


def test_stdin_invalid_utf8_is_a_located_diagnostic(lait: Lait) -> None:
    done = lait("lint", "--format", "json", "-", stdin=b"name: caf\xe9\nsteps:\n  - jq: '.'\n")
    assert "internal error" not in done.stderr
    assert done.returncode == 3
    assert [r[3] for r in _records(done.stdout)] == ["LAIT005"]


# --------------------------------------------------------------------------------------------
# discovery

BAD = "name: x\nbogus_key: 1\nsteps:\n  - jq: '.'\n"
BAD_MD = "---\nname: x\nbogus_key: 1\n---\nBody\n"


def _discovery_tree(lait: Lait, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "bad.yml").write_text(BAD, encoding="utf-8")
    lait.write("a/c.yml", BAD)
    lait.write("a.yml", BAD)
    lait.write("b.yaml", BAD)
    lait.write("agent.md", BAD_MD)
    lait.write("crlf.md", BAD_MD.replace("\n", "\r\n"))
    lait.write("README.md", "# Title\n\n---\nbogus_key: 1\n---\n")
    lait.write("notes.txt", BAD)
    lait.write("Makefile", BAD)
    lait.write(".hidden/x.yml", BAD)
    lait.write(".dot.yml", BAD)
    lait.write("sub/.also-hidden.md", BAD_MD)
    lait.write("node_modules/pkg/x.yml", BAD)
    lait.write("target/x.yml", BAD)
    lait.write("deep/node_modules/y.yml", BAD)
    lait.write("deep/target/y.yml", BAD)
    lait.write("deep/ok.yml", BAD)
    os.symlink(outside / "bad.yml", lait.cwd / "link.yml")
    os.symlink(outside, lait.cwd / "linkdir", target_is_directory=True)


def test_discovery_walks_sorted_and_skips_dot_entries_symlinks_and_vendored_dirs(
    lait: Lait, tmp_path: Path
) -> None:
    _discovery_tree(lait, tmp_path)
    done = lait("lint", "--format", "json", ".")
    assert done.returncode == 3
    files: list[str] = []
    for record in json.loads(done.stdout):
        if record["file"] not in files:
            files.append(record["file"])
    assert [os.path.normpath(f) for f in files] == [
        "a/c.yml",
        "a.yml",
        "agent.md",
        "b.yaml",
        "crlf.md",
        "deep/ok.yml",
    ]
    for f in files:
        codes = {r[3] for r in _records(done.stdout) if r[0] == f}
        assert codes == {"LAIT202" if f.endswith(".md") else "LAIT303"}, (f, codes)


def test_discovery_of_a_directory_argument_keeps_its_prefix(lait: Lait, tmp_path: Path) -> None:
    _discovery_tree(lait, tmp_path)
    done = lait("lint", "--format", "json", "deep")
    assert {os.path.normpath(r[0]) for r in _records(done.stdout)} == {"deep/ok.yml"}


def test_explicit_files_are_always_linted(lait: Lait, tmp_path: Path) -> None:
    _discovery_tree(lait, tmp_path)
    done = lait(
        "lint",
        "--format",
        "json",
        ".hidden/x.yml",
        "README.md",
        "notes.txt",
        "link.yml",
        "node_modules/pkg/x.yml",
    )
    assert done.returncode == 3
    got = {(r[0], r[3]) for r in _records(done.stdout)}
    assert got == {
        (".hidden/x.yml", "LAIT303"),
        ("README.md", "LAIT201"),
        ("notes.txt", "LAIT007"),
        ("link.yml", "LAIT303"),
        ("node_modules/pkg/x.yml", "LAIT303"),
    }


def test_explicit_file_with_an_unknown_extension_is_lait007(lait: Lait) -> None:
    lait.write("flow.json", '{"steps": []}')
    done = lait("lint", "flow.json")
    assert done.returncode == 3
    assert done.lines == [
        "flow.json:1:1: LAIT007 error: cannot determine the file type of 'flow.json'; expected a '.yml'/'.yaml'"
        " workflow file, a '.md' agent file or lait.config.yml"
    ]


def test_missing_explicit_workflow_is_lait004(lait: Lait) -> None:
    done = lait("lint", "missing.yml")
    assert done.returncode == 3
    assert done.lines[0].startswith("missing.yml:1:1: LAIT004 error:")


def test_missing_path_without_extension_is_lait004(lait: Lait) -> None:
    done = lait("lint", "no-such-dir")
    assert done.returncode == 3
    assert done.lines[0].startswith("no-such-dir:1:1: LAIT004 error:")


def test_a_directory_is_walked_once(lait: Lait) -> None:
    lait.write("d/w.yml", BAD)
    done = lait("lint", "--format", "json", "d", "d", "./d")
    assert [r[0] for r in _records(done.stdout)] == ["d/w.yml"]


# --------------------------------------------------------------------------------------------
# configuration modes

SKILL_WORKFLOW = "steps:\n  - prompt: hi\n    skills: [notes]\n"


def test_search_mode_uses_the_nearest_project_config(lait: Lait) -> None:
    _project(lait, workflow=SKILL_WORKFLOW, agent=GOOD_AGENT)
    done = lait("lint", "--strict", "workflows/bad.yml")
    assert done.returncode == 0, done.stdout
    nested = lait("lint", "--strict", "bad.yml", cwd=lait.cwd / "workflows")
    assert nested.returncode == 0, nested.stdout


def test_no_config_reports_names_not_checked(lait: Lait) -> None:
    _project(lait, workflow="steps:\n  - prompt: hi\n    skills: [nope]\n", agent=GOOD_AGENT)
    searched = lait("lint", "workflows/bad.yml")
    assert searched.returncode == 3
    assert "LAIT503" in searched.stdout
    done = lait("lint", "--no-config", "--format", "json", "workflows/bad.yml")
    assert done.returncode == 0
    assert _records(done.stdout) == [("workflows/bad.yml", 1, 1, "LAIT506", "warning")]
    assert lait("lint", "--no-config", "--strict", "workflows/bad.yml").returncode == 3


def test_no_project_config_reports_names_not_checked(lait: Lait) -> None:
    lait.write("w.yml", SKILL_WORKFLOW)
    done = lait("lint", "--format", "json", "w.yml")
    assert done.returncode == 0
    assert _records(done.stdout) == [("w.yml", 1, 1, "LAIT506", "warning")]


def test_explicit_config_is_used_instead_of_the_project_config(lait: Lait) -> None:
    _project(lait, workflow="steps:\n  - prompt: hi\n    skills: [special]\n", agent=GOOD_AGENT)
    lait.write("conf/custom.yml", "skills:\n  special: ../skills/notes\n")
    searched = lait("lint", "workflows/bad.yml")
    assert searched.returncode == 3
    assert "unknown skill 'special'" in searched.stdout
    done = lait("lint", "--strict", "--config", "conf/custom.yml", "workflows/bad.yml")
    assert done.returncode == 0, done.stdout + done.stderr


def test_explicit_config_that_does_not_exist_fails(lait: Lait) -> None:
    lait.write("w.yml", SKILL_WORKFLOW)
    done = lait("lint", "--config", "nope.yml", "w.yml")
    assert done.returncode in (2, 3)
    assert "nope.yml" in done.stderr


@pytest.mark.parametrize("command", [["lint", "w.yml"], ["mcp", "list"]])
def test_explicit_config_that_is_a_directory_says_so(lait: Lait, command: list[str]) -> None:
    lait.write("w.yml", SKILL_WORKFLOW)
    lait.write("conf/lait.config.yml", "{}\n")
    done = lait("--config", "conf", *command)
    assert done.returncode == 3
    assert done.stderr == (
        "lait: failed to read YAML configuration file 'conf': "
        "it is a directory, not a file (name the lait.config.yml inside it)\n"
    )


def test_global_config_is_layered_in_search_mode_only(lait: Lait) -> None:
    xdg = Path(lait.env["XDG_CONFIG_HOME"])
    (xdg / "lait").mkdir()
    (xdg / "lait" / "config.yml").write_text("skills:\n  globalskill: " + str(lait.cwd / "sk") + "\n")
    lait.write("sk/SKILL.md", SKILL)
    lait.write("w.yml", "steps:\n  - prompt: hi\n    skills: [globalskill]\n")
    lait.write("empty.yml", "{}\n")
    searched = lait("lint", "--strict", "w.yml")
    assert searched.returncode == 0, searched.stdout
    explicit = lait("lint", "--config", "empty.yml", "w.yml")
    assert explicit.returncode == 3
    assert "unknown skill 'globalskill'" in explicit.stdout
    disabled = lait("lint", "--format", "json", "--no-config", "w.yml")
    assert [r[3] for r in _records(disabled.stdout)] == ["LAIT506"]


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ("base_url: http://x\nbogus: 1\n", "lait.config.yml:2:1: LAIT101 error: unknown key 'bogus'"),
        ("default:\n  temperature: hot\n", "lait.config.yml:2:16: LAIT102 error:"),
        ("skills:\n  a: [1\n", "lait.config.yml:3:1: LAIT001 error: YAML syntax error"),
        ("skills:\n\t a: b\n", "lait.config.yml:2:1: LAIT008 error:"),
        ("a: 1\na: 2\n", "lait.config.yml:2:1: LAIT002 error: duplicate key 'a'"),
    ],
)
def test_broken_project_config_is_a_located_error(lait: Lait, config: str, expected: str) -> None:
    lait.write("lait.config.yml", config)
    lait.write("w.yml", SKILL_WORKFLOW)
    for args in (["."], ["w.yml"]):
        done = lait("lint", *args)
        assert done.returncode == 3, done.stdout + done.stderr
        assert done.stdout.startswith(expected), done.stdout
        assert "internal error" not in done.stderr
    json_done = lait("lint", "--format", "json", "w.yml")
    assert any(
        r["file"] == "lait.config.yml" and r["severity"] == "error" for r in json.loads(json_done.stdout)
    )


def test_broken_explicit_config_is_a_located_error(lait: Lait) -> None:
    lait.write("conf/broken.yml", "skills: {a: b}\nbogus: 1\n")
    lait.write("w.yml", SKILL_WORKFLOW)
    done = lait("lint", "--config", "conf/broken.yml", "w.yml")
    assert done.returncode == 3
    assert "conf/broken.yml:2:1: LAIT101 error: unknown key 'bogus'" in done.stdout


def test_config_discovered_in_a_walk_is_reported_once(lait: Lait) -> None:
    lait.write("lait.config.yml", "bogus: 1\n")
    lait.write("a/w.yml", SKILL_WORKFLOW)
    lait.write("b/w.yml", SKILL_WORKFLOW)
    done = lait("lint", "--format", "json", ".", "a/w.yml", "lait.config.yml")
    config_records = [r for r in _records(done.stdout) if r[0] == "lait.config.yml"]
    assert config_records == [("lait.config.yml", 1, 1, "LAIT101", "error")]


# --------------------------------------------------------------------------------------------
# --version, schema, rule


def test_version(lait: Lait) -> None:
    for flag in ("--version", "-V"):
        done = lait(flag)
        assert done.returncode == 0
        assert done.stdout == f"lait {__version__}\n"


@pytest.mark.parametrize("kind", ["config", "agent", "workflow"])
def test_schema_prints_the_checked_in_schema(lait: Lait, kind: str) -> None:
    done = lait("schema", kind)
    assert done.returncode == 0
    printed = json.loads(done.stdout)
    assert printed == json.loads((REPO / "schemas" / f"{kind}.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(printed)


def test_schema_workflow_validates_the_example_workflows(lait: Lait) -> None:
    from lait_core.syntax.yaml.parse import parse_yaml

    schema = json.loads(lait("schema", "workflow").stdout)
    for path in sorted((EXAMPLES / "workflows").glob("*.yml")):
        parsed = parse_yaml(path.read_text(encoding="utf-8"))
        assert parsed.root is not None
        jsonschema.validate(parsed.root.to_python(), schema)


def test_rule_prints_its_doc(lait: Lait) -> None:
    done = lait("rule", "LAIT303")
    assert done.returncode == 0
    out = done.stdout
    assert out.startswith("# LAIT303 workflow-unknown-key\n")
    assert "Default severity: error" in out
    assert "## Fails (" in out and "## Passes (" in out
    assert "```yaml" in out
    assert lait("rule", "lait303").stdout == out
    assert lait("rule", "workflow-unknown-key").stdout == out


def test_rule_all_lists_every_rule(lait: Lait) -> None:
    done = lait("rule", "--all")
    assert done.returncode == 0
    codes = []
    for line in done.lines:
        match = re.match(r"^(LAIT\d{3})  (\S+)\s+(error|warning|info)\s+(\S.*)$", line)
        assert match, line
        codes.append(match[1])
    assert len(codes) >= 52
    assert codes == sorted(set(codes))
    for code in ("LAIT001", "LAIT003", "LAIT007", "LAIT101", "LAIT303", "LAIT404", "LAIT506"):
        assert code in codes
    for code in codes[:: max(1, len(codes) // 8)]:
        single = lait("rule", code)
        assert single.returncode == 0
        assert single.stdout.startswith(f"# {code} ")


def test_rule_unknown_exits_2(lait: Lait) -> None:
    done = lait("rule", "NOPE")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "lait: no rule 'NOPE'" in done.stderr
