"""The CLI and the editor report the same diagnostics for the same file (design.md, "the two seams").

Every case of the lint corpus is linted in-process the way `lait lint` does it, and every file of
the case is opened in one real `lait-ls` session (pytest-lsp). For each file the server treats as
a lait file (``lait_ls.documents.lait_kind``), its diagnostics must equal the CLI's: code,
message, severity, range (converted back to code points) and the related locations. Files the
server does not treat as lait files must get no diagnostics; where the CLI does report something
for such a file, the difference is expected and must have one of the reasons in ``NOT_LAIT``.
Files an editor cannot hand over as text (missing, not UTF-8, binary, larger than 1 MiB here)
are the CLI's alone.

Both sides display paths the same way: the test process and the server share the working
directory, and the cases live outside it, so every path in a message is absolute on both sides.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.uris import to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

from lait_core.lint.discovery import FileKind
from lait_core.lint.engine import Linter, LintOptions
from lait_core.syntax.bounded_read import decode
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.positions import LineIndex
from lait_ls.convert import from_lsp_range
from lait_ls.documents import agent_references, lait_kind
from tests.lsp.conftest import SERVER
from tests.test_corpus import case_id, config_above, corpus_cases, lint_args, materialize

MAX_OPEN_BYTES = 1024 * 1024
XDG = Path(__file__).parent / "no-xdg-config-home"  # never created: no global config on either side
ENV = {"XDG_CONFIG_HOME": str(XDG)}

NOT_LAIT = {
    "other-extension": "not a .yml/.yaml/.md file; the CLI reports LAIT007 only when it is named on the command line",
    "yaml-without-steps": "a YAML file without a top-level 'steps:' that no lait.config.yml registers under "
    "'workflows:'; the CLI lints every .yml/.yaml it is given as a workflow",
    "markdown-without-frontmatter": "Markdown whose first line is not '---'",
    "markdown-elsewhere": "Markdown with frontmatter outside an agents/ folder, not registered under 'agents:' "
    "and not used by an open workflow; the CLI lints every such .md it finds as an agent",
}

UNREADABLE = {
    "missing": "the file does not exist (LAIT004); an editor has no buffer for it",
    "not-text": "not UTF-8 or binary (LAIT005); an editor would not hand lait this text",
    "large": "larger than 1 MiB: not opened here (the CLI's 16 MiB limit, LAIT006, cannot apply to a buffer)",
}

SEVERITIES = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFO: lsp.DiagnosticSeverity.Information,
}

Row = tuple[str, str, int, int, int, int, int, tuple[tuple[str, int, str], ...]]


@dataclass(frozen=True, slots=True)
class Difference:
    case: str
    file: str
    reason: str
    cli: tuple[str, ...]


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER, server_env=ENV))  # type: ignore[untyped-decorator]
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    """One server session for the whole corpus."""
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), initialization_options={"debounce": 0})
    )
    yield lsp_client
    await lsp_client.shutdown_session()


def cli_row(d: Diagnostic) -> Row:
    s, e = d.range
    related = tuple((os.path.abspath(r.path), r.range.start.line, r.message) for r in d.related)
    return (d.code, d.message, SEVERITIES[d.severity], s.line, s.character, e.line, e.character, related)


def server_row(d: lsp.Diagnostic, index: LineIndex) -> Row:
    s, e = from_lsp_range(index, d.range)
    related = tuple(
        (
            os.path.abspath(to_fs_path(r.location.uri) or r.location.uri),
            r.location.range.start.line,
            r.message,
        )
        for r in d.related_information or ()
    )
    return (str(d.code), d.message, d.severity or 0, s.line, s.character, e.line, e.character, related)


def editor_text(path: Path) -> str | None:
    """The text an editor would send for ``path`` (None: it is not text, or too big to bother)."""
    if not path.is_file() or path.stat().st_size > MAX_OPEN_BYTES:
        return None
    loaded = decode(path.read_bytes())
    return loaded.text


def case_files(project: Path) -> list[Path]:
    """Every file of a case, configs first, then YAML, then the rest (an agent a workflow uses by
    path is a lait file only once that workflow is open)."""
    files = [Path(d) / f for d, _dirs, names in os.walk(project) for f in names]
    order = {".yml": 1, ".yaml": 1, ".md": 2}
    return sorted(files, key=lambda p: (p.name != "lait.config.yml", order.get(p.suffix, 3), str(p)))


def server_kind(path: Path, text: str, open_texts: dict[Path, str]) -> FileKind | None:
    """What the server decides for ``path`` (the same inputs as ``LaitServer.kind_of``)."""
    linter = Linter(LintOptions(environ=ENV))
    try:
        config = linter.workspace_for(path).loaded_config
        workflows = config.config.workflows if config else {}
        agents = config.config.agents if config else {}
        skills = config.config.skills if config else {}
    except Exception:
        workflows, agents, skills = {}, {}, {}
    refs: set[str] = set()
    for other, other_text in open_texts.items():
        if other != path and other.suffix in (".yml", ".yaml"):
            refs |= agent_references(other, other_text)
    return lait_kind(path, text, workflows=workflows, agents=agents, agent_refs=refs, skills=skills)


def not_lait_reason(path: Path, text: str) -> str:
    if path.suffix == ".md":
        return "markdown-elsewhere" if text.startswith("---") else "markdown-without-frontmatter"
    if path.suffix in (".yml", ".yaml"):
        return "yaml-without-steps"
    return "other-extension"


async def wait_for(client: LanguageClient, uris: list[str], timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while any(uri not in client.diagnostics for uri in uris):
        if loop.time() > deadline:
            missing = [u for u in uris if u not in client.diagnostics]
            raise TimeoutError(f"no diagnostics for {missing}")
        await asyncio.sleep(0.005)


async def check_case(client: LanguageClient, case: Path, root: Path) -> list[Difference]:
    """Lint ``case`` both ways; assert parity; return the expected differences."""
    project = root / "project"
    materialize(case, project)
    assert config_above(project) is None
    name = case_id(case)
    cli = Linter(LintOptions(environ=ENV)).lint_paths([str(project / a) for a in lint_args(case)])
    by_file: dict[str, list[Row]] = {}
    for report in cli.reports:
        by_file.setdefault(os.path.abspath(report.path), [cli_row(d) for d in report.diagnostics])

    texts: dict[Path, str] = {}
    uris: dict[Path, str] = {}
    for path in case_files(project):
        text = editor_text(path)
        if text is None:
            continue
        texts[path] = text
        uris[path] = path.as_uri()
        language = {".md": "markdown", ".yml": "yaml", ".yaml": "yaml"}.get(path.suffix, "plaintext")
        client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                text_document=lsp.TextDocumentItem(uri=uris[path], language_id=language, version=1, text=text)
            )
        )
    try:
        await wait_for(client, list(uris.values()))
        published = {path: list(client.diagnostics[uri]) for path, uri in uris.items()}
    finally:
        for uri in uris.values():
            client.text_document_did_close(
                lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
            )
            client.diagnostics.pop(uri, None)

    differences: list[Difference] = []
    problems: list[str] = []
    for path, text in texts.items():
        index = LineIndex(text)
        server = sorted(server_row(d, index) for d in published[path])
        key = os.path.abspath(path)
        rel = path.relative_to(project).as_posix()
        kind = server_kind(path, text, texts)
        if kind is None:
            if server:
                problems.append(f"{rel}: not a lait file, yet the server reports {server}")
            if by_file.get(key):
                reason = not_lait_reason(path, text)
                differences.append(
                    Difference(name, rel, reason, tuple(f"{r[0]} {r[1]}" for r in by_file[key]))
                )
            continue
        if key in by_file:
            expected = sorted(by_file[key])
        else:  # a file the directory walk skips (dot-entry, node_modules/, a symlink): lint it by name
            alone = Linter(LintOptions(environ=ENV)).lint_paths([str(path)])
            expected = sorted(cli_row(d) for r in alone.reports for d in r.diagnostics if r.path == str(path))
        if server != expected:
            only_cli = [r for r in expected if r not in server]
            only_server = [r for r in server if r not in expected]
            problems.append(f"{rel} ({kind.value}):\n  CLI only: {only_cli}\n  server only: {only_server}")
    for key, rows in by_file.items():
        path = Path(key)
        if rows and path not in texts:
            reason = (
                "missing"
                if not path.is_file()
                else "large"
                if path.stat().st_size > MAX_OPEN_BYTES
                else "not-text"
            )
            differences.append(Difference(name, str(path), reason, tuple(f"{r[0]} {r[1]}" for r in rows)))
    assert not problems, f"{name}: CLI and server disagree\n" + "\n".join(problems)
    return differences


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("case", corpus_cases(), ids=case_id)
async def test_cli_and_server_agree(client: LanguageClient, case: Path, tmp_path: Path) -> None:
    for difference in await check_case(client, case, tmp_path):
        assert difference.reason in NOT_LAIT or difference.reason in UNREADABLE, difference
        print(f"{difference.case}/{difference.file}: {difference.reason}: {'; '.join(difference.cli)}")
