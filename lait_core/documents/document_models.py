"""Typed models of lait's file formats: lait.config.yml, agent frontmatter, workflow.yml.

These pydantic models are the single source of truth for key names, types, ranges and the
documentation of every key: the loaders validate with them, the JSON Schemas in ``schemas/``
are generated from them (``lait schema``), and the language server's hover shows their
``description``s.

Step lists are typed ``StepList`` (a plain list during validation): each step is validated on
its own against the model of its kind (see :mod:`lait_core.documents.workflow_file`), which gives
one precise error per mistake instead of a union's pile of alternatives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError

IDENTIFIER = r"^[A-Za-z_][A-Za-z0-9_-]*$"
SCHEMA_NAME = r"^[A-Za-z0-9_-]{1,64}$"
U32_MAX = 4294967295

ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]
CommandSpec = Annotated[
    str | list[str],
    Field(description="A command: a string runs through `sh -c`; a list runs as argv without a shell."),
]
StepList = Annotated[list[Any], WithJsonSchema({"x-lait-ref": "stepList"})]
SchemaSource = Annotated[
    dict[str, Any] | bool,
    WithJsonSchema({"x-lait-ref": "schemaSource"}),
]
SchemaRef = Annotated[
    str | dict[str, Any] | bool,
    WithJsonSchema({"oneOf": [{"type": "string"}, {"x-lait-ref": "schemaSource"}]}),
]
NameList = list[str]
M = TypeVar("M", bound=BaseModel)


def defaults_of(model: type[M]) -> Callable[[], M]:
    """A ``default_factory`` for a field holding ``model``: the instance with every field at its
    default, made without validation (validating ``{}`` gives the same instance, but would first
    build the model's validator: start-up time for every run that leaves the key out)."""
    return lambda: model.model_construct()


class Strict(BaseModel):
    # defer_build: a model's validator is built when it first validates, not at import, so a run
    # pays only for the models it uses (a chat never validates a workflow step; issue 17 start-up)
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True, defer_build=True)


# --------------------------------------------------------------------------------------------
# lait.config.yml


class ProviderConfig(Strict):
    """Where a model definition's requests go: a server (`base_url`) or a local GGUF file (`gguf`)."""

    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {"required": ["base_url"], "not": {"required": ["gguf"]}},
                {
                    "required": ["gguf"],
                    "not": {"anyOf": [{"required": [k]} for k in ("base_url", "api_key", "api_key_cmd")]},
                },
            ]
        }
    )

    base_url: str | None = Field(
        None,
        description="OpenAI-compatible endpoint, e.g. `http://localhost:1234/v1`. `${VAR}` expands. "
        "Exclusive with `gguf`.",
    )
    gguf: str | None = Field(
        None,
        description="A GGUF model file run in-process by llama-cpp-python (`pip install 'lait[local]'`), "
        "relative to the file that defines it. Exclusive with `base_url`, `api_key` and `api_key_cmd`.",
    )
    api_key: str | None = Field(
        None, description="Literal API key. `${VAR}` expands. Exclusive with `api_key_cmd`."
    )
    api_key_cmd: CommandSpec | None = Field(
        None, description="Command that prints the API key; run lazily, only when this entry is tried."
    )

    @model_validator(mode="after")
    def _one_target(self) -> ProviderConfig:
        if self.gguf is not None:
            extra = [k for k in ("base_url", "api_key", "api_key_cmd") if getattr(self, k) is not None]
            if extra:
                raise PydanticCustomError(
                    "provider_target",
                    "a provider with 'gguf' (a local model file) cannot also set {keys}; those configure a server",
                    {"keys": " and ".join(f"'{k}'" for k in extra)},
                )
        elif self.base_url is None:
            raise PydanticCustomError(
                "provider_target", "set 'base_url' (a server) or 'gguf' (a local model file)"
            )
        return self


class Pricing(Strict):
    """USD per million tokens; used by `--show-usage`, `compare` and usage assertions."""

    input_per_1m: float = Field(ge=0, description="USD per million prompt tokens.")
    output_per_1m: float = Field(ge=0, description="USD per million completion tokens.")


class ModelDefinition(Strict):
    """One entry of a model alias: the first is primary, later ones are connection fallbacks."""

    provider: ProviderConfig = Field(description="Endpoint and key of this entry.")
    model_id: str = Field(description="The model id sent to the server.")
    default_reasoning_effort: ReasoningEffort | None = Field(None, description="Model-level default effort.")
    default_temperature: float | None = Field(
        None, ge=0, le=2, description="Model-level default temperature."
    )
    default_top_p: float | None = Field(None, ge=0, le=1, description="Model-level default top_p.")
    default_max_tokens: int | None = Field(
        None, ge=1, le=U32_MAX, description="Model-level default max tokens."
    )
    pricing: Pricing | None = Field(
        None, description="Cost per million tokens; absent means unknown, never zero."
    )
    api: Literal["chat_completions", "responses"] = Field("chat_completions", description="Wire format.")
    context_window: int | None = Field(
        None,
        ge=1,
        description="The model's context window in tokens; LAIT210 compares an agent's static prompt with it "
        "(default: a known limit for common model ids, else unchecked).",
    )


ModelMap = dict[str, Annotated[list[ModelDefinition], Field(min_length=1)]]


class CompactionConfig(Strict):
    """Summarise older messages of long tool loops. At least one trigger is required."""

    trigger_rounds: int | None = Field(
        None, ge=1, description="Compact before round r when r % trigger_rounds == 0."
    )
    trigger_tokens: int | None = Field(
        None, ge=1, description="Compact when the previous round reported at least this many prompt tokens."
    )
    keep_last_n: int = Field(4, ge=0, description="The most recent N messages are kept verbatim.")
    model: str | None = Field(None, description="Summarizer model (a config alias or a raw id).")


class DefaultSettings(Strict):
    """Fallback values for chat, prompts, agents and workflows; each field falls back on its own."""

    model: str | None = Field(
        None, description="Final fallback model: an alias from `models:` or a raw model id."
    )
    reasoning_effort: ReasoningEffort | None = Field(None, description="Reasoning effort sent to the model.")
    system: str | None = Field(
        None, description="Chat-mode system prompt (agents and workflows never read it)."
    )
    temperature: float | None = Field(None, ge=0, le=2, description="Sampling temperature, 0.0–2.0.")
    top_p: float | None = Field(None, ge=0, le=1, description="Nucleus sampling, 0.0–1.0.")
    max_tokens: int | None = Field(None, ge=1, le=U32_MAX, description="Sent as `max_completion_tokens`.")
    mcp: NameList | None = Field(None, description="Names from `mcp_servers:` offered as tools.")
    max_tool_rounds: int | None = Field(
        None, ge=1, description="Limit on tool-call round trips (built-in 8)."
    )
    skills: NameList | None = Field(None, description="Names from `skills:` appended to the system prompt.")
    subagents: NameList | None = Field(
        None, description="Names from `agents:` offered as `agent__<name>` tools."
    )
    tools: NameList | None = Field(None, description="Names from `tools:` offered as `tool__<name>` tools.")
    render: bool | None = Field(None, description="Render answers as terminal Markdown.")
    history: bool | None = Field(
        None,
        description=(
            "Append each successful chat, agent and workflow run to `$XDG_DATA_HOME/lait/history.jsonl`"
            " (`lait history`); default true. `--no-history` turns it off for one run."
        ),
    )
    cache: bool | None = Field(
        None,
        description=(
            "Answer identical model requests from the response cache `.lait/cache/<key>.json`; default"
            " false. `--cache` / `--no-cache` override it for one run."
        ),
    )
    cache_ttl: int | None = Field(
        None,
        ge=0,
        description="Seconds a response cache entry stays valid (absent: entries never expire).",
    )
    compaction: CompactionConfig | None = Field(
        None, description="Conversation compaction for long tool loops."
    )
    skill_progressive_disclosure: bool | None = Field(
        None,
        description="Append only skill names/descriptions; the body is returned by a `skill__<name>` tool.",
    )


class McpOAuthConfig(Strict):
    """OAuth 2.1 sign-in for a `url:` server (MCP authorization). Without it lait registers itself
    (client ID metadata document or dynamic registration) when the server asks for sign-in."""

    client_id: str | None = Field(
        None, description="A pre-registered client ID (skips client registration). `${VAR}` expands."
    )
    client_secret_env: str | None = Field(
        None,
        description=(
            "Name of the environment variable holding the client secret of `client_id` (the secret "
            "itself never goes in the file); absent: a public client."
        ),
    )
    scopes: list[str] | None = Field(
        None,
        description=(
            "Scopes to request; absent: the ones the server's `WWW-Authenticate` or metadata names."
        ),
    )
    client_metadata_url: str | None = Field(
        None,
        description=(
            "HTTPS URL of a client ID metadata document describing lait (with a path); used as the "
            "client ID by authorization servers that support such documents, instead of registering."
        ),
    )


class McpServerConfig(Strict):
    """An MCP server: `command` (stdio) or `url` (Streamable HTTP), exactly one."""

    command: str | None = Field(None, description="stdio transport: the program to spawn. `${VAR}` expands.")
    args: list[str] = Field(default_factory=list, description="Arguments of `command`. `${VAR}` expands.")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment for the child process.")
    env_inherit: bool | None = Field(
        None,
        description="`false`: the server gets only its `env:` plus PATH, HOME, LANG and TERM, not lait's whole "
        "environment (API keys included). Default: `true`, or `false` under `confine: project`.",
    )
    cwd: str | None = Field(None, description="Working directory of the child process.")
    url: str | None = Field(None, description="Streamable-HTTP endpoint. `${VAR}` expands.")
    headers: dict[str, str] = Field(default_factory=dict, description="HTTP headers. Values `${VAR}`-expand.")
    allowed_tools: list[str] | None = Field(
        None, description="Raw tool names the model may call; absent = all, `[]` = none."
    )
    allow_elicitation: bool = Field(False, description="Let the server ask the user for input (elicitation).")
    oauth: McpOAuthConfig | None = Field(
        None,
        description=(
            "OAuth sign-in settings of a `url:` server: a pre-registered `client_id`, the environment "
            "variable of its secret, the scopes to request."
        ),
    )


class PromptDefinition(Strict):
    """A named prompt template for `lait -p NAME` and `lait prompt run NAME`."""

    template: str = Field(description="Handlebars template; may use `{{ input }}` and `{{ vars.<k> }}`.")
    model: str | None = Field(None, description="Model for this prompt (falls back to `default.model`).")
    vars: dict[str, str] = Field(
        default_factory=dict, description="String defaults that `--var k=v` overrides."
    )


class ToolPolicy(Strict):
    """Allow/deny patterns over qualified tool names (`server__tool`, `agent__x`, `tool__x`)."""

    allow: list[str] = Field(default_factory=list, description="Patterns that may run (empty: all).")
    deny: list[str] = Field(default_factory=list, description="Patterns that never run; checked first.")


class ShellToolDefinition(Strict):
    """A custom shell tool offered to the model as `tool__<name>`."""

    command: list[str] = Field(
        description="argv, run without a shell; each item is a template over `input` (the model's arguments)."
    )
    description: str | None = Field(None, description="Shown to the model.")
    parameters: Any = Field(
        None,
        description="JSON Schema of the arguments (an object); default `{type: object, properties: {}}`.",
    )
    timeout: int = Field(30, ge=0, description="Per-call limit in seconds.")
    env: dict[str, str] = Field(
        default_factory=dict, description="If non-empty, the only variables the child sees (include PATH)."
    )
    cwd: str | None = Field(None, description="Working directory. `${VAR}` expands.")


class JevConfig(Strict):
    """Jev-compatible decision API used by `decide:` steps."""

    base_url: str | None = Field(None, description="Default `https://api.typesafe.ai/v1`. `${VAR}` expands.")
    api_key: str | None = Field(
        None, description="Bearer key. `${VAR}` expands. Exclusive with `api_key_cmd`."
    )
    api_key_cmd: CommandSpec | None = Field(None, description="Command that prints the key.")
    model: str | None = Field(None, description="Default `jev-latest`.")


class ServeSettings(Strict):
    """`lait serve --mcp` settings."""

    approvals: Literal["off", "elicit"] = Field(
        "off",
        description=(
            "`elicit`: every tool call of a served run asks the person at the MCP client (through "
            "elicitation) before it runs; `off` (default): served runs never ask."
        ),
    )


class ApprovalSettings(Strict):
    """Calls `--approve-tools` (and the editor's approvals) do not ask about."""

    read_only: list[str] = Field(
        default_factory=list,
        description="MCP servers whose tools annotated `readOnlyHint: true` (and not destructive) run without "
        "asking. The annotation is the server's own claim and never enough alone: list only servers you trust.",
    )


RuleSeverity = Literal["error", "warning", "info", "off"]


class LintSettings(Strict):
    """`lait lint` and lait-ls settings: which rules run, at which severity, against which baseline."""

    select: list[str] | None = Field(
        None, description="Rule codes or prefixes to check (`LAIT2`, `LAIT501`); default all (`LAIT`)."
    )
    extend_select: list[str] = Field(default_factory=list, description="Codes or prefixes added to `select`.")
    ignore: list[str] = Field(
        default_factory=list,
        description="Codes or prefixes never reported (the more specific selector wins).",
    )
    severity: dict[str, RuleSeverity] = Field(
        default_factory=dict,
        description="Severity by rule code or prefix: `error`, `warning`, `info` or `off`.",
    )
    foreign: bool = Field(
        True,
        description="Lint other tools' files too (VS Code/Copilot agents, prompts, instructions, Claude Code "
        "subagents, skills, `.mcp.json`, `.vscode/mcp.json`).",
    )
    baseline: str | None = Field(
        None,
        description="A baseline file (relative to this config): findings recorded in it are not reported.",
    )


class Config(Strict):
    """lait.config.yml: models, MCP servers, tools, registries and defaults."""

    model_config = ConfigDict(title="lait configuration (lait.config.yml)")

    base_url: str | None = Field(
        None,
        description="OpenAI-compatible endpoint for raw model ids (built-in `http://localhost:1234/v1`).",
    )
    api_key: str | None = Field(None, description="API key. `${VAR}` expands. Exclusive with `api_key_cmd`.")
    api_key_cmd: CommandSpec | None = Field(None, description="Command that prints the API key.")
    default: DefaultSettings = Field(
        default_factory=defaults_of(DefaultSettings), description="Fallback values, field by field."
    )
    models: ModelMap = Field(
        default_factory=dict,
        description="Model aliases: alias → list of definitions (first primary, rest fallbacks).",
    )
    mcp_servers: dict[str, McpServerConfig] = Field(default_factory=dict, description="MCP servers by name.")
    skills: dict[str, str] = Field(
        default_factory=dict, description="Skill files (or directories with SKILL.md), relative to this file."
    )
    agents: dict[str, str] = Field(
        default_factory=dict, description="Agent Markdown files usable as subagents and `agent:` steps."
    )
    prompts: dict[str, PromptDefinition] = Field(default_factory=dict, description="Named prompt templates.")
    workflows: dict[str, str] = Field(default_factory=dict, description="Workflow files runnable by name.")
    tool_policy: ToolPolicy = Field(
        default_factory=defaults_of(ToolPolicy), description="Allow/deny patterns for tool calls."
    )
    tools: dict[str, ShellToolDefinition] = Field(
        default_factory=dict, description="Custom shell tools by name."
    )
    jev: JevConfig = Field(
        default_factory=defaults_of(JevConfig), description="Decision API settings for `decide:` steps."
    )
    confine: Literal["project", "none"] | None = Field(
        None,
        description="`project`: a run fails when a `write:`, `files:`/`images:`, `agent:` or `workflow:` path "
        "leads outside the folder of the project's lait.config.yml (symbolic links resolved). Default `none`. "
        "A global `confine: project` cannot be lifted by a project.",
    )
    approvals: ApprovalSettings = Field(
        default_factory=defaults_of(ApprovalSettings),
        description="Tool calls that are not asked about under `--approve-tools` (read-only tools of listed servers).",
    )
    serve: ServeSettings = Field(
        default_factory=defaults_of(ServeSettings),
        description="Settings of `lait serve --mcp` (the MCP server mode).",
    )
    lint: LintSettings = Field(
        default_factory=defaults_of(LintSettings),
        description="Rule selection, per-rule severity, other tools' files and a baseline (`lait lint`, lait-ls).",
    )


# --------------------------------------------------------------------------------------------
# agent.md frontmatter


class LlmKeys(Strict):
    model: str | None = Field(None, description="Model alias (from `models:`) or raw model id.")
    reasoning_effort: ReasoningEffort | None = Field(None, description="Reasoning effort sent to the model.")
    temperature: float | None = Field(None, ge=0, le=2, description="Sampling temperature, 0.0–2.0.")
    top_p: float | None = Field(None, ge=0, le=1, description="Nucleus sampling, 0.0–1.0.")
    max_tokens: int | None = Field(None, ge=1, le=U32_MAX, description="Completion token limit (≥1).")
    mcp: NameList | None = Field(
        None, description="MCP servers (names from `mcp_servers:` in lait.config.yml)."
    )
    max_tool_rounds: int | None = Field(None, ge=1, description="Limit on tool-call round trips (default 8).")
    skills: NameList | None = Field(None, description="Skills (names from `skills:` in lait.config.yml).")
    subagents: NameList | None = Field(
        None, description="Subagents (names from `agents:` in lait.config.yml)."
    )
    tools: NameList | None = Field(None, description="Shell tools (names from `tools:` in lait.config.yml).")


class AgentFrontmatter(LlmKeys):
    """The YAML frontmatter of an agent Markdown file; the body is the system prompt template."""

    model_config = ConfigDict(title="lait agent frontmatter")

    name: str | None = Field(None, description="The agent's name.")
    description: str | None = Field(None, description="What the agent does; the subagent tool's description.")
    input_schema: SchemaSource | None = Field(
        None, description="JSON Schema of the input (inline, or `{file: path}` relative to this file)."
    )
    output_schema: SchemaSource | None = Field(
        None, description="JSON Schema of the answer; its presence requests Structured Outputs."
    )
    schema_name: str | None = Field(
        None, pattern=SCHEMA_NAME, description="Structured Outputs schema name (needs `output_schema`)."
    )


class InlineAgent(AgentFrontmatter):
    """An agent defined inside a workflow's `agents:`; `system` is its prompt template."""

    system: str = Field(description="The system prompt template (required).")


class SkillFrontmatter(BaseModel):
    """The optional frontmatter of a SKILL.md file."""

    model_config = ConfigDict(extra="allow", strict=True, title="lait skill frontmatter", defer_build=True)

    name: str | None = Field(None, description="Skill name (defaults to the registry key).")
    description: str | None = Field(None, description="When to use the skill; shown to the model.")


# --------------------------------------------------------------------------------------------
# workflow.yml (version 2)


class RetryDefinition(Strict):
    """Retry the step's unit (input → kind → output) on failure."""

    max_attempts: int = Field(ge=1, description="Total attempts including the first (≥1).")
    delay_seconds: int = Field(0, ge=0, description="Wait before the second attempt.")
    backoff: float = Field(1.0, ge=0, allow_inf_nan=False, description="Multiplier applied to the delay.")


class WorkflowDefaults(LlmKeys):
    """Defaults for the workflow's LLM steps; each field falls back on its own."""

    system: str | None = Field(None, description="System prompt template for `prompt:` steps.")
    retry: RetryDefinition | None = Field(None, description="Retry block for prompt/agent/decide steps.")
    timeout: int | None = Field(None, ge=1, description="Per-attempt timeout of prompt/agent/decide steps.")


class StepBase(Strict):
    id: str | None = Field(
        None, pattern=IDENTIFIER, description="Records the value as `steps.<id>`; unique per file."
    )
    when: str | None = Field(None, description="jq condition on the incoming value; falsy skips the step.")
    input: str | None = Field(None, description="jq computing the value the step acts on (default `.`).")
    output: str | None = Field(None, description="jq mapping the step's result to its value.")


class CommonStep(StepBase):
    retry: RetryDefinition | None = Field(None, description="Retry the step on failure.")
    timeout: int | None = Field(None, ge=1, description="Seconds per attempt.")
    on_error: StepList | None = Field(
        None, description="Steps run instead of failing; input `{error, input}`."
    )


class PromptStep(CommonStep, LlmKeys):
    """Call the model with a rendered prompt."""

    prompt: str = Field(description="User message template.")
    system: str | None = Field(None, description="System message template (falls back to `default.system`).")
    files: list[str] | None = Field(
        None, description="Path templates whose contents are appended to the prompt."
    )
    images: list[str] | None = Field(None, description="Image paths or http(s) URLs (templates).")
    input_schema: SchemaRef | None = Field(
        None, description="Validates the input: a `schemas:` name or a schema."
    )
    output_schema: SchemaRef | None = Field(
        None, description="Requests Structured Outputs and validates the answer."
    )
    schema_name: str | None = Field(None, pattern=SCHEMA_NAME, description="Structured Outputs schema name.")


class AgentStep(CommonStep, LlmKeys):
    """Run an agent: an inline `agents:` name, a path to an agent file, or a config `agents:` name."""

    agent: str = Field(min_length=1, description="Agent reference.")
    files: list[str] | None = Field(None, description="Path templates appended to the user message.")
    images: list[str] | None = Field(None, description="Image paths or URLs (templates).")


class RunStep(CommonStep):
    """Run a program (no shell); stdin is the input's text form, the value is stdout."""

    run: list[str] = Field(min_length=1, description="argv; each item is a template.")
    env: dict[str, str] | None = Field(
        None,
        description="If non-empty, the only variables the command sees (an allowlist, as for shell tools; "
        "include PATH); values `${VAR}`-expand. Absent or empty: lait's environment is inherited.",
    )
    cwd: str | None = Field(None, description="Working directory.")


class JevQuestion(Strict):
    type: Literal["noul", "choice", "score"] = Field(description="Question type.")
    instructions: Any = Field(None, description="Instructions for this question.")
    criteria: Any = Field(None, description="noul: true/false descriptions; choice: options; score: levels.")


class DecideStep(CommonStep):
    """Ask the Jev-compatible decision API one or more questions about the input."""

    decide: dict[str, JevQuestion] = Field(min_length=1, description="Questions by id.")
    model: str | None = Field(
        None, pattern=r"\S", description="Jev model (default `jev.model`, then jev-latest)."
    )


class WorkflowStepModel(CommonStep):
    """Run another workflow file (a path) or a `workflows:` registry name."""

    workflow: str = Field(min_length=1, description="Child workflow reference.")
    with_: str | None = Field(None, alias="with", description="jq producing the child's `inputs:` object.")


class JqStep(CommonStep):
    """Transform the value with jq (exactly one output value)."""

    jq: str = Field(description="jq expression.")


class AskStep(CommonStep):
    """Ask the person running the workflow."""

    ask: str = Field(description="Question template (non-blank).")
    choices: list[str] | None = Field(None, min_length=1, description="Allowed answers.")
    default: str | None = Field(
        None, description="Answer used without a terminal (must be one of `choices`)."
    )
    multiline: bool = Field(False, description="Read until EOF instead of one line.")


class WriteStep(CommonStep):
    """Write the input's text form to a file (relative to the current directory)."""

    write: str = Field(min_length=1, description="Path template.")


class GroupStep(CommonStep):
    """Run a list of steps as one step."""

    group: StepList = Field(description="The steps.")


class SwitchCase(Strict):
    when: str = Field(description="jq condition on the step input.")
    steps: StepList = Field(description="Steps run when the condition is truthy.")


class SwitchStep(CommonStep):
    """Run the first case whose `when` is truthy, else `else`."""

    switch: list[SwitchCase] = Field(min_length=1, description="Cases, evaluated in order.")
    else_: StepList | None = Field(None, alias="else", description="Steps run when no case matches.")


class ParallelStep(CommonStep):
    """Run branches concurrently; the value is an object keyed by branch name."""

    parallel: dict[str, StepList] = Field(
        min_length=1,
        description="Branches by name.",
        json_schema_extra={"propertyNames": {"pattern": IDENTIFIER}},
    )


class ForEachStep(CommonStep):
    """Run `steps` for each element of an array."""

    for_each: str = Field(description="jq producing an array.")
    steps: StepList = Field(description="Body run per item (`loop.index`, `loop.item`).")
    max_concurrency: int = Field(1, ge=1, description="Items run at once (default 1).")


class WhileStep(CommonStep):
    """Repeat `steps` while the condition holds (checked before each iteration)."""

    while_: str = Field(alias="while", description="jq condition.")
    steps: StepList = Field(description="Loop body.")
    max_iterations: int = Field(ge=1, description="Reaching it without the condition failing is an error.")


class UntilStep(CommonStep):
    """Repeat `steps` until the condition holds (checked after each iteration)."""

    until: str = Field(description="jq condition.")
    steps: StepList = Field(description="Loop body.")
    max_iterations: int = Field(ge=1, description="Reaching it without the condition holding is an error.")


class StopStep(StepBase):
    """End the current workflow file with the current value."""

    stop: Literal[True] = Field(description="Only `true`.")


class BreakStep(StepBase):
    """End the innermost `for_each`/`while`/`until`."""

    break_: Literal[True] = Field(alias="break", description="Only `true`.")


STEP_KINDS: dict[str, type[StepBase]] = {
    "prompt": PromptStep,
    "agent": AgentStep,
    "run": RunStep,
    "decide": DecideStep,
    "workflow": WorkflowStepModel,
    "jq": JqStep,
    "ask": AskStep,
    "write": WriteStep,
    "group": GroupStep,
    "switch": SwitchStep,
    "parallel": ParallelStep,
    "for_each": ForEachStep,
    "while": WhileStep,
    "until": UntilStep,
    "stop": StopStep,
    "break": BreakStep,
}
"""Step kinds in the order the error messages list them."""


class Workflow(Strict):
    """A lait workflow (version 2)."""

    model_config = ConfigDict(title="lait workflow (version 2)")

    version: Literal[2] | None = Field(None, description="Only 2 (omit it for the latest format).")
    name: str | None = Field(None, description="Shown in progress output and `lait workflow list`.")
    description: str | None = Field(None, description="What the workflow does.")
    inputs: dict[str, Any] | None = Field(
        None,
        description="Named parameters: a JSON Schema, a type name such as `string`, or null.",
        json_schema_extra={
            "propertyNames": {"pattern": IDENTIFIER},
            "additionalProperties": {"x-lait-ref": "inputDefinition"},
        },
    )
    input_schema: SchemaRef | None = Field(
        None, description="Schema of the initial value (a `schemas:` name or a schema)."
    )
    output: str | None = Field(
        None, description="jq computing the result from the last value, `$steps`, `$inputs`."
    )
    timeout: int | None = Field(
        None, ge=1, description="Wall-clock limit for one run of this file, in seconds."
    )
    default: WorkflowDefaults | None = Field(None, description="Defaults for the workflow's LLM steps.")
    models: ModelMap | None = Field(None, description="Model aliases; win over lait.config.yml aliases.")
    schemas: dict[str, SchemaSource] | None = Field(
        None, description="Named JSON Schemas.", json_schema_extra={"propertyNames": {"pattern": IDENTIFIER}}
    )
    agents: dict[str, InlineAgent] | None = Field(
        None,
        description="Inline agents for `agent:` steps.",
        json_schema_extra={"propertyNames": {"pattern": IDENTIFIER}},
    )
    steps: StepList = Field(description="The steps, run in order (at least one).")


def build_lint_validators() -> None:
    """Build now the validators that linting workflows, agents and skills uses (each is otherwise
    built on its model's first validation, ~1 ms apiece and 16 ms for :class:`Workflow`): a parallel
    lint calls this before it forks, so its workers inherit them instead of each building its own
    (docs/performance.md, "What keeps lait lint fast")."""
    models: list[type[BaseModel]] = [Workflow, *STEP_KINDS.values(), AgentFrontmatter, InlineAgent]
    models.append(SkillFrontmatter)
    for model in models:
        model.model_rebuild()
