"""Document links through the real server: every file reference that resolves to an existing file
is a link (ranges from «» markers, UTF-16 columns after emoji); missing files and names that are not
paths or registered are not."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, open_doc
from tests.lsp.markers import write_project

CONFIG = """\
agents:
  reviewer: «agents/reviewer.md»
  ghost: agents/missing.md
workflows:
  child: «workflows/child.yml»
skills:
  tidy: «skills/tidy»
  flat: «skills/flat.md»
models:
  tiny:
    - model_id: tiny
      provider: {gguf: «models/tiny.gguf»}
  gone:
    - model_id: gone
      provider: {gguf: models/gone.gguf}
"""

WORKFLOW = """\
inputs:
  x: string
schemas:
  out: {file: «../schemas/out.json»}
  nope: {file: ../schemas/nope.json}
agents:
  helper:
    system: help
    output_schema: {file: "«../schemas/out.json»"}
steps:
  - agent: «../agents/reviewer.md»
  - agent: «reviewer»
  - agent: ghost
  - agent: helper
  - agent: unknown
  - workflow: «child.yml»
  - workflow: «child»
  - workflow: missing.yml
  - {prompt: "😀 日本", files: [«data/in.txt», "{{ inputs.x }}", data/missing.txt]}
  - prompt: hi
    images: [«data/pic.png», "https://example.com/a.png"]
    output_schema:
      file: '«../schemas/out.json»'
"""

AGENT = """\
---
description: 😀 reviews
output_schema: {file: «../schemas/out.json»}
---
You review.
"""

FILES = {
    "lait.config.yml": CONFIG,
    "workflows/main.yml": WORKFLOW,
    "workflows/child.yml": "steps:\n  - jq: .\n",
    "agents/reviewer.md": AGENT,
    "skills/tidy/SKILL.md": "---\nname: tidy\ndescription: d\n---\nbody\n",
    "skills/flat.md": "---\nname: flat\ndescription: d\n---\nbody\n",
    "models/tiny.gguf": "not really a model",
    "schemas/out.json": '{"type": "object"}',
    "data/in.txt": "hello",
    "data/pic.png": "png",
}


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, server_env={"XDG_CONFIG_HOME": "/nonexistent-lait-test"})
)
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            root_uri=(tmp_path / "project").as_uri(),
            initialization_options={"debounce": 0},
        )
    )
    yield lsp_client
    await lsp_client.shutdown_session()


async def links_of(client: LanguageClient, uri: str) -> list[lsp.DocumentLink]:
    result = await client.text_document_document_link_async(
        lsp.DocumentLinkParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    return list(result or [])


@pytest.mark.asyncio
async def test_links_in_config_workflow_and_agent(client: LanguageClient, tmp_path: Path) -> None:
    root = tmp_path / "project"
    marked = write_project(root, FILES)
    cases = {
        "lait.config.yml": [
            "agents/reviewer.md",
            "workflows/child.yml",
            "skills/tidy/SKILL.md",
            "skills/flat.md",
            "models/tiny.gguf",
        ],
        "workflows/main.yml": [
            "schemas/out.json",
            "schemas/out.json",
            "agents/reviewer.md",
            "agents/reviewer.md",
            "workflows/child.yml",
            "workflows/child.yml",
            "data/in.txt",
            "data/pic.png",
            "schemas/out.json",
        ],
        "agents/reviewer.md": ["schemas/out.json"],
    }
    for rel, targets in cases.items():
        uri = open_doc(client, root / rel)
        links = await links_of(client, uri)
        assert [link.range for link in links] == marked[rel].ranges, rel
        assert [link.target for link in links] == [(root / t).as_uri() for t in targets], rel
        assert all(link.tooltip for link in links)


@pytest.mark.asyncio
async def test_no_links_for_other_files_and_bad_text(client: LanguageClient, tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_project(root, {"notes.yml": "agent: a.md\n", "workflows/bad.yml": "steps: [\n  - agent: {{\n"})
    for rel in ("notes.yml", "workflows/bad.yml"):
        uri = open_doc(client, root / rel)
        assert await links_of(client, uri) == []
