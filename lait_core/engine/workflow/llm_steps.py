"""The model-calling step kinds, `prompt` and `agent` (docs/workflows.md): settings from the step,
(the agent definition,) the workflow's `default:` merged over callers, then lait.config.yml."""

from __future__ import annotations

from typing import Any

from lait_core.documents import document_models as m
from lait_core.engine.llm.chat_types import JsonObject
from lait_core.engine.llm.conversation import DEFAULT_SCHEMA_NAME, converse
from lait_core.engine.llm.llm_settings import resolve_llm_settings
from lait_core.engine.workflow.evaluate import render_template
from lait_core.engine.workflow.schema_refs import resolve_schema, validate
from lait_core.engine.workflow.step_runner import StepCall, action
from lait_core.engine.workflow.workflow_errors import WorkflowError

PROMPT_NOTE = "set 'model' on the step, the workflow's default.model, or default.model in lait.config.yml"
AGENT_NOTE = (
    "set 'model' on the step, its agent definition, the workflow's default.model, or default.model in"
    " lait.config.yml"
)


def _attachments(call: StepCall, value: Any, templates: list[str] | None, key: str) -> list[str]:
    from lait_core.engine.processes.confine import check_inside, confined_root

    session = call.frame.run.session
    root = confined_root(session.config, session.config_dir)
    paths = [render_template(call.frame, t, value, f"{key}[{i}]") for i, t in enumerate(templates or [])]
    for i, path in enumerate(paths):
        if key == "files" or not path.startswith(("http://", "https://")):
            check_inside(root, path, f"'{key}[{i}]'")
    return paths


def _user(text: str, files: list[str], images: list[str]) -> str | list[JsonObject]:
    if not files and not images:
        return text
    from lait_core.engine.llm.attachments import AttachmentError, user_content

    try:
        return user_content(text, files, images)
    except AttachmentError as exc:
        raise WorkflowError(str(exc)) from None


@action("prompt")
async def prompt_step(call: StepCall, value: Any) -> Any:
    model: m.PromptStep = call.model
    frame = call.frame
    scope = frame.scope
    session = frame.run.session
    input_schema = resolve_schema(scope, model.input_schema, "input_schema")
    if input_schema is not None:
        validate(value, input_schema, "input", "the input does not match the step's 'input_schema'")
    settings = resolve_llm_settings(
        f"step '{call.label}'",
        [model, scope.defaults],
        session.config,
        workflow_models=scope.models,
        note=PROMPT_NOTE,
    )
    system_template = model.system if model.system is not None else scope.defaults.system
    system = render_template(frame, system_template, value, "system") if system_template is not None else None
    text = render_template(frame, model.prompt, value, "prompt")
    user = _user(
        text,
        _attachments(call, value, model.files, "files"),
        _attachments(call, value, model.images, "images"),
    )
    output_schema = resolve_schema(scope, model.output_schema, "output_schema")
    if output_schema is True:
        output_schema = {}
    schema_name = model.schema_name
    if schema_name is None:
        ref = model.output_schema
        schema_name = ref if isinstance(ref, str) else DEFAULT_SCHEMA_NAME
    reply = await converse(
        session, settings, system=system, user=user, output_schema=output_schema, schema_name=schema_name
    )
    frame.run.add_usage(reply.usage)
    return reply.value


@action("agent")
async def agent_step(call: StepCall, value: Any) -> Any:
    from lait_core.engine.processes.confine import confined_root
    from lait_core.engine.run.agent_run import load_agent, run_agent

    model: m.AgentStep = call.model
    frame = call.frame
    scope = frame.scope
    session = frame.run.session
    agent = load_agent(
        model.agent,
        config=session.config,
        config_dir=session.config_dir,
        base_dir=scope.base_dir,
        inline=scope.doc.inline_agents,
        cache=session.cache,
        confine=confined_root(session.config, session.config_dir),
    )
    reply = await run_agent(
        session,
        agent,
        value,
        layers=[model],
        defaults=[scope.defaults],
        variables={"steps": frame.steps, "inputs": scope.inputs, "loop": frame.loop},
        files=_attachments(call, value, model.files, "files"),
        images=_attachments(call, value, model.images, "images"),
        workflow_models=scope.models,
        label=f"step '{call.label}'",
        note=AGENT_NOTE,
    )
    frame.run.add_usage(reply.usage)
    return reply.value
