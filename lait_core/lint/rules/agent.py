"""LAIT2xx: agent Markdown files, inline agents, schema sources and SKILL.md."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

E = Severity.ERROR
W = Severity.WARNING
A = "agents/reviewer.md"
GOOD = Example("---\nmodel: qwen\n---\nYou review {{ input.path }}.\n", filename=A)

rule(
    "LAIT201",
    "frontmatter-delimiter",
    E,
    "An agent file does not start with, or does not close, its `---` frontmatter.",
    "The first line must be exactly `---` and the frontmatter ends at the next line that is exactly `---`. "
    "Everything after it is the system prompt template. (Markdown files without a leading `---` are not "
    "picked up when a directory is linted; this rule fires for files named explicitly or a frontmatter "
    "that never closes.)",
    Example("---\nmodel: qwen\nYou review code.\n", filename=A),
    GOOD,
)
rule(
    "LAIT202",
    "agent-unknown-key",
    E,
    "The agent frontmatter has a key lait does not know.",
    "Frontmatter keys: name, description, model, reasoning_effort, temperature, top_p, max_tokens, mcp, "
    "skills, subagents, tools, max_tool_rounds, input_schema, output_schema, schema_name. The removed "
    "`structured_output` is unknown too (an `output_schema` alone requests Structured Outputs).",
    Example("---\nmodle: qwen\n---\nYou review code.\n", filename=A),
    Example("---\nmodel: qwen\n---\nYou review code.\n", filename=A),
)
rule(
    "LAIT203",
    "agent-system-key",
    E,
    "The agent frontmatter sets `system`.",
    "An agent file's Markdown body is its system prompt, so `system:` in the frontmatter is rejected rather "
    "than silently competing with the body.",
    Example("---\nsystem: You review code.\n---\n", filename=A),
    GOOD,
)
rule(
    "LAIT204",
    "agent-invalid-value",
    E,
    "An agent setting has the wrong type or is out of range.",
    "`temperature` is 0.0–2.0, `top_p` 0.0–1.0, `max_tokens` and `max_tool_rounds` at least 1, "
    "`reasoning_effort` one of none/minimal/low/medium/high/xhigh, capability lists are lists of names.",
    Example("---\ntemperature: 3\n---\nYou review code.\n", filename=A),
    GOOD,
)
rule(
    "LAIT205",
    "schema-name",
    E,
    "`schema_name` is used without `output_schema`, or is not a valid Structured Outputs name.",
    "The Structured Outputs name must be 1 to 64 characters of A-Z, a-z, 0-9, `_` or `-`. When "
    "`schema_name` is absent the name of the referenced `schemas:` entry is used, so that name must be "
    "valid too.",
    Example("---\nschema_name: review\n---\nYou review code.\n", filename=A),
    Example("---\nschema_name: review\noutput_schema: {type: object}\n---\nYou review code.\n", filename=A),
)
rule(
    "LAIT206",
    "schema-source",
    E,
    "An `input_schema`/`output_schema`/`schemas:` entry is not a schema.",
    "A schema source is an inline JSON Schema mapping, a boolean, or `{file: path}` with exactly one "
    "non-empty `file` key (relative to the file it is written in). In workflow steps it may also be the "
    "name of a `schemas:` entry.",
    Example("---\noutput_schema: {file: ''}\n---\nYou review code.\n", filename=A),
    Example("---\noutput_schema: {type: object}\n---\nYou review code.\n", filename=A),
)
rule(
    "LAIT207",
    "skill-frontmatter",
    E,
    "A SKILL.md frontmatter is invalid.",
    "Skills are checked as skills, not as agents (the original linted them as agents and failed on skill "
    "keys): the frontmatter is optional, `name` and `description` must be strings, other keys are allowed.",
    Example(
        "---\nname: [pdf]\ndescription: Fill PDF forms.\n---\nUse pdftk.\n", filename="skills/pdf/SKILL.md"
    ),
    Example(
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pdftk.\n", filename="skills/pdf/SKILL.md"
    ),
)
rule(
    "LAIT208",
    "skill-without-description",
    W,
    "A skill has no `description`.",
    "With progressive disclosure the model only sees each skill's name and description, so a skill without "
    "a description is rarely used well.",
    Example("---\nname: pdf\n---\nUse pdftk.\n", filename="skills/pdf/SKILL.md"),
    Example(
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pdftk.\n", filename="skills/pdf/SKILL.md"
    ),
)
