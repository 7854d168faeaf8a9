"""LAIT804 foreign-broken-link: a VS Code/Copilot or Claude Code file links to a relative path that does not exist."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT804"

RULE = rule(
    CODE,
    "foreign-broken-link",
    Severity.WARNING,
    "A VS Code/Copilot or Claude Code file links to a relative path that does not exist.",
    "Prompt files, instructions, agents and skills pull in other files through relative Markdown links "
    "(`[style](../docs/style.md)`), resolved against the file's folder; a link that leads nowhere adds "
    "nothing to the model's context and nobody notices. Links in code blocks and inline code, URLs, "
    "`#anchors` and links with `${...}` are not checked. In MCP configs, a stdio `command` starting with "
    "`./` or `../` and a `.vscode/mcp.json` `envFile` must exist too (relative to the project folder).",
    Example(
        "---\napplyTo: '**/*.py'\n---\nFollow [the style guide](../docs/style.md).\n",
        filename=".github/instructions/python.instructions.md",
    ),
    Example(
        "---\napplyTo: '**/*.py'\n---\nFollow [the style guide](../docs/style.md).\n",
        filename=".github/instructions/python.instructions.md",
        extra=((".github/docs/style.md", "# Style\n"),),
    ),
)
