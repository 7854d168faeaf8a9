"""Command-line options that several commands share (`lait run`, `lait agent run`, the lists,
`lait mcp`), declared once so their names, metavars and help read the same everywhere.

Top-level imports are typer and the standard library only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
NoHistoryOption = Annotated[
    bool, typer.Option("--no-history", help="Do not record the run (lait keeps no history yet).")
]
