"""Command-line options that several commands share (`lait run`, `lait agent run`, the lists,
`lait mcp`, `lait test` and `lait eval`), declared once so their names, metavars and help read the
same everywhere.

Top-level imports are typer and the standard library only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lait_cli.common import fail

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
