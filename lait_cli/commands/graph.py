"""`lait graph FILE|NAME [--format mermaid|dot]`: print a workflow's control-flow graph
(docs/workflows.md). The file is validated first (errors exit 3, located); child workflows are
not expanded."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lait_cli.support.common import fail
from lait_cli.support.run_setup import Common


def register(app: typer.Typer) -> None:
    app.command(name="graph", help="Print a workflow's control-flow graph (Mermaid or DOT).")(graph)


def graph(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A workflow file or a 'workflows:' name.")],
    fmt: Annotated[
        str, typer.Option("--format", metavar="FORMAT", help="mermaid (default) or dot.")
    ] = "mermaid",
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="PATH", help="Write the graph to a file ('-': stdout)."),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", metavar="PATH", help="Use exactly this config file.")
    ] = None,
    no_config: Annotated[bool, typer.Option("--no-config", help="Read no config file at all.")] = False,
) -> None:
    from lait_cli.commands.run import load_workflow
    from lait_cli.support.run_setup import OutputOptions, find_target, load_run_config, write_output
    from lait_core.commands.workflow_graph import FORMATS, render_graph

    if fmt not in FORMATS:
        raise fail(f"unknown --format '{fmt}'; expected one of: {', '.join(FORMATS)}", 2)
    OutputOptions(output).check_output_file("the graph")
    path = Path(file).expanduser()
    if not path.is_file():  # a 'workflows:' name: only then is the config needed
        loaded, _folder = load_run_config(Common(config, no_config).merged())
        path = find_target(file, loaded.workflows, "workflow")
    doc = load_workflow(path, Common(config, no_config).merged())
    write_output(OutputOptions(output), render_graph(doc, fmt))
