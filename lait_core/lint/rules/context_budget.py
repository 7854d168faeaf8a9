"""LAIT210: an agent's static prompt takes too much of its model's context window, or of a host's limit."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

_LONG = "Check every changed line for mistakes and explain each one.\n" * 300

rule(
    "LAIT210",
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
