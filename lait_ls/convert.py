"""Conversions between lait_core's code-point positions and LSP's UTF-16 positions and types."""

from __future__ import annotations

from lsprotocol import types as lsp

from lait_core.syntax.diagnostics import Severity
from lait_core.syntax.positions import LineIndex, Position, Range

_SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFO: lsp.DiagnosticSeverity.Information,
}


def to_lsp_position(index: LineIndex, pos: Position) -> lsp.Position:
    p = index.to_utf16(pos)
    return lsp.Position(line=p.line, character=p.character)


def to_lsp_range(index: LineIndex, rng: Range) -> lsp.Range:
    return lsp.Range(start=to_lsp_position(index, rng.start), end=to_lsp_position(index, rng.end))


def from_lsp_position(index: LineIndex, pos: lsp.Position) -> Position:
    return index.from_utf16(Position(pos.line, pos.character))


def from_lsp_range(index: LineIndex, rng: lsp.Range) -> Range:
    return Range(from_lsp_position(index, rng.start), from_lsp_position(index, rng.end))


def severity(sev: Severity) -> lsp.DiagnosticSeverity:
    return _SEVERITY.get(sev, lsp.DiagnosticSeverity.Information)
