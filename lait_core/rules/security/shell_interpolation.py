"""LAIT604 shell-interpolation: a value from the model (or from the environment) is spliced into the
code of ``sh -c``, where quotes, ``;`` or ``$( )`` in it run as commands."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lait_core.rules.registry import Example, rule
from lait_core.rules.security.templates import model_paths, parsed
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

CODE = "LAIT604"
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish"})
_COMMAND_FLAG = re.compile(r"-[A-Za-z]*c[A-Za-z]*")
_PLACEHOLDER = re.compile(r"\$\{[A-Za-z0-9_]*\}")

RULE = rule(
    CODE,
    "shell-interpolation",
    Severity.WARNING,
    "A model's value (or an expanded `${VAR}`) is spliced into the code of `sh -c`.",
    "lait runs shell tools and `run:` steps without a shell, so a model's argument stays one argument "
    "whatever it contains. Written into the script of `sh -c` (`bash -lc` ...), it becomes shell code: "
    "an argument `x'; rm -rf ~; '` runs. Pass the value as a positional argument after the script and "
    "quote it there: `[sh, -c, 'grep -- \"$1\" notes/*.md', sh, '{{ input.pattern }}']`. Checked: shell "
    "tools (`{{ input.* }}`), workflow `run:` steps (`{{ input }}`, `{{ steps.* }}`, `{{ vars.* }}`, "
    "`{{ loop.item }}`, values a model may have produced; `{{ inputs.* }}` comes from the person) and "
    'MCP servers started through a shell (a `${VAR}` expanded into the script: refer to `"$VAR"` '
    "instead, the shell reads it from the environment the server inherits).",
    Example(
        "tools:\n  find:\n    command: [sh, -c, 'grep -r \"{{ input.pattern }}\" notes/']\n"
        "    parameters: {type: object, properties: {pattern: {type: string}}}\n",
        filename="lait.config.yml",
    ),
    Example(
        "tools:\n  find:\n    command: [sh, -c, 'grep -r -- \"$1\" notes/', sh, '{{ input.pattern }}']\n"
        "    parameters: {type: object, properties: {pattern: {type: string}}}\n",
        filename="lait.config.yml",
    ),
)


def is_shell(node: Node | None) -> bool:
    """Whether an argv's program is a shell (by its file name)."""
    value = node.to_python() if node is not None else None
    return isinstance(value, str) and value.replace("\\", "/").rsplit("/", 1)[-1] in SHELLS


def script_index(args: list[Node]) -> int | None:
    """Among a shell's arguments: the index of the script (the item after the first ``-c``-like
    flag, or the first operand, a script file); every item after it is a positional parameter."""
    for i, arg in enumerate(args):
        value = arg.to_python()
        if not isinstance(value, str) or not value.startswith("-"):
            return i
        if _COMMAND_FLAG.fullmatch(value):
            return i + 1 if i + 1 < len(args) else None
    return None


def _script(args: list[Node]) -> ScalarNode | None:
    """The script of ``-c`` among a shell's arguments (None for a script file)."""
    i = script_index(args)
    if i is None or i == 0 or not _COMMAND_FLAG.fullmatch(str(args[i - 1].to_python())):
        return None
    script = args[i]
    return script if isinstance(script, ScalarNode) and isinstance(script.value, str) else None


def _model_spans(script: ScalarNode, roots: frozenset[str]) -> Iterator[tuple[str, int, int]]:
    template = parsed(script.value)
    if template is None:
        return
    for expr in model_paths(template):
        if expr.parts[0] in roots:
            yield expr.raw, expr.start, expr.end


def _argv_findings(argv: Node | None, owner: str, roots: frozenset[str], out: list[Diagnostic]) -> None:
    if not isinstance(argv, SequenceNode) or not argv.items or not is_shell(argv.items[0]):
        return
    script = _script(argv.items[1:])
    if script is None:
        return
    for raw, start, end in _model_spans(script, roots):
        out.append(
            Diagnostic(
                CODE,
                f"{owner} writes '{raw}' into the code of a shell script, where the model's text runs as shell"
                " code; pass it as an argument after the script ('sh', '{{ ... }}') and use \"$1\" in the"
                " script",
                script.span(start, end),
                Severity.WARNING,
            )
        )


def check_config(root: MappingNode, out: list[Diagnostic]) -> None:
    tools = root.get("tools")
    if isinstance(tools, MappingNode):
        for name, _k, tool in tools.items():
            if isinstance(tool, MappingNode):
                _argv_findings(tool.get("command"), f'tool "{name}"', frozenset({"input"}), out)
    servers = root.get("mcp_servers")
    if isinstance(servers, MappingNode):
        for name, _k, server in servers.items():
            if not isinstance(server, MappingNode) or not is_shell(server.get("command")):
                continue
            args = server.get("args")
            script = _script(args.items) if isinstance(args, SequenceNode) else None
            if script is None:
                continue
            for match in _PLACEHOLDER.finditer(script.value):
                var = match.group()[2:-1]
                out.append(
                    Diagnostic(
                        CODE,
                        f"MCP server '{name}' has lait expand '{match.group()}' into the code of a shell"
                        " script, where quotes or ';' in the value run as shell code; write \"$" + var + '"'
                        " instead: the shell reads the variable from the environment the server inherits",
                        script.span(match.start(), match.end()),
                        Severity.WARNING,
                    )
                )


def check_run_step(argv: Node | None, label: str, out: list[Diagnostic]) -> None:
    _argv_findings(argv, label, frozenset({"input", "steps", "vars", "loop"}), out)
