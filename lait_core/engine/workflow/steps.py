"""The actions of the leaf step kinds: `jq`, `run`, `write`, `ask`, `stop`, `break`, `decide`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lait_core.documents import document_models as m
from lait_core.engine.processes.confine import check_inside, confined_root
from lait_core.engine.processes.containment import ContainmentError, contain
from lait_core.engine.processes.spawn import run_process
from lait_core.engine.run.interaction import Question
from lait_core.engine.workflow.evaluate import jq_value, render_template, text_form
from lait_core.engine.workflow.step_runner import StepCall, action
from lait_core.engine.workflow.workflow_errors import DecideNotSupported, WorkflowError

STDERR_SHOWN = 4000
"""Characters of a failed command's stderr quoted in the error."""


@action("jq")
async def jq_step(call: StepCall, value: Any) -> Any:
    model: m.JqStep = call.model
    return await jq_value(call.frame, model.jq, value, "jq")


@action("stop")
@action("break")
async def pass_through(call: StepCall, value: Any) -> Any:
    return value


@action("decide")
async def decide_step(call: StepCall, value: Any) -> Any:
    raise DecideNotSupported()


def strip_one_newline(text: str) -> str:
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith("\n") else text


@action("run")
async def run_step(call: StepCall, value: Any) -> Any:
    model: m.RunStep = call.model
    frame = call.frame
    argv = [render_template(frame, item, value, f"run[{i}]") for i, item in enumerate(model.run)]
    if not argv[0].strip():
        raise WorkflowError("'run' must start with the program to execute (argv[0] rendered empty)")
    session = frame.run.session
    # The same containment as a shell tool (seed 001): a non-empty `env:` is an allowlist.
    try:
        contained = contain(model.env, model.cwd, session.environ)
    except ContainmentError as exc:
        raise WorkflowError(exc.message) from None
    cwd = contained.cwd
    if cwd is not None and not Path(cwd).is_dir():
        raise WorkflowError(f"'cwd' {cwd!r} is not a directory")
    if contained.program_missing(argv):
        raise WorkflowError(
            f"command '{argv[0]}' not found on the PATH of the step's env allowlist "
            "(add PATH: \"${PATH}\" to 'env')"
        )
    done = await run_process(
        argv,
        env=contained.env,
        cwd=cwd,
        stdin=text_form(value).encode("utf-8"),
        on_spawn=session.on_spawn,
    )
    if not done.ok:
        stderr = done.stderr.decode("utf-8", "replace").strip()
        if len(stderr) > STDERR_SHOWN:
            stderr = stderr[:STDERR_SHOWN] + "..."
        detail = f"; stderr: {stderr}" if stderr else ""
        raise WorkflowError(f"command '{argv[0]}' failed ({done.status}){detail}")
    try:
        out = done.stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WorkflowError(
            f"command '{argv[0]}' wrote output that is not UTF-8 (byte {exc.start})"
        ) from None
    return strip_one_newline(out)


@action("write")
async def write_step(call: StepCall, value: Any) -> Any:
    model: m.WriteStep = call.model
    target = render_template(call.frame, model.write, value, "write")
    if not target.strip():
        raise WorkflowError("'write' rendered an empty path")
    session = call.frame.run.session
    check_inside(confined_root(session.config, session.config_dir), target, "the 'write' path")
    try:
        with Path(target).open("w", encoding="utf-8") as fh:
            fh.write(text_form(value))
    except OSError as exc:
        raise WorkflowError(f"cannot write '{target}': {exc.strerror or exc}") from None
    return value


@action("ask")
async def ask_step(call: StepCall, value: Any) -> Any:
    model: m.AskStep = call.model
    text = render_template(call.frame, model.ask, value, "ask")
    choices = tuple(model.choices) if model.choices else None
    question = Question(text, choices, model.default, model.multiline)
    answer = await call.frame.run.session.interaction.ask(question)
    if choices is not None and answer not in choices:
        raise WorkflowError(f"the answer {answer!r} is not one of the choices: {', '.join(choices)}")
    return answer
