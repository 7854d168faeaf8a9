"""Editor features over lait files: hover, navigation (definition, references, rename), outline
and folding. The language server only converts positions and types; every answer comes from here.

* :class:`Project` (``symbols``): one per editor session; indexes the lait files of the projects
  around the documents asked about and answers ``definition``/``references``/``prepare_rename``/
  ``rename`` for a :class:`Document` and a code-point :class:`~lait_core.syntax.positions.Position`.
* :func:`hover_at` (``hover``): Markdown for the key or name at a position.
* :func:`document_symbols` and :func:`folding_ranges` (``outline``): pure functions of a file's text.
* ``index``: the names each file defines and mentions (:class:`FileIndex`, :class:`Occurrence`).
* ``keydocs``: the documentation of a key path, from the pydantic models.

The names below are imported lazily, so importing one submodule (``code_actions``,
``completion``) does not load the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lait_core.language.hover import HoverResult, hover_at
    from lait_core.language.index import (
        FileIndex,
        FileLink,
        Namespace,
        Occurrence,
        SymbolKey,
        build_index,
        jq_references,
        template_references,
    )
    from lait_core.language.keydocs import KeyDoc, NameDoc, describe_path
    from lait_core.language.outline import Fold, OutlineKind, OutlineSymbol, document_symbols, folding_ranges
    from lait_core.language.symbols import (
        Document,
        Edit,
        FileEdits,
        Location,
        Project,
        RenameError,
        RenameTarget,
        check_name,
    )

_EXPORTS = {
    "HoverResult": "hover",
    "hover_at": "hover",
    "FileIndex": "index",
    "FileLink": "index",
    "Namespace": "index",
    "Occurrence": "index",
    "SymbolKey": "index",
    "build_index": "index",
    "jq_references": "index",
    "template_references": "index",
    "KeyDoc": "keydocs",
    "NameDoc": "keydocs",
    "describe_path": "keydocs",
    "Fold": "outline",
    "OutlineKind": "outline",
    "OutlineSymbol": "outline",
    "document_symbols": "outline",
    "folding_ranges": "outline",
    "Document": "symbols",
    "Edit": "symbols",
    "FileEdits": "symbols",
    "Location": "symbols",
    "Project": "symbols",
    "RenameError": "symbols",
    "RenameTarget": "symbols",
    "check_name": "symbols",
}

__all__ = [
    "Document",
    "Edit",
    "FileEdits",
    "FileIndex",
    "FileLink",
    "Fold",
    "HoverResult",
    "KeyDoc",
    "Location",
    "NameDoc",
    "Namespace",
    "Occurrence",
    "OutlineKind",
    "OutlineSymbol",
    "Project",
    "RenameError",
    "RenameTarget",
    "SymbolKey",
    "build_index",
    "check_name",
    "describe_path",
    "document_symbols",
    "folding_ranges",
    "hover_at",
    "jq_references",
    "template_references",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'lait_core.language' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"lait_core.language.{module}"), name)
    globals()[name] = value
    return value
