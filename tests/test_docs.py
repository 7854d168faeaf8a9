"""The README, docs/ and CONTRIBUTING.md hold together: every relative link resolves (a file that
exists, a heading that exists), every docs/ page a docstring or a page cites exists, docs/rules.md
is what `lait rule --all --format markdown` prints, and the README's test command is the one
.ci/run runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

from lait_core.rules.catalogue import markdown_catalogue
from lait_core.rules.registry import all_rules

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *DOCS.glob("*.md")])
"""The documentation whose links are checked."""
SOURCES = ("lait_core", "lait_cli", "lait_ls", "tests", "bench")
"""Where docstrings and comments may cite docs/ pages."""

LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
"""An inline Markdown link (not an image): ``[text](target)``."""
FENCE = re.compile(r"^(```|~~~)")


def prose(text: str) -> str:
    """The text outside fenced code blocks (a link in a code example is not a link)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


def links(page: Path) -> list[str]:
    return LINK.findall(prose(page.read_text(encoding="utf-8")))


def anchors(page: Path) -> set[str]:
    """The fragments GitHub gives the page's headings: lower case, punctuation dropped, spaces as
    hyphens, ``-1``, ``-2`` ... for repeats."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        if fenced or not (m := re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)):
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        path_part, _, fragment = target.partition("#")
        dest = (page.parent / unquote(path_part)).resolve() if path_part else page
        if not dest.exists():
            broken.append(f"{target} (no such file)")
        elif fragment and dest.suffix == ".md" and dest.is_file() and fragment not in anchors(dest):
            broken.append(f"{target} (no heading #{fragment} in {dest.name})")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == [], f"{page.relative_to(ROOT)} has links that do not resolve"


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## The `lait run` command\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n[ok](other.md#the-lait-run-command) [ok](#page) [gone](missing.md) [web](https://x.org)\n"
        "[bad](other.md#nope) ![picture](not-checked-here.png)\n```\n[code](not-a-link.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["missing.md (no such file)", "other.md#nope (no heading #nope in other.md)"]


CITED = re.compile(r"(?:^|(?<=[\s(`]))docs/([A-Za-z0-9_-]+\.md)", re.M)
"""A citation: ``docs/<page>.md`` after a space, ``(`` or a backquote (a quoted path is test data)."""


def cited_pages() -> dict[str, list[str]]:
    """docs/ page name -> where it is cited (source files, and the pages themselves)."""
    found: dict[str, list[str]] = {}
    files = [p for top in SOURCES for p in (ROOT / top).rglob("*.py")] + PAGES
    for path in files:
        if "corpus" in path.parts or "node_modules" in path.parts:
            continue
        for name in CITED.findall(path.read_text(encoding="utf-8", errors="replace")):
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def test_every_cited_docs_page_exists() -> None:
    cited = cited_pages()
    assert {"rules.md", "cli.md"} <= set(cited), "the citation scan finds nothing: is the pattern right?"
    missing = {name: where for name, where in cited.items() if not (DOCS / name).is_file()}
    assert missing == {}, f"cited docs/ pages that do not exist: {missing}"


SPEC_CITATION = re.compile(
    r"\b(?:tools-mcp-cli|workflow-and-agent|config-and-lint)\b|\bspec (?:section )?[1-8](?:\.\d+)?(?![\d-])"
)
"""A citation of the reference documents the original lait was rebuilt from, which are not part
of this repository (``spec 2025-11-25``, the MCP specification's version, is not one)."""


def test_no_docstring_cites_the_unpublished_reference() -> None:
    files = [p for top in SOURCES for p in (ROOT / top).rglob("*.py")] + PAGES
    files += sorted((ROOT / "editors").glob("*/src/**/*.ts")) + sorted((ROOT / "editors").glob("*/*.lua"))
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        if path != Path(__file__)
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if SPEC_CITATION.search(line)
    ]
    assert found == [], "cite a docs/ page (or say the behaviour) instead:\n" + "\n".join(found)


def test_the_rules_page_is_current() -> None:
    expected = markdown_catalogue(all_rules())
    actual = (DOCS / "rules.md").read_text(encoding="utf-8")
    assert actual == expected, (
        "docs/rules.md is stale; regenerate it with `lait rule --all --format markdown > docs/rules.md`"
    )


def test_lait_rule_prints_the_rules_page() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "rule", "--all", "--format", "markdown"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (DOCS / "rules.md").read_text(encoding="utf-8")
    for rule in all_rules():
        assert f"\n## {rule.code} {rule.name}\n" in done.stdout


def test_the_rules_page_links_each_rule_to_its_section() -> None:
    page = DOCS / "rules.md"
    targets = {t for t in links(page) if t.startswith("#")}
    assert targets == {f"#{r.code.lower()}-{r.name}" for r in all_rules()}
    assert broken_links(page) == []


def test_the_readme_states_the_command_ci_runs() -> None:
    """README "The two commands": its test command is the line .ci/run runs."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", section, flags=re.S)
    assert len(commands) == 2, commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert commands[1] in ci, f"the README's test command is not in .ci/run: {commands[1]}"


def test_the_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"README.md has {lines} lines; move detail into docs/"


def test_every_docs_page_is_in_the_index() -> None:
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    listed = {t.partition("#")[0] for t in links(DOCS / "README.md")}
    pages = {p.name for p in DOCS.glob("*.md")} - {"README.md"}
    assert pages <= listed, f"docs/README.md does not list {sorted(pages - listed)}"
    assert "rules.md" in index
