"""The `lait` command line: a thin typer face over lait_core."""
