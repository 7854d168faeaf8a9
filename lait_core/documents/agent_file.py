"""Agent Markdown files: YAML frontmatter (settings) + a body (the system prompt template)."""

from __future__ import annotations

from dataclasses import dataclass, field

from lait_core.documents.document_models import AgentFrontmatter, InlineAgent
from lait_core.documents.foreign_agent import claude_code_agent
from lait_core.documents.schema_files import shape_problem
from lait_core.documents.validate import Codes, validate_mapping
from lait_core.rules.agents.agent_invalid_value import CODE as AGENT_INVALID_VALUE
from lait_core.rules.agents.agent_system_key import CODE as CODE_SYSTEM_KEY
from lait_core.rules.agents.agent_unknown_key import CODE as AGENT_UNKNOWN_KEY
from lait_core.rules.agents.schema_name import CODE as CODE_SCHEMA_NAME
from lait_core.rules.agents.schema_source import CODE as CODE_SCHEMA_SOURCE
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.frontmatter import split_frontmatter
from lait_core.syntax.positions import Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SourceText, retarget

CODES = Codes(unknown=AGENT_UNKNOWN_KEY, invalid=AGENT_INVALID_VALUE)


@dataclass(slots=True)
class AgentDocument:
    path: str
    source: SourceText
    frontmatter: AgentFrontmatter | None = None
    front: MappingNode | None = None
    system: str = ""
    """The trimmed body: the system prompt template."""
    system_start: int = 0
    """File offset of the first character of ``system``."""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def system_range(self, start: int, end: int) -> Range:
        return self.source.range(self.system_start + start, self.system_start + end)

    @property
    def ok(self) -> bool:
        return self.frontmatter is not None


def check_agent_settings(node: MappingNode, out: list[Diagnostic], *, prefix: str = "") -> None:
    """Load-time rules shared by agent files and a workflow's inline agents (after model validation)."""
    name_key = node.key_node("schema_name")
    if name_key is not None and "output_schema" not in node:
        out.append(Diagnostic(CODE_SCHEMA_NAME, "'schema_name' requires an 'output_schema'", name_key.range))
    for key in ("input_schema", "output_schema"):
        value = node.get(key)
        if value is not None:
            problem = shape_problem(value, names_allowed=False)
            if problem:
                where = f"{prefix}.{key}" if prefix else key
                out.append(Diagnostic(CODE_SCHEMA_SOURCE, f"'{where}' {problem}", value.range))


def _system_key(node: MappingNode, out: list[Diagnostic]) -> None:
    key = node.key_node("system")
    if key is not None:
        out.append(
            Diagnostic(
                CODE_SYSTEM_KEY,
                "'system' is not a frontmatter field; an agent file's Markdown body is its system prompt",
                key.range,
            )
        )


def parse_agent(text: str, path: str = "") -> AgentDocument:
    source = SourceText(text, path)
    doc = AgentDocument(path, source)
    split = split_frontmatter(text)
    if isinstance(split, Diagnostic):
        doc.diagnostics.append(split)
        return doc
    body = split.body
    stripped = body.lstrip()
    doc.system = stripped.rstrip()
    doc.system_start = split.body_start + (len(body) - len(stripped))
    parsed = parse_yaml(split.yaml_text, path, source=SourceText(split.yaml_text, path))
    # positions of the blanked text equal file positions; point nodes at the real text for spans
    doc.diagnostics.extend(parsed.problems)
    if not parsed.ok:
        return doc
    root: Node | None = parsed.root
    retarget(root, source)
    if root is None or (isinstance(root, ScalarNode) and root.value is None):
        doc.frontmatter = AgentFrontmatter()
        return doc
    out = doc.diagnostics
    if isinstance(root, MappingNode):
        foreign = claude_code_agent(root, path)
        if foreign is not None:  # one diagnostic for the whole file instead of one per key
            out.append(foreign)
            doc.front = root
            return doc
        _system_key(root, out)
        data = {k: v for k, v in root.to_python().items() if k != "system"}
        model = validate_mapping(root, AgentFrontmatter, CODES, out, where="the agent frontmatter", data=data)
        check_agent_settings(root, out)
        doc.front = root
        if model is not None and not out:
            doc.frontmatter = model
    else:
        validate_mapping(root, AgentFrontmatter, CODES, out, where="the agent frontmatter")
    return doc


def validate_inline_agent(node: Node, name: str, out: list[Diagnostic], codes: Codes) -> InlineAgent | None:
    """A workflow's `agents.<name>` entry."""
    before = len(out)
    where = f"agents.{name}"
    if isinstance(node, MappingNode) and "system" not in node:
        out.append(
            Diagnostic(
                codes.invalid,
                f"agent '{name}': an inline agent requires a 'system:' prompt template",
                node.range,
            )
        )
        data = dict(node.to_python())
        data["system"] = ""
        validate_mapping(node, InlineAgent, codes, out, where=f"'{where}'", prefix=where, data=data)
        if isinstance(node, MappingNode):
            check_agent_settings(node, out, prefix=where)
        return None
    model = validate_mapping(node, InlineAgent, codes, out, where=f"'{where}'", prefix=where)
    if isinstance(node, MappingNode):
        check_agent_settings(node, out, prefix=where)
    return model if len(out) == before else None
