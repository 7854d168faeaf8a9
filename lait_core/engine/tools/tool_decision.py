"""What happens to one tool call before it runs: allowed, asked about, or denied, and which rule
decided. One function for the tool loop (:meth:`lait_core.engine.run.tool_loop.ToolLoop._decide`) and for
``lait policy test``, which evaluates calls without running anything, so the explanation a person
reads there is the message the model (or the run's error) gets.

The order is the loop's: a server whose tools are not pinned in ``lait.lock`` stops the run before
any of its tools is offered (a hard denial); then ``tool_policy`` (a soft denial: the model reads
it as the tool's result); then the tool source's own refusal (MCP ``allowed_tools``: a hard error,
never put to a person); then ``approvals.read_only`` (a listed server's tool the server
annotates read-only), a standing grant (``.lait/grants.yml``) or the approval setting
(``--approve-tools``, the editor's ``approveTools``, ``serve.approvals``) asks; else the call runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from lait_core.engine.tools.tool_policy import Policy, policy_denial

Outcome = Literal["allow", "ask", "deny"]


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    source: str
    """What decided: ``lait.lock``, ``tool_policy``, ``allowed_tools``, ``approvals``, ``grants``,
    ``approval`` or ``default``."""
    rule: str
    """The rule within the source, for people (``deny pattern 'fs__*'``)."""
    message: str
    """A denial: exactly what the engine reports (the model's tool result for ``tool_policy``, the
    run's error otherwise). Allow and ask: one sentence saying why."""
    hard: bool = False
    """A denial that ends the run instead of going back to the model."""


def decide(
    name: str,
    policy: Policy,
    *,
    refusal: str | None = None,
    lock_refusal: str | None = None,
    approve: bool = False,
    approval: str = "--approve-tools",
    granted: str | None = None,
    read_only: str | None = None,
) -> Verdict:
    """The verdict for a call of ``name`` (the qualified tool name). ``refusal`` is the tool
    source's (``allowed_tools``), ``lock_refusal`` the lock file's, ``approve`` whether calls are
    put to a person, ``approval`` names the setting that asks, and ``granted`` describes a standing
    grant of the tool (``.lait/grants.yml``), which answers instead of the person; ``read_only``
    says why ``approvals.read_only`` lets the tool run unasked (its server is listed *and* it is
    annotated read-only: the annotation alone never is enough)."""
    if lock_refusal is not None:
        return Verdict("deny", "lait.lock", "the tool is not pinned", lock_refusal, hard=True)
    allowed, rule = policy.match(name)
    if not allowed:
        return Verdict("deny", "tool_policy", rule, policy_denial(rule))
    if refusal is not None:
        return Verdict("deny", "allowed_tools", "not in the server's allowed_tools", refusal, hard=True)
    if approve and read_only is not None:
        return Verdict("allow", "approvals", read_only, f"runs without asking ({read_only})")
    if approve and granted is not None:
        return Verdict("allow", "grants", granted, f"runs without asking ({granted})")
    if approve:
        return Verdict("ask", "approval", approval, f"asked before it runs ({approval})")
    source = "tool_policy" if policy.allow or policy.deny else "default"
    detail = rule if source == "tool_policy" else "no tool_policy, no allowed_tools, no approval setting"
    return Verdict("allow", source, detail, f"runs without asking ({detail})")


def read_only_reason(
    server: str | None, annotations: Mapping[str, Any] | None, listed: Sequence[str]
) -> str | None:
    """Why ``approvals.read_only`` lets an MCP tool run unasked, or None: its server must be listed
    and the server must annotate it ``readOnlyHint: true`` (and not ``destructiveHint: true``)."""
    if server is None or server not in listed or not annotations:
        return None
    if annotations.get("readOnlyHint") is not True or annotations.get("destructiveHint") is True:
        return None
    return f"server '{server}' is in approvals.read_only and annotates the tool readOnlyHint"
