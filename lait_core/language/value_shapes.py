"""The shape of a value a template or jq program reads, as far as the workflow file tells: what
``steps.<id>`` (``$steps.<id>``) and ``inputs.<name>`` hold, down to nested fields, as JSON Schema.

Completion offers the fields after ``steps.classify.`` / ``$steps.classify.``, hover shows the field
under the cursor, and the ``outputType`` inlay hint labels a step's ``id:`` -- all from here, so they
agree. What is known of a step's value:

* ``prompt``/``agent`` with an ``output_schema`` (inline, a ``schemas:`` name or ``{file: ...}``; for
  an ``agent:`` step, also the agent's own: an inline agent's, or the frontmatter's of the agent file
  it names by path or by a lait.config.yml ``agents:`` name): that schema; without one, a string;
* ``workflow``: the child workflow's result (its ``output:`` over its last step's value), read the
  same way from the child file, by path or ``workflows:`` name;
* ``run`` and ``ask``: a string; ``decide``: an object of its question ids;
* ``jq``: what its program builds, when it is an object or array literal, a string, number,
  boolean or null literal, a path into ``.``, ``$steps.x`` or ``$inputs.x``, or a pipe of those;
* then the step's ``output:`` (read the same way, ``.`` being the kind's value) has the last word.

Inputs: their declaration (``x: string`` or a JSON Schema). Anything else is unknown (None).

Other files (agent files, child workflows, schema files) are read only when :class:`Surroundings`
say where the workflow is; each read is bounded (the reader's), a child that calls back into a file
being read is not followed, and nesting stops at ``MAX_FILES`` files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lait_core.documents import document_models as m
from lait_core.documents.document_models import Config
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

Schema = dict[str, Any]
_TYPE_NAMES = {"string", "integer", "number", "boolean", "object", "array", "null"}
_STRING = {"type": "string"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_VAR_PATH = re.compile(r"\$(steps|inputs)((?:\.[A-Za-z_][A-Za-z0-9_-]*|\[\"[^\"\\]*\"\])*)")
_DOT_PATH = re.compile(r"\.|(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_BUILTINS: dict[str, Schema] = {
    "length": {"type": "number"},
    "tostring": _STRING,
    "tojson": _STRING,
    "ascii_downcase": _STRING,
    "ascii_upcase": _STRING,
    "keys": {"type": "array", "items": _STRING},
    "not": {"type": "boolean"},
}
MAX_DEPTH = 16
MAX_FILES = 8
"""At most this many files deep (a workflow, its child, the child's agent file, ...)."""


@dataclass(frozen=True, slots=True)
class Surroundings:
    """Where a workflow file is, so the files it names can be read: its path, the merged config
    (``agents:`` and ``workflows:`` names) and a reader (an editor's unsaved text wins; the disk,
    bounded, when None)."""

    path: Path | None
    config: Config | None = None
    reader: Callable[[Path], str | None] | None = None
    seen: frozenset[str] = frozenset()
    """The files being read above this one (a child naming one of them is not followed)."""

    def read(self, path: Path) -> str | None:
        if len(self.seen) >= MAX_FILES or str(path) in self.seen or (self.path and path == self.path):
            return None
        if self.reader is not None:
            return self.reader(path)
        from lait_core.syntax.bounded_read import read_source

        return read_source(path).text

    def below(self, path: Path) -> Surroundings:
        """The surroundings of a file this one names."""
        here = frozenset({str(self.path)}) if self.path is not None else frozenset()
        return Surroundings(path, self.config, self.reader, self.seen | here)

    def relative(self, ref: str) -> Path | None:
        candidate = Path(ref).expanduser()
        if candidate.is_absolute():
            return candidate
        return self.path.parent / candidate if self.path is not None else None

    def registered(self, ref: str, section: str) -> Path | None:
        """The file a lait.config.yml ``agents:``/``workflows:`` name points at (relative to the
        project config's folder), None when the name is not registered."""
        names = getattr(self.config, section, None) if self.config is not None else None
        target = names.get(ref) if isinstance(names, dict) else None
        if not isinstance(target, str) or not target:
            return None
        path = Path(target).expanduser()
        if path.is_absolute() or self.path is None:
            return path
        from lait_core.documents.config_discovery import find_project_config

        config = find_project_config(self.path.parent)
        return (config.parent if config is not None else self.path.parent) / path

    def schema_file(self, ref: Any) -> Any:
        """The schema a ``{file: PATH}`` names (JSON, relative to this file), None when unreadable."""
        if not (isinstance(ref, dict) and set(ref) == {"file"} and isinstance(ref["file"], str)):
            return None
        path = self.relative(ref["file"])
        text = self.read(path) if path is not None else None
        if text is None:
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None


def input_schema(value: Any) -> Any:
    """A workflow input's declaration as a JSON Schema (``x: string`` is ``{type: string}``)."""
    if isinstance(value, str) and value in _TYPE_NAMES:
        return {"type": value}
    return value if isinstance(value, dict) else None


def field(schema: Any, name: str) -> Any:
    """The schema of field ``name`` of an object ``schema`` (None: not known)."""
    if not isinstance(schema, dict):
        return None
    props = schema.get("properties")
    if isinstance(props, dict) and name in props:
        return props[name] if props[name] is not None else {}
    return None


def fields(schema: Any) -> list[tuple[str, Any, bool]]:
    """(name, schema, required) of each field an object ``schema`` declares, in order."""
    if not isinstance(schema, dict):
        return []
    props = schema.get("properties")
    if not isinstance(props, dict):
        return []
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    return [(str(k), v, k in needed) for k, v in props.items()]


def walk(schema: Any, path: list[str]) -> Any:
    for name in path:
        schema = field(schema, name)
        if schema is None:
            return None
    return schema


class Shapes:
    """The known shapes of one workflow's step values and inputs (from its located tree)."""

    def __init__(self, root: Node | None, around: Surroundings | None = None) -> None:
        self.root = root if isinstance(root, MappingNode) else None
        self.around = around
        self.schemas: dict[str, Any] = {}
        self.inputs: dict[str, Any] = {}
        self.agents: dict[str, Any] = {}
        self._steps: dict[str, MappingNode] = {}
        self._known: dict[str, Any] = {}
        self._busy: set[str] = set()
        if self.root is None:
            return
        for section, target in (("schemas", self.schemas), ("inputs", self.inputs), ("agents", self.agents)):
            node = self.root.get(section)
            if isinstance(node, MappingNode):
                for name, _k, value in node.items():
                    target[str(name)] = value.to_python()
        self.inputs = {k: input_schema(v) for k, v in self.inputs.items()}
        from lait_core.language.completion_names import collect_steps

        for step in collect_steps(self.root):
            if step.id is not None and step.id not in self._steps:
                self._steps[step.id] = step.node

    # -- lookups --------------------------------------------------------------------------------
    def step(self, ident: str) -> Any:
        """The schema of ``steps.<ident>`` (None: not known)."""
        if ident in self._known:
            return self._known[ident]
        node = self._steps.get(ident)
        if node is None or ident in self._busy or len(self._busy) > MAX_DEPTH:
            return None
        self._busy.add(ident)
        try:
            found = self._step_value(node)
        finally:
            self._busy.discard(ident)
        self._known[ident] = found
        return found

    def at(self, root: str, path: list[str]) -> Any:
        """The schema of ``<root>.<path...>`` for root ``steps`` or ``inputs`` (path non-empty)."""
        if not path:
            return None
        head = (
            self.step(path[0]) if root == "steps" else self.inputs.get(path[0]) if root == "inputs" else None
        )
        return walk(head, path[1:])

    def final(self) -> Any:
        """The schema of the workflow's result: its ``output:`` over the last top-level step's value."""
        if self.root is None:
            return None
        steps = self.root.get("steps")
        last = steps.items[-1] if isinstance(steps, SequenceNode) and steps.items else None
        value = self._step_value(last) if isinstance(last, MappingNode) else None
        output = self.root.get("output")
        if isinstance(output, ScalarNode) and isinstance(output.value, str):
            value = self.infer(output.value, value)
        return value

    # -- a step's value -------------------------------------------------------------------------
    def _schema_ref(self, node: Node | None) -> Any:
        if isinstance(node, ScalarNode):
            return self.schemas.get(node.value) if isinstance(node.value, str) else None
        return self._schema_value(node.to_python() if node is not None else None)

    def _schema_value(self, value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"file"}:
            return self.around.schema_file(value) if self.around is not None else None
        return value if isinstance(value, dict) else None

    def _agent_file(self, ref: str) -> Any:
        """The ``output_schema`` of the agent file an ``agent:`` value names (None: not known)."""
        around = self.around
        if around is None:
            return None
        from lait_core.language.index import is_agent_path

        path = around.relative(ref) if is_agent_path(ref) else around.registered(ref, "agents")
        text = around.read(path) if path is not None else None
        if path is None or text is None:
            return None
        from lait_core.documents.agent_file import parse_agent

        front = parse_agent(text, str(path)).front
        node = front.get("output_schema") if isinstance(front, MappingNode) else None
        if node is None:
            return None
        value = node.to_python()
        if isinstance(value, dict) and set(value) == {"file"}:
            return around.below(path).schema_file(value)
        return value if isinstance(value, dict) else None

    def _child(self, ref: str) -> Any:
        """The result of the child workflow a ``workflow:`` value names (None: not known)."""
        around = self.around
        if around is None or not ref or "{{" in ref:
            return None
        from lait_core.language.index import is_workflow_path

        path = around.relative(ref) if is_workflow_path(ref) else around.registered(ref, "workflows")
        text = around.read(path) if path is not None else None
        if path is None or text is None:
            return None
        from lait_core.syntax.yaml.parse import parse_yaml

        parsed = parse_yaml(text)
        return Shapes(parsed.root if parsed.ok else None, around.below(path)).final()

    def _step_value(self, node: MappingNode) -> Any:
        kind = next((k for k in node if isinstance(k, str) and k in m.STEP_KINDS), None)
        value: Any = None
        if kind in ("prompt", "agent"):
            value = self._schema_ref(node.get("output_schema"))
            ref = node.get("agent")
            if (
                value is None
                and kind == "agent"
                and isinstance(ref, ScalarNode)
                and isinstance(ref.value, str)
            ):
                agent = self.agents.get(ref.value)
                if isinstance(agent, dict) and isinstance(agent.get("output_schema"), str):
                    value = self.schemas.get(agent["output_schema"])
                elif isinstance(agent, dict):
                    value = self._schema_value(agent.get("output_schema"))
                elif ref.value not in self.agents:
                    value = self._agent_file(ref.value)
            if value is None and kind == "prompt" and "output_schema" not in node:
                value = _STRING  # with a schema lait cannot read, the value is not known
        elif kind == "workflow":
            ref = node.get("workflow")
            if isinstance(ref, ScalarNode) and isinstance(ref.value, str):
                value = self._child(ref.value)
        elif kind in ("run", "ask"):
            value = _STRING
        elif kind == "decide":
            questions = node.get("decide")
            if isinstance(questions, MappingNode):
                value = {"type": "object", "properties": {str(q): {} for q in questions}}
        elif kind == "jq":
            program = node.get("jq")
            if isinstance(program, ScalarNode) and isinstance(program.value, str):
                value = self.infer(program.value, None)
        output = node.get("output")
        if isinstance(output, ScalarNode) and isinstance(output.value, str):
            value = self.infer(output.value, value)
        return value

    # -- jq -------------------------------------------------------------------------------------
    def infer(self, src: str, dot: Any, depth: int = 0) -> Any:
        """The schema of what the jq program ``src`` produces when ``.`` has schema ``dot``."""
        src = src.strip()
        if not src or depth > MAX_DEPTH:
            return None
        parts = _split(src, "|")
        if len(parts) > 1:
            for part in parts:
                dot = self.infer(part, dot, depth + 1)
            return dot
        if src[0] == "(" and _closing(src, 0) == len(src) - 1:
            return self.infer(src[1:-1], dot, depth + 1)
        if src[0] == "{" and _closing(src, 0) == len(src) - 1:
            return self._object(src[1:-1], dot, depth)
        if src[0] == "[" and _closing(src, 0) == len(src) - 1:
            inner = src[1:-1].strip()
            items = self.infer(inner, dot, depth + 1) if inner and len(_split(inner, ",")) == 1 else None
            return {"type": "array", **({"items": items} if items is not None else {})}
        if src[0] == '"' and _string_end(src, 0) == len(src):
            return _STRING
        if src in ("true", "false"):
            return {"type": "boolean"}
        if src == "null":
            return {"type": "null"}
        if _NUMBER.fullmatch(src):
            return {"type": "number"}
        if src in _BUILTINS:
            return _BUILTINS[src]
        var = _VAR_PATH.fullmatch(src)
        if var:
            path = re.findall(r"\.([A-Za-z_][A-Za-z0-9_-]*)|\[\"([^\"\\]*)\"\]", var.group(2))
            names = [a or b for a, b in path]
            return self.at(var.group(1), names) if names else None
        if _DOT_PATH.fullmatch(src):
            return dot if src == "." else walk(dot, src[1:].split("."))
        return None

    def _object(self, body: str, dot: Any, depth: int) -> Schema:
        props: dict[str, Any] = {}
        for entry in _split(body, ","):
            entry = entry.strip()
            if not entry:
                continue
            pieces = _split(entry, ":")
            key_src = pieces[0].strip()
            value_src = ":".join(pieces[1:]) if len(pieces) > 1 else None
            if key_src.startswith('"') and _string_end(key_src, 0) == len(key_src) and "\\(" not in key_src:
                key = key_src[1:-1]
            elif key_src.startswith("$") and _IDENT.fullmatch(key_src[1:]):
                key = key_src[1:]
                value_src = value_src if value_src is not None else key_src
            elif _IDENT.fullmatch(key_src):
                key = key_src
            else:
                continue  # a computed key: unknown
            schema = self.infer(value_src if value_src is not None else f".{key}", dot, depth + 1)
            props[key] = schema if schema is not None else {}
        return {"type": "object", "properties": props, "required": list(props)}


def _string_end(src: str, i: int) -> int:
    from lait_core.language.jq_objects import skip_string

    return skip_string(src, i)


def _closing(src: str, i: int) -> int:
    """The index of the bracket closing the one at ``i`` (-1: none)."""
    depth = 0
    j = i
    while j < len(src):
        c = src[j]
        if c == '"':
            j = _string_end(src, j)
            continue
        if c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1


def _split(src: str, sep: str) -> list[str]:
    """``src`` cut at each ``sep`` outside strings and brackets (``|=``, ``//`` and ``::`` are not cuts)."""
    out: list[str] = []
    depth = 0
    start = j = 0
    while j < len(src):
        c = src[j]
        if c == '"':
            j = _string_end(src, j)
            continue
        if c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
        elif c == sep and depth == 0:
            after = src[j + 1 : j + 2]
            before = src[j - 1 : j] if j else ""
            if not (sep == "|" and after == "=") and not (sep == ":" and ":" in (after, before)):
                out.append(src[start:j])
                start = j + 1
        j += 1
    out.append(src[start:])
    return out


def type_label(schema: Any, depth: int = 0) -> str | None:
    """A short type of a JSON Schema: ``string``, ``integer[]``, ``{a, b?}``, ``"x" | "y"``."""
    if schema is True:
        return "any"
    if not isinstance(schema, dict):
        return None
    if "enum" in schema and isinstance(schema["enum"], list) and len(schema["enum"]) <= 4:
        return " | ".join(repr(v) if not isinstance(v, str) else f'"{v}"' for v in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array" or (kind is None and "items" in schema):
        inner = type_label(schema.get("items"), depth + 1) or "any"
        return f"({inner})[]" if " " in inner else f"{inner}[]"
    if kind == "object" or (kind is None and "properties" in schema):
        props = schema.get("properties")
        if not isinstance(props, dict) or not props:
            return "object"
        if depth > 0:
            return "{…}"
        required = set(schema.get("required") or [])
        return "{" + ", ".join(k if k in required else f"{k}?" for k in props) + "}"
    return str(kind) if isinstance(kind, str) else None


def describe(schema: Any) -> str:
    """A short type (``string``, ``{kind, summary}``, ``"bug" | "feature"``), or ``any``."""
    return type_label(schema) or "any"


def field_markdown(name: str, schema: object, required: bool, owner: str, where: str = "") -> str:
    """A field's documentation: its type, whether it is always there, its description."""
    inside = f" (in `{where}`)" if where else ""
    lines = [f"Field `{name}` of {owner}'s value{inside}: `{describe(schema)}`."]
    if isinstance(schema, dict) and isinstance(schema.get("description"), str):
        lines.append(schema["description"])
    lines.append("Always present." if required else "Optional: may be missing.")
    return "\n\n".join(lines)


__all__ = ["Shapes", "describe", "field", "field_markdown", "fields", "input_schema", "type_label", "walk"]
