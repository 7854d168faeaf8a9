"""``lait compare`` results (docs/cli.md): one :class:`Outcome` per model, and the
three ways to print them — the original lait's plain blocks, a Markdown report, and JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Outcome:
    model: str
    """The name given to ``--model`` (an alias or a raw id)."""
    model_id: str
    duration_ms: int
    content: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    cost_usd: float | None = None
    """None: unknown (no ``pricing``, or the request failed)."""
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def usage_text(self) -> str:
        if self.total_tokens is None:
            return "usage: unknown"
        text = f"usage: prompt={self.prompt_tokens} completion={self.completion_tokens} total={self.total_tokens}"
        return text + (f" (${self.cost_usd:.6f})" if self.cost_usd is not None else "")

    def as_json(self) -> dict[str, Any]:
        usage = (
            {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens,
            }
            if self.ok and self.total_tokens is not None
            else None
        )
        return {
            "model": self.model,
            "model_id": self.model_id,
            "duration_ms": self.duration_ms,
            "usage": usage,
            "cost_usd": self.cost_usd if self.ok else None,
            "content": self.content if self.ok else None,
            "error": self.error,
        }


def cost(prompt_tokens: int, completion_tokens: int, input_per_1m: float, output_per_1m: float) -> float:
    return (prompt_tokens * input_per_1m + completion_tokens * output_per_1m) / 1e6


def render_blocks(outcomes: list[Outcome]) -> str:
    """The reference's text: ``=== alias (model_id) ===``, time, usage (+ cost), then the answer."""
    parts = []
    for o in outcomes:
        lines = [f"=== {o.model} ({o.model_id}) ===", f"time: {o.duration_ms}ms"]
        if o.ok:
            lines += [o.usage_text(), o.content or ""]
        else:
            lines.append(f"error: {o.error}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(outcomes: list[Outcome]) -> str:
    rows = [
        "| model | model id | time | prompt | completion | total | cost (USD) | status |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for o in outcomes:
        cost_text = f"{o.cost_usd:.6f}" if o.cost_usd is not None and o.ok else "-"
        tokens = [
            str(t) if t is not None and o.ok else "-"
            for t in (o.prompt_tokens, o.completion_tokens, o.total_tokens)
        ]
        status = "ok" if o.ok else f"error: {_cell(o.error or '')}"
        rows.append(
            f"| {_cell(o.model)} | {_cell(o.model_id)} | {o.duration_ms} ms | {' | '.join(tokens)} | {cost_text} | {status} |"
        )
    sections = [f"## {o.model}\n\n{o.content}" for o in outcomes if o.ok and o.content]
    return "\n".join(rows) + "\n" + ("\n" + "\n\n".join(sections) + "\n" if sections else "")


def render_json(outcomes: list[Outcome]) -> str:
    return json.dumps([o.as_json() for o in outcomes], indent=2, ensure_ascii=False) + "\n"
