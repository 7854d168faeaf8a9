"""Golden-file tests of `lait lint` (in the style of actionlint's and ruff's test corpora).

Every directory under ``tests/corpus/`` holding an ``expected.txt`` is one case: a small project
that is copied to a temporary directory and linted there with ``lait lint --format json .`` run
in-process. ``expected.txt`` lists every diagnostic, one a line, in lait's output order::

    path:line:col: CODE message
        path:line:col: note: related message

Lines and columns are 1-based and count code points. The indented ``note:`` lines are the
diagnostic's related locations (a duplicate's first definition, the problems inside a referenced
agent or child workflow). An empty ``expected.txt`` means the project is clean. The temporary
directory's absolute path is written as ``<case>``.

Files of a case directory that are not part of the linted project:

* ``expected.txt`` -- the expectation;
* ``README`` -- one line saying what the case checks;
* ``args`` -- the paths to lint, one a line (default ``.``), e.g. a missing file or a ``.txt``;
* ``generate`` -- ``<relative path> <size in bytes>`` lines: the file (its committed content, if
  any, as the start) is padded with ``#`` to that size before linting (for the 16 MiB limit);
* ``xfail`` -- the case shows a bug in lait_core; the file says which. ``expected.txt`` holds
  the *correct* output, and the test is marked ``xfail(strict=True)``.

``LAIT_UPDATE_CORPUS=1 pytest tests/test_corpus.py`` rewrites every ``expected.txt`` (except those
of xfail cases) from lait's current output. Review each change by hand: a wrong line or column is
a bug, not a new expectation.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

import pytest

from lait_core.lint.engine import Linter, LintOptions
from lait_core.rules.registry import Rule, all_rules
from lait_core.syntax.diagnostics import Diagnostic

CORPUS = Path(__file__).parent / "corpus"
EXPECTED = "expected.txt"
META_FILES = frozenset((EXPECTED, "README", "args", "generate", "xfail"))
UPDATE = os.environ.get("LAIT_UPDATE_CORPUS", "") not in ("", "0")
FAMILIES = {
    "0": "source",
    "1": "config",
    "2": "agent",
    "3": "workflow",
    "4": "references",
    "5": "capabilities",
    "6": "security",
    "7": "testfiles",
    "8": "foreign",
}


def corpus_cases() -> list[Path]:
    return sorted(p.parent for p in CORPUS.rglob(EXPECTED))


def case_id(case: Path) -> str:
    return case.relative_to(CORPUS).as_posix()


def case_params() -> list[object]:
    params: list[object] = []
    for case in corpus_cases():
        marks: list[pytest.MarkDecorator] = []
        xfail = case / "xfail"
        if xfail.is_file() and not UPDATE:
            reason = xfail.read_text(encoding="utf-8").strip() or "known lait_core bug"
            marks.append(pytest.mark.xfail(reason=reason, strict=True))
        params.append(pytest.param(case, id=case_id(case), marks=marks))
    return params


def materialize(case: Path, dest: Path) -> None:
    """Copy the case's project (without its meta files) to ``dest`` and generate large files."""
    shutil.copytree(
        case,
        dest,
        symlinks=True,
        ignore=lambda d, names: [n for n in names if Path(d) == case and n in META_FILES],
    )
    generate = case / "generate"
    if generate.is_file():
        for line in generate.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            rel, size = line.split()
            target = dest / rel
            head = target.read_bytes() if target.is_file() else b""
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("wb") as fh:
                fh.write(head)
                fh.write(b"#" * (int(size) - len(head)))


def lint_args(case: Path) -> list[str]:
    args = case / "args"
    if not args.is_file():
        return ["."]
    return [line.strip() for line in args.read_text(encoding="utf-8").splitlines() if line.strip()]


def _scrub(text: str, roots: list[str]) -> str:
    for root in roots:
        text = text.replace(root, "<case>")
    return text.replace("\r", "\\r").replace("\n", "\\n")


def render(diagnostics: list[Diagnostic], root: Path) -> list[str]:
    roots = sorted({str(root), os.path.realpath(root)}, key=len, reverse=True)
    lines: list[str] = []
    for d in diagnostics:
        s = d.range.start
        lines.append(
            f"{_scrub(d.path, roots)}:{s.line + 1}:{s.character + 1}: {d.code} {_scrub(d.message, roots)}"
        )
        for r in d.related:
            rs = r.range.start
            lines.append(
                f"    {_scrub(r.path, roots)}:{rs.line + 1}:{rs.character + 1}: note: {_scrub(r.message, roots)}"
            )
    return lines


def config_above(path: Path) -> Path | None:
    for parent in path.parents:
        candidate = parent / "lait.config.yml"
        if candidate.exists():
            return candidate
    return None


@pytest.fixture
def empty_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg-config"
    home.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


@pytest.mark.parametrize("case", case_params())
def test_corpus(case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, empty_config_home: Path) -> None:
    if UPDATE and (case / "xfail").is_file():
        pytest.skip("xfail case: expected.txt holds the correct output and is edited by hand")
    project = tmp_path / "project"
    materialize(case, project)
    assert config_above(project) is None, "a lait.config.yml above the temporary directory would leak in"
    monkeypatch.chdir(project)
    linter = Linter(LintOptions(environ={"XDG_CONFIG_HOME": str(empty_config_home)}))
    actual = render(linter.lint_paths(lint_args(case)).diagnostics, project)
    expected_file = case / EXPECTED
    if UPDATE:
        expected_file.write_text("".join(line + "\n" for line in actual), encoding="utf-8")
        return
    expected = expected_file.read_text(encoding="utf-8").splitlines()
    if actual != expected:
        diff = difflib.unified_diff(expected, actual, f"{case_id(case)}/{EXPECTED}", "actual", lineterm="")
        pytest.fail("lint output differs from the expectation:\n" + "\n".join(diff), pytrace=False)


def test_corpus_is_not_empty() -> None:
    assert len(corpus_cases()) >= 2 * len(all_rules())


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_every_rule_has_a_failing_and_a_passing_case(rule: Rule) -> None:
    code, name = rule.code, rule.name
    family = CORPUS / FAMILIES[code[4]]
    failing, passing = family / name, family / f"{name}-ok"
    assert (failing / EXPECTED).is_file(), f"missing failing case {failing.relative_to(CORPUS)}"
    assert (passing / EXPECTED).is_file(), f"missing passing case {passing.relative_to(CORPUS)}"
    assert f": {code} " in (failing / EXPECTED).read_text(encoding="utf-8"), (
        f"{failing} does not report {code}"
    )
    assert f": {code} " not in (passing / EXPECTED).read_text(encoding="utf-8"), f"{passing} reports {code}"
