"""Agent-content checks (LAIT401 body syntax, LAIT317/LAIT318 schemas, capabilities) for agent files
and a workflow's inline agents."""

from __future__ import annotations

from pathlib import Path

from lait_core.documents.agent_file import AgentDocument
from lait_core.documents.document_models import Config
from lait_core.documents.schema_files import (
    file_reference,
    load_schema_file,
    unknown_type_nodes,
    unknown_types,
)
from lait_core.lint.checks.capabilities import check_capabilities
from lait_core.rules.capabilities.names_not_checked import SkipTracker
from lait_core.rules.templates.template_syntax import CODE as TEMPLATE_SYNTAX
from lait_core.rules.workflows.schema_file import CODE as SCHEMA_FILE
from lait_core.rules.workflows.unknown_schema_type import CODE as UNKNOWN_SCHEMA_TYPE
from lait_core.rules.workflows.unknown_schema_type import unknown_type_message
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode, Node


def check_schema_source(node: Node, ctx: str, base: Path, out: list[Diagnostic]) -> None:
    """Load a `{file}` schema (LAIT318) and warn on unknown type names (LAIT317)."""
    ref = file_reference(node)
    if ref is not None:
        value = ref.to_python()
        if not isinstance(value, str) or not value.strip():
            return
        loaded = load_schema_file(base, value)
        if loaded.error is not None:
            out.append(Diagnostic(SCHEMA_FILE, f"{ctx} is invalid: {loaded.error}", ref.range))
            return
        for name in unknown_types(loaded.value):
            out.append(
                Diagnostic(UNKNOWN_SCHEMA_TYPE, unknown_type_message(ctx, name), ref.range, Severity.WARNING)
            )
        return
    for name, at in unknown_type_nodes(node):
        out.append(
            Diagnostic(UNKNOWN_SCHEMA_TYPE, unknown_type_message(ctx, name), at.range, Severity.WARNING)
        )


def check_agent_content(
    front: MappingNode | None,
    ctx: str,
    base: Path,
    config: Config | None,
    out: list[Diagnostic],
    skip: SkipTracker,
) -> None:
    """Schemas and capability names of an agent's settings."""
    if front is None:
        return
    for key in ("input_schema", "output_schema"):
        node = front.get(key)
        if node is not None:
            check_schema_source(node, f"{ctx}'s '{key}'", base, out)
    check_capabilities(front, ctx, config, out, skip)


def check_agent_body(doc: AgentDocument, out: list[Diagnostic]) -> None:
    """LAIT401 for the system prompt template in the Markdown body."""
    from lait_core.syntax.template import check_syntax

    error = check_syntax(doc.system)
    if error is not None:
        out.append(
            Diagnostic(
                TEMPLATE_SYNTAX,
                f"the agent has an invalid system prompt template: {error.message}",
                doc.system_range(error.start, error.end),
            )
        )
