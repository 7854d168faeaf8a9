"""lait's own MCP client drives `lait serve --mcp` (a real subprocess) over stdio and streamable
HTTP, in both protocol eras: tools and schemas, calls, failures, and `ask:` steps answered,
declined and cancelled through elicitation (2025: `elicitation/create`; 2026-07-28:
`input_required` rounds, which lait's client resolves through the same interaction)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from lait_core.engine.mcp.connection import McpConnection
from lait_core.engine.run.interaction import ElicitationRequest, ElicitationResult
from lait_core.engine.tools.mcp_tools import McpPool
from tests.serve.conftest import LIMITS, Driver, Person, serve_env, stdio_config


async def test_served_workflows(driver: Driver, era: str) -> None:
    # -- tools: broken.yml is skipped; the ask: workflow is offered since lait's client can elicit
    assert await driver.list() == [
        "workflow__echo",
        "workflow__fails",
        "workflow__ship",
        "workflow__slow",
        "workflow__typed",
    ]
    assert await driver.protocol() == ("2026-07-28" if era == "auto" else "2025-11-25")
    echo = driver.tools["workflow__echo"]
    assert echo.description == "Echo the input in an object"
    assert echo.parameters["required"] == ["input"]
    typed = driver.tools["workflow__typed"].parameters
    assert typed["required"] == ["inputs"]
    assert typed["properties"]["inputs"]["required"] == ["count"]
    assert typed["properties"]["inputs"]["properties"]["count"] == {
        "type": "integer",
        "description": "How many",
    }
    assert driver.tools["workflow__ship"].description == "Runs the 'ship' workflow."

    # -- calls: text on success, isError with the error chain on failure
    result = await driver.call("workflow__echo", {"input": "pkg"})
    assert (json.loads(result.text), result.is_error) == ({"got": "pkg"}, False)
    assert json.loads((await driver.call("workflow__typed", {"inputs": {"count": 3}})).text) == {
        "n": 3,
        "l": "x",
    }
    failed = await driver.call("workflow__fails", {"input": "x"})
    assert failed.is_error and "boom" in failed.text
    missing = await driver.call("workflow__typed", {"inputs": {}})
    assert missing.is_error and "missing required input 'count'" in missing.text

    # -- ask: answered through elicitation
    person = Person(ElicitationResult("accept", {"answer": "yes"}))
    result = await driver.call("workflow__ship", {"input": "v2"}, person)
    assert (json.loads(result.text), result.is_error) == ({"answer": "yes", "prompt": "yes"}, False)
    (asked,) = person.asked
    assert asked.message == "Ship v2?"
    assert asked.requested_schema is not None
    assert asked.requested_schema["properties"]["answer"]["enum"] == ["yes", "no"]

    # -- declined, cancelled, or an answer outside the choices: the step fails
    declined = await driver.call("workflow__ship", {"input": "v2"}, Person(ElicitationResult("decline")))
    assert declined.is_error and "declined the question 'Ship v2?'" in declined.text
    cancelled = await driver.call("workflow__ship", {"input": "v3"}, Person(ElicitationResult("cancel")))
    assert cancelled.is_error and "cancelled the question 'Ship v3?'" in cancelled.text
    odd = await driver.call(
        "workflow__ship", {"input": "v4"}, Person(ElicitationResult("accept", {"answer": "maybe"}))
    )
    assert odd.is_error and "not one of the choices" in odd.text


async def test_a_2025_era_question_nobody_answers_stops_the_run(
    project: Path, tmp_path: Path, marker: str
) -> None:
    """A served run's ``ask:`` to a 2025-era client that never answers ``elicitation/create`` waits as
    long as a parked 2026-07-28 question (``LAIT_SERVE_PARK_SECONDS``, here 2 s), then fails the call
    with the reason; the server and its processes carry on and end cleanly."""

    class Silent(Person):
        async def elicit(self, request: ElicitationRequest) -> ElicitationResult:
            self.asked.append(request)
            await asyncio.Event().wait()  # never answers
            raise AssertionError("unreachable")

    saved = McpConnection.mode
    McpConnection.mode = "legacy"
    env = serve_env(tmp_path, marker, LAIT_SERVE_PARK_SECONDS="2")
    config = stdio_config(project, env)
    config.env = {**(config.env or {}), "LAIT_SERVE_PARK_SECONDS": "2"}  # stdio_config passes a few only
    pool = McpPool({"lait": config}, base_dir=project, limits=LIMITS)
    try:
        driver = Driver(pool)
        person = Silent()
        result = await asyncio.wait_for(driver.call("workflow__ship", {"input": "v9"}, person), 60)
        assert result.is_error and "did not answer the question within 2 s" in result.text
        assert [a.message for a in person.asked] == ["Ship v9?"]
        echo = await driver.call("workflow__echo", {"input": "after"})  # the server carries on
        assert json.loads(echo.text) == {"got": "after"}
    finally:
        await pool.aclose()
        McpConnection.mode = saved
