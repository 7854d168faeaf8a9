"""Named prompts' variables (``prompts.X.vars`` and ``{{ vars.NAME }}`` in ``prompts.X.template``,
what ``--var NAME=VALUE`` sets; issue 17 item 4) through the real server: go to definition, find
references, hover on the key and rename, each prompt's variables apart from another's."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import open_doc
from tests.lsp.markers import apply_edits, marked
from tests.lsp.test_navigation import definition, references
from tests.lsp.test_rename import prepare, rename

CONFIG = (
    "prompts:\n"
    "  translate:\n"
    "    vars:\n"
    "      «lang»: French\n"
    '    template: "Into {{ vars.«la‸ng» }}: {{ input }} ({{ vars.«lang» }} only)"\n'
    "  summary:\n"
    "    vars:\n"
    "      lang: English\n"
    '    template: "Summarise in {{ vars.lang }}: {{ input }}"\n'
)


async def test_definition_and_references_stay_within_one_prompt(
    client: LanguageClient, tmp_path: Path
) -> None:
    m = marked(CONFIG)
    uri = open_doc(client, tmp_path / "lait.config.yml", m.text)
    found = await definition(client, uri, m.at)
    assert [(loc.uri, loc.range) for loc in found] == [(uri, m.ranges[0])]
    assert await references(client, uri, m.at) == [(uri, r) for r in m.ranges]
    assert await references(client, uri, m.at, declaration=False) == [(uri, r) for r in m.ranges[1:]]


async def test_hover_on_the_declared_variable(client: LanguageClient, tmp_path: Path) -> None:
    m = marked(CONFIG)
    uri = open_doc(client, tmp_path / "lait.config.yml", m.text)
    hover = await client.text_document_hover_async(
        lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=m.ranges[0].start)
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert "prompt variable `lang`" in hover.contents.value
    assert "`translate`" in hover.contents.value and "`French`" in hover.contents.value


async def test_rename_a_prompt_variable(client: LanguageClient, tmp_path: Path) -> None:
    m = marked(CONFIG)
    uri = open_doc(client, tmp_path / "lait.config.yml", m.text)
    target = await prepare(client, uri, m.at)
    assert isinstance(target, lsp.PrepareRenamePlaceholder)
    assert target.range == m.ranges[1] and target.placeholder == "lang"
    changes = await rename(client, uri, m.at, "language")
    assert set(changes) == {uri}
    assert apply_edits(m.text, changes[uri]) == m.text.replace(
        "      lang: French\n", "      language: French\n"
    ).replace(
        "{{ vars.lang }}: {{ input }} ({{ vars.lang }}",
        "{{ vars.language }}: {{ input }} ({{ vars.language }}",
    )
    # the other prompt's `lang` is untouched
    assert apply_edits(m.text, changes[uri]).count("vars.lang }}") == 1


async def test_rename_an_undeclared_variable_renames_its_references(
    client: LanguageClient, tmp_path: Path
) -> None:
    m = marked('prompts:\n  p:\n    template: "{{ vars.«to‸ne» }} {{ vars.«tone» }}"\n')
    uri = open_doc(client, tmp_path / "lait.config.yml", m.text)
    assert await definition(client, uri, m.at) == []
    changes = await rename(client, uri, m.at, "mood")
    assert apply_edits(m.text, changes[uri]) == m.text.replace("tone", "mood")


@pytest.mark.parametrize(("new_name", "reason"), [("two words", "not a valid"), ("lang", "already defined")])
async def test_rename_refuses_bad_or_taken_names(
    client: LanguageClient, tmp_path: Path, new_name: str, reason: str
) -> None:
    text = 'prompts:\n  p:\n    vars: {lang: a, tone: b}\n    template: "{{ vars.tone }} {{ vars.lang }}"\n'
    uri = open_doc(client, tmp_path / "lait.config.yml", text)
    with pytest.raises(Exception, match=reason):
        await rename(client, uri, lsp.Position(line=2, character=21), new_name)
