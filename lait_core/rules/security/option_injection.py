"""LAIT601 option-injection: a model-chosen value is a whole argv item of a shell tool, where a
value starting with ``-`` is read as an option."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.rules.security.shell_interpolation import is_shell, script_index
from lait_core.rules.security.templates import parsed
from lait_core.syntax.diagnostics import Diagnostic, Fix, Severity
from lait_core.syntax.positions import Range
from lait_core.syntax.template import Output, PathExpr, PathKind
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

CODE = "LAIT601"
_SAFE_TYPES = frozenset({"integer", "number", "boolean", "null"})

RULE = rule(
    CODE,
    "option-injection",
    Severity.WARNING,
    "A shell tool passes a model-chosen argument as a whole argv item, where it could be an option.",
    "A `tools:` command item that is exactly `{{ input.x }}` receives whatever the model sends; "
    "`--version`, `-rf` or `--output=/etc/x` is then read by the program as an option, not as the "
    "file or pattern the tool meant. Put `'--'` before the first such item (the end of options for "
    "almost every program; the quick fix inserts it), or restrict the parameter with `enum` or a "
    "`pattern` such as `^[^-]` (lait enforces both before the command runs). Parameters whose "
    "`type` is only `integer`/`number`/`boolean` are not reported, nor a shell script's positional "
    "parameters (`[sh, -c, 'grep -- \"$1\" .', sh, '{{ input.x }}']`).",
    Example(
        "tools:\n  grep:\n    command: [rg, '{{ input.pattern }}', .]\n"
        "    parameters: {type: object, properties: {pattern: {type: string}}}\n",
        filename="lait.config.yml",
    ),
    Example(
        "tools:\n  grep:\n    command: [rg, '--', '{{ input.pattern }}', .]\n"
        "    parameters: {type: object, properties: {pattern: {type: string}}}\n",
        filename="lait.config.yml",
    ),
)


def _argument(item: Node) -> str | None:
    """The parameter name when the item is exactly ``{{ input.NAME }}`` (nothing around it)."""
    if not isinstance(item, ScalarNode) or not isinstance(item.value, str):
        return None
    template = parsed(item.value)
    if template is None or len(template.nodes) != 1:
        return None
    node = template.nodes[0]
    if not isinstance(node, Output) or not isinstance(node.expr, PathExpr):
        return None
    expr = node.expr
    if expr.kind is not PathKind.CONTEXT or len(expr.parts) < 2 or expr.parts[0] != "input":
        return None
    return expr.parts[1]


def _restricted(parameters: Node | None, name: str) -> bool:
    """Whether the schema of parameter ``name`` keeps it from starting with ``-``."""
    if not isinstance(parameters, MappingNode):
        return False
    properties = parameters.get("properties")
    schema = properties.get(name) if isinstance(properties, MappingNode) else None
    if not isinstance(schema, MappingNode):
        return False
    if "enum" in schema or "const" in schema or "pattern" in schema:
        return True
    kind = schema.get("type")
    value = kind.to_python() if kind is not None else None
    types = {value} if isinstance(value, str) else set(value) if isinstance(value, list) else set()
    return bool(types) and all(isinstance(t, str) for t in types) and types <= _SAFE_TYPES


def _insert_fix(command: SequenceNode, item: Node) -> Fix:
    """Insert ``'--'`` as its own item right before ``item`` (flow or block sequence)."""
    start = item.range.start
    at = Range(start, start)
    title = "Insert '--' before the model's argument"
    text = item.document.text if item.document is not None else ""
    dash = item.start - 1
    while dash >= 0 and text[dash] in " \t":
        dash -= 1
    if command.flow or dash < 0 or text[dash] != "-":
        return Fix(title, at, "'--', ")
    column = start.character - (item.start - dash)
    return Fix(title, at, "'--'\n" + " " * column + text[dash : item.start])


def check(root: MappingNode, out: list[Diagnostic]) -> None:
    tools = root.get("tools")
    if not isinstance(tools, MappingNode):
        return
    for name, _k, tool in tools.items():
        if not isinstance(tool, MappingNode):
            continue
        command = tool.get("command")
        if not isinstance(command, SequenceNode) or not command.items:
            continue
        items = command.items[1:]
        if is_shell(command.items[0]):  # after the script: the script's positional parameters
            script = script_index(items)
            items = items if script is None else items[: script + 1]
        for item in items:
            if isinstance(item, ScalarNode) and item.to_python() == "--":
                break
            argument = _argument(item)
            if argument is None or _restricted(tool.get("parameters"), argument):
                continue
            out.append(
                Diagnostic(
                    CODE,
                    f"tool \"{name}\" passes the model's '{argument}' as a whole argument: a value such as"
                    " '--version' would be read as an option; put '--' before it, or give the parameter"
                    " an 'enum' or a 'pattern' such as '^[^-]'",
                    item.range,
                    Severity.WARNING,
                    fixes=(_insert_fix(command, item),),
                )
            )
