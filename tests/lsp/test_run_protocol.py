"""The lait/* message shapes (editors/vscode/PROTOCOL.md) as lait_ls.protocol builds and reads them,
and the dict-preserving converter (no namedtuples, keys such as `$schema` survive)."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from lait_core.engine.llm.chat_types import Usage
from lait_core.engine.run import interaction as ix
from lait_ls import protocol


def test_run_params_parse_and_errors() -> None:
    params = protocol.RunParams.parse(
        {
            "uri": "file:///w.yml",
            "kind": "workflow",
            "inputs": {"n": 2},
            "dryRun": True,
            "runId": "x",
            "extra": 1,
        }
    )
    assert params == protocol.RunParams("file:///w.yml", "workflow", None, {"n": 2}, True, "x")
    assert protocol.RunParams.parse("file:///a.md").uri == "file:///a.md"
    for bad, message in [
        ([1], "params must be an object"),
        ({}, "'uri' must be a non-empty string"),
        ({"uri": "u", "kind": "chat"}, "'kind' must be 'workflow', 'agent', 'test' or 'eval'"),
        ({"uri": "u", "prompt": 3}, "'prompt' must be a string"),
        ({"uri": "u", "inputs": [1]}, "'inputs' must be an object"),
        ({"uri": "u", "dryRun": "yes"}, "'dryRun' must be a boolean"),
        ({"uri": "u", "runId": ""}, "'runId' must be a non-empty string"),
    ]:
        with pytest.raises(protocol.ProtocolError, match=message):
            protocol.RunParams.parse(bad)


def test_dialog_params_and_answers() -> None:
    call = ix.ApprovalRequest("tool__grep", '{"pattern": "x"}', "tool", None, ("grep", "-rn", "x", "."))
    assert protocol.approve_params("r", call) == {
        "runId": "r",
        "tool": "tool__grep",
        "kind": "tool",
        "arguments": '{"pattern": "x"}',
        "command": ["grep", "-rn", "x", "."],
    }
    mcp = ix.ApprovalRequest("notes__save", "{}", "mcp", "notes")
    assert protocol.approve_params("r", mcp)["server"] == "notes"
    assert protocol.parse_decision({"decision": "session"}) is ix.ApprovalDecision.SESSION
    assert [protocol.parse_decision(x) for x in (None, {}, {"decision": "always"}, [])] == [
        ix.ApprovalDecision.DENY
    ] * 4

    schema = {"$schema": "x", "type": "object", "properties": {"my-field": {"type": "string"}, "class": {}}}
    request = ix.ElicitationRequest("notes", "form", "Why?", schema, None, True)
    assert protocol.elicit_params("r", request) == {
        "runId": "r",
        "server": "notes",
        "mode": "form",
        "message": "Why?",
        "requestedSchema": schema,
        "propertyOrder": ["my-field", "class"],
    }
    url = ix.ElicitationRequest("auth", "url", "Sign in", None, "https://example.test/x", True)
    assert protocol.elicit_params("r", url)["url"] == "https://example.test/x"
    assert protocol.parse_elicitation({"action": "accept", "content": {"a": 1}}) == ix.ElicitationResult(
        "accept", {"a": 1}
    )
    assert protocol.parse_elicitation({"action": "accept"}) == ix.ElicitationResult("accept", {})
    assert protocol.parse_elicitation({"action": "accept", "content": [1]}).action == "decline"
    assert protocol.parse_elicitation({"action": "cancel", "content": {"a": 1}}) == ix.ElicitationResult(
        "cancel"
    )
    assert protocol.parse_elicitation(None).action == "cancel"
    assert protocol.parse_elicitation({"action": "maybe"}).action == "decline"

    question = ix.Question("Which?", ("a", "b"), "b", False)
    assert protocol.ask_params("r", question) == {
        "runId": "r",
        "question": "Which?",
        "choices": ["a", "b"],
        "default": "b",
        "multiline": False,
    }
    assert protocol.ask_params("r", ix.Question("Free?")) == {
        "runId": "r",
        "question": "Free?",
        "multiline": False,
    }
    assert protocol.parse_answer({"answer": ""}) == ""
    assert protocol.parse_answer(None) is None and protocol.parse_answer({"answer": 1}) is None


def test_every_engine_event_has_a_wire_shape() -> None:
    assert protocol.event_payload(ix.TextDelta("hi")) == {"type": "text", "text": "hi"}
    assert protocol.event_payload(ix.ToolCallStarted("c", "tool__x", "{}")) == {
        "type": "toolCall",
        "callId": "c",
        "name": "tool__x",
        "arguments": "{}",
    }
    assert protocol.event_payload(ix.UsageReported(Usage(1, 2, 3), 4)) == {
        "type": "usage",
        "promptTokens": 1,
        "completionTokens": 2,
        "totalTokens": 3,
        "round": 4,
        "cost": None,
    }
    assert protocol.event_payload(ix.StepStarted("s", "prompt", 2, "[b] ", run_id="r")) == {
        "type": "stepStarted",
        "label": "s",
        "kind": "prompt",
        "n": 2,
        "prefix": "[b] ",
    }
    documented = {
        "text", "reasoning", "streamEnded", "round", "toolCall", "toolResult", "toolDenied", "usage",
        "warning", "note", "compacted", "workflowStarted", "stepStarted", "stepFinished", "stepRetrying",
        "stepProgress", "modelAnswered",
    }  # fmt: skip
    for cls in typing.get_args(ix.Event):
        fields = {f.name: _sample(f.type) for f in dataclasses.fields(cls)}
        payload = protocol.event_payload(cls(**fields))
        assert payload["type"] in documented, cls
        assert "runId" not in payload and all("_" not in key for key in payload)


def _sample(annotation: object) -> object:
    text = str(annotation)
    if "Usage" in text:
        return Usage(1, 1, 2)
    if text.startswith("int"):
        return 1
    if text.startswith("float"):
        return 0.5
    if text.startswith("bool"):
        return True
    return "x"


def test_dict_converter_keeps_custom_params_as_dicts() -> None:
    from pygls.protocol import JsonRPCRequestMessage

    converter = protocol.dict_converter()
    message = converter.structure(
        {"jsonrpc": "2.0", "id": 1, "method": "lait/elicit", "params": {"requestedSchema": {"$schema": "x"}}},
        JsonRPCRequestMessage,
    )
    assert message.params == {"requestedSchema": {"$schema": "x"}}
