"""Command-line options that several commands share (`lait run`, `lait agent run`, the lists,
`lait mcp`, `lait test` and `lait eval`; the chat options of `lait [PROMPT]` and `lait chat`),
declared once so their names, metavars, checks and help read the same everywhere.

Top-level imports are typer, the standard library and lait_core.engine.llm.chat_types (plain data).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lait_cli.support.common import fail
from lait_core.engine.llm.chat_types import REASONING_EFFORTS, U32_MAX

ConfigOption = Annotated[
    Path | None, typer.Option("--config", metavar="PATH", help="Use exactly this config file.")
]
NoConfigOption = Annotated[bool, typer.Option("--no-config", help="Read no config file at all.")]
VerboseOption = Annotated[
    int, typer.Option("--verbose", "-v", count=True, show_default=False, help="Debug output on stderr.")
]
ApproveToolsOption = Annotated[
    bool, typer.Option("--approve-tools", help="Ask before every tool call (needs a terminal).")
]
OutputOption = Annotated[
    str | None,
    typer.Option("--output", "-o", metavar="PATH", help="Write the result to a file ('-': stdout)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help='Print {"content","reasoning","usage"}.')]
RenderOption = Annotated[bool, typer.Option("--render", help="Render the result as terminal Markdown.")]
ShowUsageOption = Annotated[bool, typer.Option("--show-usage", help="Print token usage to stderr.")]
NoHistoryOption = Annotated[bool, typer.Option("--no-history", help="Do not add the run to `lait history`.")]
RecordOption = Annotated[
    Path | None,
    typer.Option("--record", metavar="DIR", help="Record every model answer into DIR (one JSON file each)."),
]
ReplayOption = Annotated[
    Path | None,
    typer.Option("--replay", metavar="DIR", help="Answer every model request from DIR; never call a model."),
]
TraceFileOption = Annotated[
    Path | None,
    typer.Option(
        "--trace-file", metavar="PATH", help="Write the run's trace (JSONL) to PATH after a success."
    ),
]
CacheOption = Annotated[
    bool, typer.Option("--cache", help="Use the response cache .lait/cache/ (default: default.cache).")
]
NoCacheOption = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the response cache.")]

REPORT_FORMATS = ("text", "json", "junit", "github")
"""``--format`` of `lait test` and `lait eval`."""
ReportFormatOption = Annotated[
    str, typer.Option("--format", metavar="text|json|junit|github", help="Report format.")
]


def check_report_format(value: str) -> None:
    """Exit 2 unless ``value`` is one of :data:`REPORT_FORMATS`."""
    if value not in REPORT_FORMATS:
        raise fail(f"--format must be text, json, junit or github (got '{value}')", 2)


# -- the chat options `lait [PROMPT]` and `lait chat` share ------------------------------------------


def check_effort(value: str | None) -> str | None:
    """``--reasoning-effort``: one of :data:`REASONING_EFFORTS` (a usage error otherwise)."""
    if value is not None and value not in REASONING_EFFORTS:
        raise typer.BadParameter(f"'{value}' is not one of {', '.join(REASONING_EFFORTS)}")
    return value


ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model", envvar="LLM_MODEL", metavar="NAME", help="A model alias from 'models:' or a raw model id."
    ),
]
BaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--base-url", envvar="OPENAI_BASE_URL", metavar="URL", help="OpenAI-compatible base URL (pins it)."
    ),
]
ApiKeyOption = Annotated[
    str | None,
    typer.Option("--api-key", envvar="OPENAI_API_KEY", metavar="KEY", help="API key (pins it)."),
]
SystemOption = Annotated[str | None, typer.Option("--system", metavar="TEXT", help="System prompt.")]
SystemFileOption = Annotated[
    Path | None, typer.Option("--system-file", metavar="FILE", help="Read the system prompt from a file.")
]
ShowReasoningOption = Annotated[
    bool, typer.Option("--show-reasoning", help="Show the model's reasoning before the answer.")
]
ReasoningEffortOption = Annotated[
    str | None,
    typer.Option(
        "--reasoning-effort",
        envvar="LLM_REASONING_EFFORT",
        metavar="EFFORT",
        callback=check_effort,
        help="none, minimal, low, medium, high or xhigh.",
    ),
]
TemperatureOption = Annotated[
    float | None, typer.Option("--temperature", envvar="LLM_TEMPERATURE", min=0.0, max=2.0, metavar="F")
]
TopPOption = Annotated[
    float | None, typer.Option("--top-p", envvar="LLM_TOP_P", min=0.0, max=1.0, metavar="F")
]
MaxTokensOption = Annotated[
    int | None,
    typer.Option(
        "--max-tokens",
        envvar="LLM_MAX_TOKENS",
        metavar="N",
        min=1,
        max=U32_MAX,
        help="Sent as max_completion_tokens.",
    ),
]
ToolNamesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tool", metavar="NAME", help="A 'tools:' shell tool to offer (repeatable; replaces default.tools)."
    ),
]
McpNamesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--mcp",
        metavar="NAME",
        help="An 'mcp_servers:' server whose tools to offer (repeatable; replaces default.mcp).",
    ),
]
SubagentNamesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--subagent",
        metavar="NAME",
        help="An 'agents:' entry offered as an agent__NAME tool (repeatable; replaces default.subagents).",
    ),
]
SessionOption = Annotated[
    str | None,
    typer.Option(
        "--session",
        metavar="NAME",
        help="Keep the conversation in .lait/sessions/NAME.jsonl ([A-Za-z0-9_-]+).",
    ),
]
