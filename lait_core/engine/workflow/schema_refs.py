"""Schema references of a workflow file (docs/workflows.md): a ``schemas:`` name, ``{file: path}`` relative to
the workflow file's directory, or an inline body; and the partial validator's messages as errors."""

from __future__ import annotations

from typing import Any

from lait_core.documents.json_check import check_value
from lait_core.documents.schema_files import load_schema_file
from lait_core.engine.workflow.scope import FileScope
from lait_core.engine.workflow.workflow_errors import WorkflowError


def _source(scope: FileScope, body: Any, what: str) -> Any:
    if isinstance(body, dict) and set(body) == {"file"} and isinstance(body["file"], str):
        loaded = load_schema_file(scope.base_dir, body["file"])
        if loaded.error is not None:
            raise WorkflowError(f"{what}: {loaded.error}")
        return loaded.value
    return body


def _schemas_table(scope: FileScope) -> dict[str, Any]:
    """The file's `schemas:` entries (the document keeps them as located nodes, not in its model)."""
    root = scope.doc.root
    node = root.get("schemas") if root is not None else None
    value = node.to_python() if node is not None else None
    return value if isinstance(value, dict) else {}


def resolve_schema(scope: FileScope, ref: Any, what: str) -> Any:
    """The schema body ``ref`` stands for (``None`` stays ``None``)."""
    if ref is None:
        return None
    if isinstance(ref, str):
        if ref not in scope.schemas:
            table = _schemas_table(scope)
            if ref not in table:
                raise WorkflowError(f"'{what}' refers to schema '{ref}', which is not defined in 'schemas:'")
            scope.schemas[ref] = _source(scope, table[ref], f"schemas.{ref}")
        return scope.schemas[ref]
    return _source(scope, ref, what)


def validate(value: Any, schema: Any, path: str, what: str) -> None:
    """Raise a :class:`WorkflowError` listing every way ``value`` breaks ``schema``."""
    problems = check_value(value, schema, path)
    if problems:
        raise WorkflowError(f"{what}: " + "; ".join(problems))
