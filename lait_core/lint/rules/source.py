"""LAIT0xx: reading files and YAML syntax (any lait file)."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

E = Severity.ERROR
OK = Example("steps:\n  - jq: '.'\n")

rule(
    "LAIT001",
    "yaml-syntax",
    E,
    "The file is not valid YAML.",
    "lait reads YAML 1.2. A syntax error stops the file from being read at all, so it is reported at the "
    "exact character where the parser gave up. Undefined aliases, more than one document in a file and "
    "complex (non-scalar) mapping keys are reported under this code too.",
    Example("steps:\n  - jq: [1, 2\n"),
    OK,
)
rule(
    "LAIT002",
    "duplicate-key",
    E,
    "A mapping has the same key twice.",
    "YAML mappings need unique keys; many tools silently keep the last one, which hides mistakes. lait "
    "keeps the first one, reports the second, and points at the first as a related location.",
    Example("name: a\nname: b\nsteps:\n  - jq: '.'\n"),
    OK,
)
rule(
    "LAIT003",
    "alias-expansion",
    E,
    "An alias cannot be expanded safely.",
    "Anchors and aliases are allowed, and a diagnostic inside an aliased node points at the alias. An alias "
    "that refers to the node containing it, or aliases that would expand to more than 100,000 nodes (the "
    "'billion laughs' attack), are reported at the alias instead of exhausting memory.",
    Example("steps: &s\n  - jq: '.'\n  - group: *s\n"),
    Example("steps:\n  - id: a\n    jq: &expr '.'\n  - id: b\n    jq: *expr\n", filename="aliases.yml"),
)
rule(
    "LAIT004",
    "unreadable-file",
    E,
    "A file cannot be read.",
    "The path does not exist, is a directory where a file was expected, is not a regular file (a FIFO, a "
    "device or a socket: lait never opens one for reading, since a FIFO would block and a device may never "
    "end), or cannot be opened.",
    Example("", filename="missing.yml"),
    OK,
)
rule(
    "LAIT005",
    "not-text",
    E,
    "A file is binary or not UTF-8.",
    "lait files are UTF-8 text. A file with NUL bytes is binary; invalid UTF-8 is reported at the first bad "
    "byte.",
    Example("name: caf\udce9\nsteps:\n  - jq: '.'\n"),
    OK,
)
rule(
    "LAIT006",
    "file-too-large",
    E,
    "A file is larger than 16 MiB.",
    "Every file lait reads (config, workflow, agent, schema) is capped at 16 MiB, like the original lait.",
    Example("", filename="huge.yml"),
    OK,
)
rule(
    "LAIT007",
    "unknown-file-type",
    E,
    "A path given on the command line is not a lait file type.",
    "Explicit paths are linted whatever their name: `.yml`/`.yaml` files are workflows (or "
    "`lait.config.yml`), `.md` files are agents (`SKILL.md` is a skill). Anything else cannot be checked.",
    Example("hello\n", filename="notes.txt"),
    OK,
)
rule(
    "LAIT008",
    "tab-indentation",
    E,
    "A tab character is used where YAML needs spaces.",
    "YAML forbids tabs for indentation; editors that insert tabs produce files every YAML parser rejects. "
    "A tab as separation space (`key:\tvalue`, `-\tvalue`) is valid YAML 1.2 and is not reported.",
    Example("steps:\n\t- jq: '.'\n"),
    OK,
)
