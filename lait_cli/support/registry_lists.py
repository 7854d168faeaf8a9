"""The listing of `lait workflow list`, `lait skill list` and `lait agent list`: the registry
entries of lait.config.yml, one per line as ``name  path  description``. An entry whose file is
missing or invalid is still listed, marked ``(broken: ...)``, with a ``warning:`` on stderr; the
exit code stays 0."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lait_cli.support.run_setup import Common
from lait_core.documents.registered_files import Entry, Section, registry_entries


def shown_path(path: Path) -> str:
    """Relative to the working directory when below it, else as is."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return rel if not rel.startswith("..") else str(path)


def format_entries(entries: list[Entry]) -> str:
    if not entries:
        return ""
    rows = [
        (
            e.name,
            shown_path(e.path),
            f"(broken: {e.problem})"
            if e.problem
            else (" ".join(e.description.split()) if e.description else ""),
        )
        for e in entries
    ]
    name_width = max(len(r[0]) for r in rows)
    path_width = max(len(r[1]) for r in rows)
    lines = [f"{n:<{name_width}}  {p:<{path_width}}  {d}".rstrip() for n, p, d in rows]
    return "\n".join(lines) + "\n"


def print_registry(section: Section, common: Common) -> None:
    from lait_cli.support.run_setup import load_run_config

    config, _folder = load_run_config(common)
    registry: dict[str, str] = getattr(config, section)
    entries = registry_entries(section, registry)
    if not entries:
        sys.stderr.write(f"lait: no {section} are registered under '{section}:' in lait.config.yml\n")
        return
    sys.stdout.write(format_entries(entries))
    for e in entries:
        if e.problem:
            sys.stderr.write(f"warning: {section}.{e.name} ({shown_path(e.path)}): {e.problem}\n")
