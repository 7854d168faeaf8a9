"""LAIT107: every `models.<alias>[i].provider.gguf` of a config file must name an existing file."""

from __future__ import annotations

import os
from pathlib import Path

from lait_core.documents.config_file import gguf_path
from lait_core.rules.registry import Example, rule
from lait_core.syntax import read_log as reads
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode, ScalarNode, SequenceNode

C = "lait.config.yml"

CODE = "LAIT107"

RULE = rule(
    CODE,
    "missing-gguf-file",
    Severity.ERROR,
    "A model definition's `provider.gguf` names a file that does not exist.",
    "`provider: {gguf: PATH}` runs a local GGUF model in-process (with `pip install 'lait[local]'`) "
    "instead of sending requests to a server. The path is relative to the config file that defines it "
    "(`~` expands). A missing file would fail every run that uses the alias, so lint reports it; "
    "the built-in model needs no path: use `--model embedded` or `default: {model: embedded}`.",
    Example(
        "models:\n  local:\n    - provider: {gguf: ./models/tiny.gguf}\n      model_id: tiny\n",
        filename=C,
    ),
    Example(
        "models:\n  local:\n    - provider: {gguf: ./models/tiny.gguf}\n      model_id: tiny\n",
        filename=C,
        extra=(("models/tiny.gguf", "GGUF"),),
    ),
)


def check_gguf_files(root: MappingNode, base: Path, out: list[Diagnostic]) -> None:
    """Report each ``gguf`` value (resolved against ``base``, the config file's folder) that is
    not a file."""
    models = root.get("models")
    if not isinstance(models, MappingNode):
        return
    for alias, _key, entries in models.items():
        if not isinstance(entries, SequenceNode):
            continue
        for entry in entries.items:
            provider = entry.get("provider") if isinstance(entry, MappingNode) else None
            value = provider.get("gguf") if isinstance(provider, MappingNode) else None
            raw = value.to_python() if isinstance(value, ScalarNode) else None
            if not isinstance(raw, str) or not raw.strip():
                continue
            assert value is not None
            path = gguf_path(raw, Path(os.path.abspath(base)))
            reads.note(path)
            if not path.is_file():
                what = "is a directory, not a GGUF file" if path.is_dir() else "does not exist"
                out.append(
                    Diagnostic(
                        CODE,
                        f"model definition \"{alias}\": 'gguf' resolves to '{path}', which {what}",
                        value.range,
                    )
                )
