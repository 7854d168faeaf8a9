"""Output formats of `lait lint`: text, json, github (workflow commands) and SARIF 2.1.0.

Lines and columns are 1-based in every format and count Unicode code points (SARIF says so
with ``columnKind: unicodeCodePoints``).
"""

from __future__ import annotations

import json
from typing import Any

from lait_core import __version__
from lait_core.lint.engine import LintResult
from lait_core.syntax.diagnostics import Diagnostic, Severity

FORMATS = ("text", "json", "github", "sarif")


def text(result: LintResult) -> str:
    lines: list[str] = []
    for d in result.diagnostics:
        start = d.range.start
        lines.append(
            f"{d.path}:{start.line + 1}:{start.character + 1}: {d.code} {d.severity.value}: {d.message}"
        )
        for rel in d.related:
            rs = rel.range.start
            lines.append(f"    {rel.path}:{rs.line + 1}:{rs.character + 1}: note: {rel.message}")
    return "\n".join(lines) + ("\n" if lines else "")


def _record(d: Diagnostic) -> dict[str, Any]:
    s, e = d.range
    return {
        "file": d.path,
        "line": s.line + 1,
        "column": s.character + 1,
        "end_line": e.line + 1,
        "end_column": e.character + 1,
        "code": d.code,
        "severity": d.severity.value,
        "message": d.message,
        "related": [
            {
                "file": r.path,
                "line": r.range.start.line + 1,
                "column": r.range.start.character + 1,
                "message": r.message,
            }
            for r in d.related
        ],
        "fixes": [
            {
                "title": f.title,
                "line": f.range.start.line + 1,
                "column": f.range.start.character + 1,
                "end_line": f.range.end.line + 1,
                "end_column": f.range.end.character + 1,
                "text": f.text,
            }
            for f in d.fixes
        ],
    }


def as_json(result: LintResult) -> str:
    return json.dumps([_record(d) for d in result.diagnostics], indent=2, ensure_ascii=False) + "\n"


def _gh_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(value: str) -> str:
    return _gh_data(value).replace(":", "%3A").replace(",", "%2C")


def github(result: LintResult) -> str:
    out = []
    for d in result.diagnostics:
        s, e = d.range
        level = (
            "error"
            if d.severity == Severity.ERROR
            else "warning"
            if d.severity == Severity.WARNING
            else "notice"
        )
        props = [
            f"file={_gh_property(d.path)}",
            f"line={s.line + 1}",
            f"col={s.character + 1}",
            f"endLine={e.line + 1}",
        ]
        if e.line == s.line:
            props.append(f"endColumn={e.character + 1}")
        props.append(f"title={_gh_property(d.code)}")
        out.append(f"::{level} {','.join(props)}::{_gh_data(d.message)}")
    return "\n".join(out) + ("\n" if out else "")


def _sarif_level(severity: Severity) -> str:
    return {"error": "error", "warning": "warning"}.get(severity.value, "note")


def _region(rng: Any) -> dict[str, int]:
    s, e = rng
    return {
        "startLine": s.line + 1,
        "startColumn": s.character + 1,
        "endLine": e.line + 1,
        "endColumn": e.character + 1,
    }


def _uri(path: str) -> str:
    """A SARIF artifact URI: relative paths as percent-encoded URI references, absolute ones as file URIs."""
    from pathlib import PurePath
    from urllib.parse import quote

    if PurePath(path).is_absolute():
        return "file://" + quote(path)
    return quote(path.replace("\\", "/"))


def sarif(result: LintResult) -> str:
    from lait_core.rules.registry import all_rules

    rules = all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    results = []
    for d in result.diagnostics:
        entry: dict[str, Any] = {
            "ruleId": d.code,
            "level": _sarif_level(d.severity),
            "message": {"text": d.message},
            "locations": [
                {"physicalLocation": {"artifactLocation": {"uri": _uri(d.path)}, "region": _region(d.range)}}
            ],
        }
        if d.code in index:
            entry["ruleIndex"] = index[d.code]
        if d.related:
            entry["relatedLocations"] = [
                {
                    "id": i,
                    "message": {"text": r.message},
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(r.path)},
                        "region": _region(r.range),
                    },
                }
                for i, r in enumerate(d.related)
            ]
        if d.fixes:
            entry["fixes"] = [
                {
                    "description": {"text": f.title},
                    "artifactChanges": [
                        {
                            "artifactLocation": {"uri": _uri(d.path)},
                            "replacements": [
                                {"deletedRegion": _region(f.range), "insertedContent": {"text": f.text}}
                            ],
                        }
                    ],
                }
                for f in d.fixes
            ]
        results.append(entry)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "lait",
                        "version": __version__,
                        "informationUri": "https://github.com/lait-dev/lait",
                        "rules": [
                            {
                                "id": r.code,
                                "name": r.name,
                                "shortDescription": {"text": r.summary},
                                "fullDescription": {"text": r.doc.strip()},
                                "help": {"text": r.summary, "markdown": r.render()},
                                "defaultConfiguration": {"level": _sarif_level(r.severity)},
                            }
                            for r in rules
                        ],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def render(result: LintResult, fmt: str) -> str:
    if fmt == "json":
        return as_json(result)
    if fmt == "github":
        return github(result)
    if fmt == "sarif":
        return sarif(result)
    return text(result)
