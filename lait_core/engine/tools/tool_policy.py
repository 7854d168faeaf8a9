"""``tool_policy`` (allow/deny globs over qualified names) and MCP ``allowed_tools``.

Pattern grammar (the only one supported): ``*`` matches everything; ``*mid*`` matches names
containing ``mid`` (checked first); ``prefix*`` and ``*suffix`` match by prefix and suffix;
anything else matches exactly. There is no ``?`` and no interior ``*``.

Evaluation: a matching ``deny`` pattern denies; otherwise an empty ``allow`` allows everything;
otherwise the name must match an ``allow`` pattern. A denial is *soft* (returned to the model as
the tool's result: the reference's sentence followed by the pattern that decided, the explanation
``lait policy test`` prints). Global and project policies merge by concatenating both lists, so a global
deny can never be removed. ``allowed_tools`` is independent (both must pass) and *hard*.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lait_core.documents.document_models import ToolPolicy
from lait_core.engine.llm.chat_types import AllowedToolsError

POLICY_DENIAL = "denied by 'tool_policy' in lait.config.yml"
INTERACTIVE_DENIAL = "denied interactively (--approve-tools)"


def glob_match(pattern: str, name: str) -> bool:
    if pattern == "*":
        return True
    if len(pattern) >= 2 and pattern.startswith("*") and pattern.endswith("*"):
        return pattern[1:-1] in name
    if pattern.startswith("*"):
        return name.endswith(pattern[1:])
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern


@dataclass(frozen=True, slots=True)
class Policy:
    """A compiled ``tool_policy``."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, policy: ToolPolicy | None) -> Policy:
        if policy is None:
            return cls()
        return cls(tuple(policy.allow), tuple(policy.deny))

    def allows(self, qualified_name: str) -> bool:
        return self.match(qualified_name)[0]

    def match(self, qualified_name: str) -> tuple[bool, str]:
        """Whether the policy allows ``qualified_name``, and the rule that decided (for people)."""
        for pattern in self.deny:
            if glob_match(pattern, qualified_name):
                return False, f"deny pattern '{pattern}'"
        if not self.allow:
            return True, "no deny pattern matches and allow is empty"
        for pattern in self.allow:
            if glob_match(pattern, qualified_name):
                return True, f"allow pattern '{pattern}'"
        return False, f"no allow pattern matches; allow: {', '.join(self.allow)}"

    def denial(self, qualified_name: str) -> str | None:
        """The denial message for ``qualified_name`` (what the model reads), or None when the policy
        allows it: :data:`POLICY_DENIAL` and the rule that decided."""
        allowed, rule = self.match(qualified_name)
        return None if allowed else policy_denial(rule)


def policy_denial(rule: str) -> str:
    """What the model reads when ``tool_policy`` denies a call by ``rule``."""
    return f"{POLICY_DENIAL} ({rule})"


def merge_policies(policies: Iterable[ToolPolicy | Policy | None]) -> Policy:
    """Union of several layers (global first): both lists concatenated, order kept."""
    allow: list[str] = []
    deny: list[str] = []
    for p in policies:
        if p is None:
            continue
        allow.extend(p.allow)
        deny.extend(p.deny)
    return Policy(tuple(allow), tuple(deny))


def check_allowed_tools(server: str, tool: str, allowed_tools: Sequence[str] | None) -> None:
    """Raise :class:`AllowedToolsError` unless ``tool`` (the server's raw name) may be called.

    Absent (None) is unrestricted; ``[]`` denies everything. Enforced at call time, before
    connecting; it never filters the advertised tool list.
    """
    refusal = allowed_tools_refusal(server, tool, allowed_tools)
    if refusal is not None:
        raise AllowedToolsError(refusal)


def allowed_tools_refusal(server: str, tool: str, allowed_tools: Sequence[str] | None) -> str | None:
    """The error message when ``allowed_tools`` refuses ``tool`` (None: it may be called)."""
    if allowed_tools is None or tool in allowed_tools:
        return None
    if not allowed_tools:
        return (
            f"MCP tool '{tool}' of server '{server}' is not allowed: 'mcp_servers.{server}.allowed_tools' "
            "in lait.config.yml is empty, which allows no tools"
        )
    return (
        f"MCP tool '{tool}' of server '{server}' is not allowed: it is not listed in "
        f"'mcp_servers.{server}.allowed_tools' in lait.config.yml ({', '.join(allowed_tools)})"
    )
