"""Custom shell tools (``tools:`` in lait.config.yml), offered as ``tool__<name>``.

A call (docs/config.md):

1. parse the arguments -- blank or ``null`` is ``{}``; invalid JSON or a non-object aborts (hard);
2. check them against ``parameters`` with lait's partial validator (``type``/``enum``/``required``
   through ``properties``/``items``; lait also enforces ``pattern`` of top-level string
   properties); a failure is the result ``tool arguments failed validation: ...`` and nothing runs;
3. render each argv element as a template over ``{input: <args>, steps: {}, vars: {}}`` (strict,
   no escaping, ``json`` helper; a bare ``{{ input }}`` is rejected);
4. expand ``${VAR}`` in ``env`` values and ``cwd``; a non-empty ``env`` is the child's *whole*
   environment;
5. run it without a shell, stdin empty and closed, stdout/stderr capped at 16 MiB each (exceeding
   one kills the process group), with the timeout (default 30 s);
6. exit 0 gives stdout (UTF-8) minus exactly one trailing line ending, stderr dropped; anything
   else gives ``tool command failed: ...``. Cancellation kills the group and propagates.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lait_core.documents.document_models import ShellToolDefinition
from lait_core.documents.json_check import check_value
from lait_core.engine.llm.chat_types import JsonObject, ToolNameError, argv_text
from lait_core.engine.llm.model_resolution import strip_one_line_ending
from lait_core.engine.processes.containment import ContainmentError, contain
from lait_core.engine.processes.spawn import (
    OUTPUT_CAP,
    ProcessError,
    ProcessTimeout,
    run_process,
)
from lait_core.engine.tools.base import (
    DEFAULT_PARAMETERS,
    CallContext,
    Tool,
    ToolKind,
    ToolResult,
    ToolSource,
    parse_arguments,
)
from lait_core.engine.tools.naming import SHELL_PREFIX, qualify
from lait_core.syntax.template import (
    Output,
    PathExpr,
    PathKind,
    Template,
    TemplateRenderError,
    TemplateSyntaxError,
    parse,
    render,
    walk,
)

VALIDATION_FAILED = "tool arguments failed validation: "
COMMAND_FAILED = "tool command failed: "


class _RenderFailure(Exception):
    pass


def pattern_problems(args: JsonObject, parameters: Mapping[str, Any]) -> list[str]:
    """``pattern`` of the top-level string properties, enforced (the original's validator
    ignores it): a shell tool's ``pattern`` is what keeps a model-chosen argument from being
    read as an option (``^[^-]``), so it must hold, not only be shown to the model. Searched as
    JSON Schema does (unanchored), with Python's ``re``."""
    import re

    properties = parameters.get("properties")
    if not isinstance(properties, Mapping):
        return []
    problems = []
    for name, schema in properties.items():
        value = args.get(name)
        pattern = schema.get("pattern") if isinstance(schema, Mapping) else None
        if not isinstance(value, str) or not isinstance(pattern, str):
            continue
        try:
            matched = re.search(pattern, value) is not None
        except re.error as exc:
            problems.append(
                f"arguments.{name}: the schema's pattern {pattern!r} is not a valid regular expression ({exc})"
            )
            continue
        if not matched:
            problems.append(
                f"arguments.{name}: {json.dumps(value)[:200]} does not match the pattern {pattern!r}"
            )
    return problems


def _bare_input(template: Template) -> bool:
    for node in walk(template.nodes):
        if isinstance(node, Output):
            expr = node.expr
            if (
                isinstance(expr, PathExpr)
                and expr.kind is PathKind.CONTEXT
                and expr.depth == 0
                and expr.parts == ("input",)
            ):
                return True
    return False


def render_argv(command: Sequence[str], arguments: JsonObject) -> list[str]:
    """Render each argv element; raises :class:`_RenderFailure` with the reason."""
    context: dict[str, Any] = {"input": arguments, "steps": {}, "vars": {}}
    argv: list[str] = []
    for position, element in enumerate(command):
        try:
            template = parse(element)
            if _bare_input(template):
                raise _RenderFailure(
                    f"command[{position}] uses a bare '{{{{ input }}}}', which is the whole arguments object; "
                    "use a field such as '{{ input.name }}' or '{{ json input }}'"
                )
            argv.append(render(template, context))
        except (TemplateSyntaxError, TemplateRenderError) as exc:
            raise _RenderFailure(f"command[{position}] ({element!r}): {exc.message}") from None
    return argv


class ShellToolSource(ToolSource):
    """The shell tools a request references, by their ``tools:`` keys, in list order."""

    kind = ToolKind.SHELL

    def __init__(
        self,
        names: Sequence[str],
        definitions: Mapping[str, ShellToolDefinition],
        *,
        environ: Mapping[str, str] | None = None,
        output_limit: int = OUTPUT_CAP,
        on_spawn: Callable[[int], None] | None = None,
    ) -> None:
        self.names = list(names)
        self.definitions = definitions
        self.environ = environ
        self.output_limit = output_limit
        self.on_spawn = on_spawn

    async def list_tools(self) -> list[Tool]:
        tools: list[Tool] = []
        for name in self.names:
            definition = self.definitions.get(name)
            if definition is None:
                raise ToolNameError(f"unknown tool '{name}'; define it under 'tools:' in lait.config.yml")
            if not definition.command:
                raise ToolNameError(f"'tools.{name}.command' must not be empty")
            parameters = definition.parameters
            if parameters is None:
                parameters = dict(DEFAULT_PARAMETERS)
            elif not isinstance(parameters, dict):
                raise ToolNameError(f"'tools.{name}.parameters' must be a JSON object (a JSON Schema)")
            tools.append(
                Tool(qualify(SHELL_PREFIX, name), name, definition.description, parameters, self.kind, self)
            )
        return tools

    def _definition(self, tool: Tool) -> ShellToolDefinition:
        return self.definitions[tool.name]

    def preview(self, tool: Tool, arguments: str) -> tuple[str, ...] | None:
        try:
            args = parse_arguments(arguments, tool.qualified_name)
            return tuple(render_argv(self._definition(tool).command, args))
        except Exception:
            return None

    async def call(self, tool: Tool, arguments: str, ctx: CallContext) -> ToolResult:
        definition = self._definition(tool)
        args = parse_arguments(arguments, tool.qualified_name)
        problems = check_value(args, tool.parameters, "arguments") or pattern_problems(args, tool.parameters)
        if problems:
            return ToolResult(VALIDATION_FAILED + "; ".join(problems), is_error=True)
        try:
            argv = render_argv(definition.command, args)
            contained = contain(definition.env, definition.cwd, self.environ, f"tools.{tool.name}.")
        except _RenderFailure as exc:
            return ToolResult(COMMAND_FAILED + str(exc), is_error=True)
        except ContainmentError as exc:
            return ToolResult(COMMAND_FAILED + exc.message, is_error=True)
        if contained.program_missing(argv):
            return ToolResult(
                f"{COMMAND_FAILED}failed to spawn '{argv[0]}': No such file or directory", is_error=True
            )
        try:
            done = await run_process(
                argv,
                env=contained.env,
                cwd=contained.cwd,
                stdin=b"",
                timeout=float(definition.timeout),
                limit=self.output_limit,
                on_spawn=self.on_spawn,
            )
        except ProcessTimeout:
            return ToolResult(
                f"{COMMAND_FAILED}command timed out after {definition.timeout}s: {argv_text(argv)}",
                is_error=True,
            )
        except ProcessError as exc:
            return ToolResult(COMMAND_FAILED + str(exc), is_error=True)
        if done.returncode != 0:
            stderr = done.stderr.decode("utf-8", "replace").strip()
            message = f"{COMMAND_FAILED}command '{argv[0]}' exited with {done.status}"
            return ToolResult(f"{message}: {stderr}" if stderr else message, is_error=True)
        try:
            stdout = done.stdout.decode("utf-8")
        except UnicodeDecodeError:
            return ToolResult(
                f"{COMMAND_FAILED}command '{argv[0]}' wrote output that is not UTF-8; binary output is not supported",
                is_error=True,
            )
        return ToolResult(strip_one_line_ending(stdout))
