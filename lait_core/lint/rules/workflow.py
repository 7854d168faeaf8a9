"""LAIT3xx: workflow files (version 2)."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

E = Severity.ERROR
W = Severity.WARNING
OK = Example("steps:\n  - id: hello\n    jq: '\"hi\"'\n")

rule(
    "LAIT301",
    "workflow-not-mapping",
    E,
    "The workflow file is not a YAML mapping.",
    "A workflow is a mapping with at least `steps:`.",
    Example("- jq: '.'\n"),
    OK,
)
rule(
    "LAIT302",
    "workflow-version",
    E,
    "The file is a version 1 workflow, or names an unsupported version.",
    "lait reads version 2 workflows, where each step has one kind key (`prompt:`, `run:`, `jq:` ...). A "
    "`nodes:` key or `version: 1` means the old format: rewrite it (see the migration guide). Any version "
    "other than 2 is unsupported; omit `version:` to use the latest.",
    Example("version: 1\nnodes:\n  a: {type: transform, jq: '.'}\nsteps:\n  - use: a\n"),
    OK,
)
rule(
    "LAIT303",
    "workflow-unknown-key",
    E,
    "A workflow key (top level, `default:`, `agents:` entry, `retry:` ...) is not known.",
    "Workflow parsing is strict; the message suggests the closest known key.",
    Example("descripton: Say hi\nsteps:\n  - jq: '.'\n"),
    Example("description: Say hi\nsteps:\n  - jq: '.'\n"),
)
rule(
    "LAIT304",
    "workflow-invalid-value",
    E,
    "A workflow value has the wrong type or range, or `steps` is missing.",
    "For example `timeout` is an integer of seconds of at least 1, `default.temperature` is 0.0–2.0, "
    "`default.retry` needs `max_attempts`.",
    Example("timeout: 0\nsteps:\n  - jq: '.'\n"),
    Example("timeout: 60\nsteps:\n  - jq: '.'\n"),
)
rule(
    "LAIT305",
    "invalid-identifier",
    E,
    "A step id or a name in `inputs:`/`schemas:`/`agents:`/`parallel:` is not an identifier.",
    "Names must start with a letter or `_` followed by letters, digits, `_` or `-`, so they can be used as "
    "`steps.<id>`, `$inputs.<name>` and so on.",
    Example("inputs:\n  1st: string\nsteps:\n  - jq: '.'\n"),
    Example("inputs:\n  first: string\nsteps:\n  - jq: '.'\n"),
)
rule(
    "LAIT306",
    "inline-agent-system",
    E,
    "An inline agent under `agents:` has no `system:` prompt.",
    "A workflow's inline agent is an agent file without a file: its `system:` key replaces the Markdown "
    "body and is required.",
    Example("agents:\n  critic: {model: qwen}\nsteps:\n  - agent: critic\n"),
    Example("agents:\n  critic: {model: qwen, system: You criticise.}\nsteps:\n  - agent: critic\n"),
)
rule(
    "LAIT307",
    "empty-step-list",
    E,
    "A step list is empty.",
    "`steps`, `on_error`, `group`, switch cases, `else`, parallel branches and loop bodies must each contain "
    "at least one step.",
    Example("steps: []\n"),
    OK,
)
rule(
    "LAIT308",
    "step-kind",
    E,
    "A step has no kind key, more than one, or is not a mapping.",
    "Each step has exactly one of: prompt, agent, run, decide, workflow, jq, ask, write, group, switch, "
    "parallel, for_each, while, until, stop, break.",
    Example("steps:\n  - prompt: Hi\n    run: [echo]\n"),
    OK,
)
rule(
    "LAIT309",
    "step-unknown-key",
    E,
    "A step has a key its kind does not accept.",
    "Each kind accepts its own keys plus `id`, `when`, `input`, `output` (and `retry`, `timeout`, "
    "`on_error` except for stop/break). An `agent:` step cannot set `system` or schemas, for example.",
    Example("steps:\n  - prompt: Hi\n    temprature: 0.2\n"),
    Example("steps:\n  - prompt: Hi\n    temperature: 0.2\n"),
)
rule(
    "LAIT310",
    "step-invalid-value",
    E,
    "A step value is wrong for its kind.",
    "Types and ranges of step keys, and the kind rules: `run` starts with a program, `ask` is not blank, "
    "`choices` are non-empty and contain `default`, `write` has a path, `max_iterations` is at least 1, "
    "`stop`/`break` are `true`, `decide` questions have valid criteria.",
    Example("steps:\n  - ask: Deploy?\n    choices: [yes, no]\n    default: maybe\n"),
    Example("steps:\n  - ask: Deploy?\n    choices: [yes, no]\n    default: no\n"),
)
rule(
    "LAIT311",
    "duplicate-step-id",
    E,
    "Two steps in one file have the same `id`.",
    "Ids are unique across the whole file, nested lists and `on_error` included, because `steps.<id>` "
    "names exactly one recorded value. The diagnostic points at the first use as a related location.",
    Example("steps:\n  - id: a\n    jq: '1'\n  - id: a\n    jq: '2'\n"),
    Example("steps:\n  - id: a\n    jq: '1'\n  - id: b\n    jq: '2'\n"),
)
rule(
    "LAIT312",
    "misplaced-control",
    E,
    "`break`, `stop`, `ask` or `write` is where it cannot run.",
    "`break` must be inside a `for_each`/`while`/`until` body and not across a `parallel` branch or a "
    "concurrent `for_each`; `stop` and `ask` cannot run inside a parallel branch or a concurrent "
    "`for_each`; a `write` with a fixed path inside a concurrent `for_each` would race. A child "
    "workflow inherits the placement of the `workflow:` step that calls it: an `ask` or fixed-path `write` "
    "in the child (or its children) is reported at that step, as the run refuses it there.",
    Example("steps:\n  - break: true\n"),
    Example(
        "steps:\n  - while: '. < 3'\n    max_iterations: 5\n    steps:\n      - jq: '. + 1'\n"
        "      - when: '. == 2'\n        break: true\n"
    ),
)
rule(
    "LAIT313",
    "undefined-schema",
    E,
    "A schema reference names no `schemas:` entry.",
    "`input_schema`/`output_schema` given as a string must be the name of an entry under `schemas:` in the "
    "same file.",
    Example("steps:\n  - prompt: Hi\n    output_schema: answer\n"),
    Example("schemas:\n  answer: {type: object}\nsteps:\n  - prompt: Hi\n    output_schema: answer\n"),
)
rule(
    "LAIT314",
    "invalid-input",
    E,
    "An `inputs:` entry is not a schema, or its `default` does not match it.",
    "Each input is a JSON Schema mapping, a type name such as `string`, or null; a `default` makes the "
    "input optional and must satisfy the input's own schema.",
    Example("inputs:\n  count: {type: integer, default: many}\nsteps:\n  - jq: '$inputs.count'\n"),
    Example("inputs:\n  count: {type: integer, default: 3}\nsteps:\n  - jq: '$inputs.count'\n"),
)
rule(
    "LAIT315",
    "unused-schema",
    W,
    "A `schemas:` entry is never referenced.",
    "Neither a step nor the workflow's `input_schema` refers to it.",
    Example("schemas:\n  answer: {type: object}\nsteps:\n  - prompt: Hi\n"),
    Example("schemas:\n  answer: {type: object}\nsteps:\n  - prompt: Hi\n    output_schema: answer\n"),
)
rule(
    "LAIT316",
    "unused-agent",
    W,
    "An inline agent under `agents:` is never used by an `agent:` step.",
    "Inline agents are usable only by `agent:` steps of the same file (not as subagents).",
    Example("agents:\n  critic: {system: You criticise.}\nsteps:\n  - prompt: Hi\n"),
    Example("agents:\n  critic: {system: You criticise.}\nsteps:\n  - agent: critic\n"),
)
rule(
    "LAIT317",
    "unknown-schema-type",
    W,
    "A JSON Schema uses a `type` lait does not recognize.",
    "lait validates `type`, `enum` and `required` (through `properties` and `items`). A type other than "
    "object, array, string, boolean, null, integer or number is not enforced: it matches any value.",
    Example("inputs:\n  count: {type: int}\nsteps:\n  - jq: '$inputs.count'\n"),
    Example("inputs:\n  count: {type: integer}\nsteps:\n  - jq: '$inputs.count'\n"),
)
rule(
    "LAIT318",
    "schema-file",
    E,
    "A `{file: ...}` schema cannot be read or is not JSON.",
    "Schema files are resolved against the file they are written in (the workflow's or the agent file's "
    "directory).",
    Example(
        "schemas:\n  answer: {file: schemas/answer.json}\nsteps:\n  - prompt: Hi\n    output_schema: answer\n"
    ),
    Example(
        "schemas:\n  answer: {file: schemas/answer.json}\nsteps:\n  - prompt: Hi\n    output_schema: answer\n",
        extra=(("schemas/answer.json", '{"type": "object"}\n'),),
    ),
)
rule(
    "LAIT319",
    "agent-reference",
    E,
    "An `agent:` step names an agent that cannot be found or loaded.",
    "The reference is, in order: a name under this file's `agents:`; a path (with `/` or ending in `.md`) "
    "relative to the workflow file; a name under `agents:` in lait.config.yml. A referenced agent file is "
    "linted as well, and its problems are reported at the reference.",
    Example("steps:\n  - agent: ./agents/missing.md\n"),
    Example(
        "steps:\n  - agent: ./agents/reviewer.md\n",
        extra=(("agents/reviewer.md", "---\nmodel: qwen\n---\nYou review.\n"),),
    ),
)
rule(
    "LAIT320",
    "workflow-reference",
    E,
    "A `workflow:` step names a workflow that cannot be found, loaded, or would recurse.",
    "A path (with `/` or ending in `.yml`/`.yaml`) is relative to the calling file; otherwise the name is "
    "looked up under `workflows:` in lait.config.yml. The child is linted (cached per run); cycles and "
    "nesting deeper than 32 are errors, and the child's own problems are reported at the reference with "
    "their locations in the child file.",
    Example("steps:\n  - workflow: ./child.yml\n"),
    Example("steps:\n  - workflow: ./child.yml\n", extra=(("child.yml", "steps:\n  - jq: '.'\n"),)),
)
