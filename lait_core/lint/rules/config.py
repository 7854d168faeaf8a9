"""LAIT1xx: lait.config.yml."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

E = Severity.ERROR
C = "lait.config.yml"

rule(
    "LAIT101",
    "config-unknown-key",
    E,
    "lait.config.yml has a key lait does not know.",
    "Config parsing is strict at every level (top level, `default`, `models` entries, `provider`, "
    "`mcp_servers`, `tools`, `tool_policy`, `jev`), so a typo is an error rather than a silently ignored "
    "setting. The message suggests the closest known key, and the language server offers it as a fix.",
    Example("defualt:\n  model: qwen\n", filename=C),
    Example("default:\n  model: qwen\n", filename=C),
)
rule(
    "LAIT102",
    "config-invalid-value",
    E,
    "A lait.config.yml value has the wrong type, is out of range, or a required key is missing.",
    "Types follow the config reference: for example `models` maps an alias to a list of definitions each "
    "with `provider.base_url` and `model_id`; `default.temperature` is 0.0–2.0. lait checks ranges of "
    "`default:` and `models:` at lint time (the original only failed when a request was made).",
    Example("models:\n  fast:\n    - model_id: qwen3\n", filename=C),
    Example(
        "models:\n  fast:\n    - provider: {base_url: 'http://localhost:1234/v1'}\n      model_id: qwen3\n",
        filename=C,
    ),
)
rule(
    "LAIT103",
    "api-key-pair",
    E,
    "`api_key` and `api_key_cmd` are both set in one place.",
    "Exactly one source of the API key may be given per layer: at the top level, in `jev:`, and in each "
    "`provider` of every `models:` entry (fallback entries included).",
    Example("api_key: sk-1\napi_key_cmd: pass show openai\n", filename=C),
    Example("api_key_cmd: pass show openai\n", filename=C),
)
rule(
    "LAIT104",
    "tool-definition",
    E,
    "A shell tool under `tools:` cannot be offered to the model.",
    "Every `tools:` entry is checked whether or not anything uses it: `command` must be a non-empty argv "
    "list, and `parameters` (the JSON Schema the model sees) must be a JSON object.",
    Example("tools:\n  grep:\n    command: []\n", filename=C),
    Example(
        "tools:\n  grep:\n    command: [rg, '--', '{{ input.pattern }}']\n    parameters: {type: object}\n",
        filename=C,
    ),
)
rule(
    "LAIT105",
    "missing-workflow-file",
    E,
    "A `workflows:` registry entry names a file that does not exist.",
    "`lait run NAME` looks the name up in `workflows:`; the path is relative to the config file that "
    "defines it.",
    Example("workflows:\n  triage: ./flows/triage.yml\n", filename=C),
    Example(
        "workflows:\n  triage: ./flows/triage.yml\n",
        filename=C,
        extra=(("flows/triage.yml", "steps:\n  - jq: '.'\n"),),
    ),
)
rule(
    "LAIT106",
    "env-placeholder",
    E,
    "A `${VAR}` placeholder is malformed.",
    "Values that expand environment variables (`base_url`, `api_key`, MCP `command`/`args`/`env`/`url`/"
    "`headers`, tool `env`/`cwd`) use `${NAME}` with NAME made of letters, digits and `_`. There is no "
    "`${VAR:-default}` syntax and no escape. Whether the variable is set is checked by `lait doctor`, not "
    "by lint.",
    Example("base_url: ${LLM_URL:-http://localhost:1234/v1}\n", filename=C),
    Example("base_url: ${LLM_URL}\n", filename=C),
)
