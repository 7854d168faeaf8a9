"""LAIT210: the static part of an agent's prompt against its model's context window.

The static part is what every request of the agent carries before any input: the system prompt
(the body, with its ``{{ }}`` tags left out, since their values are not known before a run), the
skills it lists (their whole sections, or only name and description with
``default.skill_progressive_disclosure``), and the descriptions and parameter schemas of its shell
tools and subagents. MCP tools are not known before a run and are not counted.

Tokens are estimated without a tokenizer (none ships with lait): four ASCII characters a token, one
token for every other character (CJK text is about a token a character). The window is the alias's
``context_window:`` in ``models:``, else a known limit for common model ids (:data:`KNOWN_WINDOWS`);
other models are not checked. The warning fires when the static part takes more than half of the
window.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path

from lait_core.documents.agent_file import AgentDocument
from lait_core.documents.document_models import Config
from lait_core.rules.registry import Example, rule
from lait_core.syntax.bounded_read import Loaded, read_source
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import ScalarNode, SequenceNode

_LONG = "Check every changed line for mistakes and explain each one.\n" * 300

CODE = "LAIT210"

RULE = rule(
    CODE,
    "context-budget",
    Severity.WARNING,
    "An agent's static prompt takes more than half of its model's context window, or exceeds a host's limit.",
    "The static part of an agent's prompt is what every request carries before any input: the system "
    "prompt (without its `{{ }}` tags), the skills it lists and the descriptions of its shell tools and "
    "subagents. Its size is estimated in tokens (four ASCII characters a token, one token for every other "
    "character; MCP tools are not counted) and compared with the model's context window: `context_window:` "
    "of the alias's first entry under `models:`, else a known limit for common model ids (gpt-4o, gpt-4.1, "
    "gpt-5, o3, claude-*, gemini-2.5, llama-3.x, qwen2.5, qwen3); other models are not checked. More than "
    "half is reported with the numbers. For GitHub Copilot custom agents (`.github/agents/`, `*.agent.md`) "
    "the body is also held against GitHub's documented limit of 30,000 characters (unless `target: vscode`).",
    Example(
        "---\nmodel: qwen\n---\n" + _LONG,
        filename="agents/reviewer.md",
        config="models:\n  qwen:\n    - provider: {base_url: 'http://localhost:1234/v1'}\n"
        "      model_id: qwen2.5-7b-instruct\n      context_window: 4096\n",
    ),
    Example(
        "---\nmodel: qwen\n---\n" + _LONG,
        filename="agents/reviewer.md",
        config="models:\n  qwen:\n    - provider: {base_url: 'http://localhost:1234/v1'}\n"
        "      model_id: qwen2.5-7b-instruct\n      context_window: 32768\n",
    ),
)


SHARE = 0.5


KNOWN_WINDOWS: tuple[tuple[str, int], ...] = (
    ("gpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("claude-", 200_000),
    ("gemini-2.5", 1_048_576),
    ("llama-3.1", 131_072),
    ("llama-3.2", 131_072),
    ("llama-3.3", 131_072),
    ("qwen2.5", 32_768),
    ("qwen3", 32_768),
)


"""Context windows of common model ids, by prefix (case-insensitive; an ``org/`` part is ignored)."""


_TAG = re.compile(r"\{\{.*?\}\}", re.DOTALL)


def estimate_tokens(text: str) -> int:
    ascii_chars = sum(1 for c in text if c < "\x80")
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


def known_window(model_id: str) -> int | None:
    name = model_id.rsplit("/", 1)[-1].lower()
    return next((size for prefix, size in KNOWN_WINDOWS if name.startswith(prefix)), None)


def _names(node: object) -> list[str]:
    if isinstance(node, SequenceNode):
        return [i.value for i in node.items if isinstance(i, ScalarNode) and isinstance(i.value, str)]
    return []


def _resolve(config: Config | None, model: str | None) -> tuple[str, str, int] | None:
    """(name as written, model id, window) or None when the window is unknown."""
    if model is None and config is not None:
        model = config.default.model
    if not model:
        return None
    definitions = config.models.get(model) if config is not None else None
    if definitions:
        first = definitions[0]
        window = first.context_window or known_window(first.model_id)
        return (model, first.model_id, window) if window else None
    window = known_window(model)
    return (model, model, window) if window else None


def check_budget(
    doc: AgentDocument,
    config: Config | None,
    base: Path,
    out: list[Diagnostic],
    reader: Callable[[Path], Loaded] | None = None,
) -> None:
    front = doc.front
    model_node = front.get("model") if front is not None else None
    model = (
        model_node.value if isinstance(model_node, ScalarNode) and isinstance(model_node.value, str) else None
    )
    resolved = _resolve(config, model)
    if resolved is None:
        return
    name, model_id, window = resolved
    system = estimate_tokens(_TAG.sub("", doc.system))
    skills = tools = 0
    if config is not None and front is not None:
        read = reader or read_source
        progressive = bool(config.default.skill_progressive_disclosure)
        for key in _names(front.get("skills")):
            where = config.skills.get(key)
            if where is None:
                continue
            path = Path(where) if Path(where).is_absolute() else base / where
            if path.is_dir():
                path = path / "SKILL.md"
            loaded = read(path)
            if loaded.text is None:
                continue
            from lait_core.documents.skill_file import parse_skill

            skill = parse_skill(loaded.text)
            description = (skill.frontmatter.description if skill.frontmatter else None) or ""
            skills += estimate_tokens(key + description + ("" if progressive else skill.body))
        for key in _names(front.get("tools")):
            tool = config.tools.get(key)
            if tool is not None:
                tools += estimate_tokens(key + (tool.description or "") + json.dumps(tool.parameters or {}))
        for key in _names(front.get("subagents")):
            if key in config.agents:
                tools += estimate_tokens(key) + 16
    total = system + skills + tools
    if total <= window * SHARE:
        return
    share = round(100 * total / window)
    shown = f"'{name}'" if name == model_id else f"'{name}' (model id '{model_id}')"
    at = (
        model_node.range
        if model_node is not None
        else (front.range if front is not None else doc.system_range(0, 0))
    )
    out.append(
        Diagnostic(
            CODE,
            f"the static prompt is about {total:,} tokens (system {system:,}, skills {skills:,}, tool descriptions"
            f" {tools:,}): {share}% of the {window:,}-token context window of {shown}, leaving less than half"
            " for input, tool results and the answer",
            at,
            Severity.WARNING,
        )
    )
