"""LAIT108: a lait.config.yml key that lait reads (it validates) but that has no effect yet."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode

C = "lait.config.yml"

# The config keys lait accepts and validates (they are part of the reference's format) but that change
# nothing in this version, as dotted paths from the top of lait.config.yml. Remove a key from this set in
# the change that gives it an effect; nothing else needs to change (the rule, its doc and its test read it).
NO_EFFECT_YET: frozenset[str] = frozenset(
    {
        "jev",  # only `decide:` steps use it, and they cannot run yet
    }
)

CODE = "LAIT108"

RULE = rule(
    CODE,
    "no-effect-key",
    Severity.WARNING,
    "A lait.config.yml key is read but has no effect in this version.",
    "lait accepts every key of the reference's config format and checks its value, so a file written for "
    "the reference loads. Some keys change nothing here yet; each is reported at its key so that nobody "
    "relies on it silently. Today: " + ", ".join(f"`{k}`" for k in sorted(NO_EFFECT_YET)) + ".",
    Example("default:\n  model: qwen\njev:\n  model: jev-latest\n", filename=C),
    Example("default:\n  model: qwen\n", filename=C),
)


def check_no_effect(root: MappingNode, out: list[Diagnostic]) -> None:
    """Warn at each key of ``root`` whose dotted path is in :data:`NO_EFFECT_YET`."""
    for path in sorted(NO_EFFECT_YET):
        *parents, last = path.split(".")
        node: MappingNode | None = root
        for name in parents:
            child = node.get(name) if node is not None else None
            node = child if isinstance(child, MappingNode) else None
        key = node.key_node(last) if node is not None else None
        if key is not None:
            out.append(
                Diagnostic(
                    CODE,
                    f"'{path}' is read but has no effect in this version of lait",
                    key.range,
                    Severity.WARNING,
                )
            )
