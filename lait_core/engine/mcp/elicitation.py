"""Elicitation requests between the SDK's types and the Interaction seam (docs/mcp.md).

Both eras end here: a 2025-11-25 server's ``elicitation/create`` request and the
``elicitation/create`` entries of a 2026-07-28 ``input_required`` result. The interaction
decides (declines when ``allow_elicitation`` is off or stdin is not a TTY); whatever it answers is
sent back unvalidated, as the reference does, with the schema's ``default`` values filled in for
the fields an accepted answer leaves out (SEP-1034) -- except content that does not even fit the
wire type (flat primitive values), which is declined with a warning.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from pydantic import ValidationError

from lait_core.engine.mcp.forms import with_defaults
from lait_core.engine.run.interaction import ElicitationRequest, ElicitationResult, Interaction, WarningEvent


def to_request(server: str, params: Any, allowed: bool) -> ElicitationRequest:
    message = str(getattr(params, "message", "") or "")
    if isinstance(params, types.ElicitRequestURLParams):
        return ElicitationRequest(server, "url", message, None, params.url, allowed, params.elicitation_id)
    if isinstance(params, types.ElicitRequestFormParams):
        schema = params.requested_schema
        schema_dict = schema if isinstance(schema, dict) else getattr(schema, "model_dump", dict)()
        return ElicitationRequest(server, "form", message, schema_dict, None, allowed)
    mode = str(getattr(params, "mode", None) or "unknown")
    return ElicitationRequest(server, mode, message, None, None, allowed)


def to_wire(
    result: ElicitationResult, interaction: Interaction, server: str, schema: Any = None
) -> types.ElicitResult:
    """``schema``: the form's ``requestedSchema``; an accepted answer gets the defaults of the
    fields it leaves out (SEP-1034), whichever front end gave it."""
    if result.action == "accept":
        try:
            content = with_defaults(schema, result.content) if schema is not None else result.content
            return types.ElicitResult(action="accept", content=content or {})
        except ValidationError:
            interaction.event(
                WarningEvent(
                    f"mcp_servers.{server}: the answer has values other than strings, numbers, booleans or "
                    "lists of strings; declined"
                )
            )
            return types.ElicitResult(action="decline")
    if result.action == "cancel":
        return types.ElicitResult(action="cancel")
    return types.ElicitResult(action="decline")


async def answer(
    server: str, params: Any, allowed: bool, interaction: Interaction | None
) -> types.ElicitResult:
    """Ask ``interaction``; declined when there is none. A request with ``allow_elicitation`` off
    still reaches the interaction with ``allowed=False`` -- every implementation declines it without
    asking anyone, but can say why (the editor logs it) -- and is declined whatever it answers."""
    if interaction is None:
        return types.ElicitResult(action="decline")
    request = to_request(server, params, allowed)
    result = await interaction.elicit(request)
    if not allowed:
        return types.ElicitResult(action="decline")
    return to_wire(result, interaction, server, request.requested_schema)
