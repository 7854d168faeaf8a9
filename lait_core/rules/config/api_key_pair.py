"""LAIT103 api-key-pair: `api_key` and `api_key_cmd` are both set in one place."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode, Node, SequenceNode

C = "lait.config.yml"

CODE = "LAIT103"

RULE = rule(
    CODE,
    "api-key-pair",
    Severity.ERROR,
    "`api_key` and `api_key_cmd` are both set in one place.",
    "Exactly one source of the API key may be given per layer: at the top level, in `jev:`, and in each "
    "`provider` of every `models:` entry (fallback entries included).",
    Example("api_key: sk-1\napi_key_cmd: pass show openai\n", filename=C),
    Example("api_key_cmd: pass show openai\n", filename=C),
)


def _pair(node: Node | None, context: str, out: list[Diagnostic]) -> None:
    if isinstance(node, MappingNode) and "api_key" in node and "api_key_cmd" in node:
        key = node.key_node("api_key_cmd")
        assert key is not None
        out.append(
            Diagnostic(CODE, f"{context} sets both 'api_key' and 'api_key_cmd'; set exactly one", key.range)
        )


def check_api_keys(root: MappingNode, out: list[Diagnostic]) -> None:
    _pair(root, "top-level configuration", out)
    _pair(root.get("jev"), "'jev:' configuration", out)
    models = root.get("models")
    if isinstance(models, MappingNode):
        for alias, _k, entries in sorted(models.items(), key=lambda t: str(t[0])):
            if not isinstance(entries, SequenceNode):
                continue
            for i, entry in enumerate(entries.items, 1):
                if isinstance(entry, MappingNode):
                    ctx = f'model definition "{alias}"' + (f"'s fallback entry #{i}" if i > 1 else "")
                    _pair(entry.get("provider"), ctx, out)
