"""``tool_policy`` globs and merging, ``allowed_tools``, qualified names and tool assembly
(docs/workflows.md, docs/config.md)."""

from __future__ import annotations

import re

import pytest

from lait_core.documents.config_file import merge
from lait_core.documents.document_models import Config, ToolPolicy
from lait_core.engine.llm.chat_types import AllowedToolsError, ToolNameError
from lait_core.engine.tools import ToolKind, ToolSet, qualify, sanitize
from lait_core.engine.tools.tool_policy import (
    POLICY_DENIAL,
    Policy,
    check_allowed_tools,
    glob_match,
    merge_policies,
)
from tests.engine.conftest import FakeSource, shell_source


# -- globs ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("pattern", "name", "matches"),
    [
        ("*", "anything__at_all", True),
        ("*", "", True),
        ("*__delete_*", "fs__delete_file", True),
        ("*__delete_*", "fs__read_file", False),
        ("*delete*", "delete", True),  # contains, checked before prefix/suffix
        ("fetch_*", "fetch_url", True),
        ("fetch_*", "xfetch_url", False),
        ("*_delete", "fs__x_delete", True),
        ("*_delete", "fs__x_delete_y", False),
        ("tool__rg", "tool__rg", True),
        ("tool__rg", "tool__rg2", False),
        ("tool__*g", "tool__rg", False),  # no interior '*': it is an exact name
        ("tool__*g", "tool__*g", True),
        ("tool__r?", "tool__rg", False),  # no '?'
        ("**", "x", True),
    ],
)
def test_glob_grammar(pattern: str, name: str, matches: bool) -> None:
    assert glob_match(pattern, name) is matches


def test_deny_before_allow_and_empty_allow() -> None:
    policy = Policy(allow=("fetch_*", "filesystem__read_file"), deny=("*__delete_*",))
    assert policy.allows("fetch_x") and policy.allows("filesystem__read_file")
    assert not policy.allows("filesystem__write_file")  # non-empty allow: must match
    assert not Policy(allow=("*",), deny=("fetch__delete_x",)).allows("fetch__delete_x")
    assert Policy(deny=("tool__*",)).allows("agent__x")  # empty allow allows everything else
    assert (
        Policy(deny=("tool__*",)).denial("tool__rg")
        == f"{POLICY_DENIAL} (deny pattern 'tool__*')"
        == "denied by 'tool_policy' in lait.config.yml (deny pattern 'tool__*')"
    )
    assert (
        Policy(allow=("a*", "b")).denial("c")
        == "denied by 'tool_policy' in lait.config.yml (no allow pattern matches; allow: a*, b)"
    )
    assert Policy().denial("x") is None


def test_global_deny_survives_a_project_policy() -> None:
    global_config = Config.model_validate({"tool_policy": {"deny": ["tool__*"]}})
    project = Config.model_validate({"tool_policy": {"allow": ["tool__rg"], "deny": []}})
    merged = merge(merge(Config(), global_config, {"tool_policy"}), project, {"tool_policy"})
    policy = Policy.from_config(merged.tool_policy)
    assert policy == Policy(allow=("tool__rg",), deny=("tool__*",))
    assert not policy.allows("tool__rg")
    assert merge_policies([ToolPolicy(allow=["a"]), None, Policy(("b",), ("c",))]) == Policy(
        ("a", "b"), ("c",)
    )


def test_allowed_tools() -> None:
    check_allowed_tools("fs", "read_file", None)  # absent: unrestricted
    check_allowed_tools("fs", "read_file", ["read_file", "list_directory"])
    with pytest.raises(
        AllowedToolsError, match=re.escape("'mcp_servers.fs.allowed_tools' in lait.config.yml is empty")
    ):
        check_allowed_tools("fs", "read_file", [])
    with pytest.raises(AllowedToolsError, match=re.escape("not listed in 'mcp_servers.fs.allowed_tools'")):
        check_allowed_tools("fs", "write_file", ["read_file"])


# -- names ------------------------------------------------------------------------------------
def test_sanitize_and_qualify() -> None:
    assert sanitize("a.b c/d-é_9") == "a_b_c_d-__9"
    assert qualify("my server", "read.file") == "my_server__read_file"
    assert qualify("tool", "ripgrep") == "tool__ripgrep"
    assert len(qualify("s", "x" * 61)) == 64
    with pytest.raises(ToolNameError, match="is 65 characters long"):
        qualify("s", "x" * 62)


async def test_assembly_order_is_mcp_agents_shell_skills() -> None:
    sources = [
        FakeSource(ToolKind.SKILL, ["review"]),
        shell_source({"rg": {"command": ["rg"]}}),
        FakeSource(ToolKind.AGENT, ["researcher"]),
        FakeSource(ToolKind.MCP, ["b_tool", "a_tool"], server="second"),
        FakeSource(ToolKind.MCP, ["read"], server="first"),
    ]
    # MCP sources keep the order they were given in (the `mcp:` list order); so do their tools
    tools = await ToolSet.assemble([sources[3], sources[4], sources[0], sources[1], sources[2]])
    assert [t.qualified_name for t in tools.tools] == [
        "second__b_tool",
        "second__a_tool",
        "first__read",
        "agent__researcher",
        "tool__rg",
        "skill__review",
    ]
    assert tools.lookup("tool__rg") is not None and tools.lookup("nope") is None
    assert [d.wire()["function"]["name"] for d in tools.definitions()] == [
        t.qualified_name for t in tools.tools
    ]


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        (
            lambda: [
                FakeSource(ToolKind.MCP, ["x"], server="a.b"),
                FakeSource(ToolKind.MCP, ["x"], server="a_b"),
            ],
            "MCP tool name collision: 'x' of server 'a.b' and 'x' of server 'a_b' both qualify to 'a_b__x'",
        ),
        (lambda: [shell_source({"rg": {"command": ["rg"]}}, ["rg", "rg"])], "duplicate tool name 'rg'"),
        (
            lambda: [shell_source({"a.b": {"command": ["x"]}, "a_b": {"command": ["y"]}})],
            "duplicate tool name: 'a.b' and 'a_b' both qualify to 'tool__a_b'",
        ),
        (
            lambda: [FakeSource(ToolKind.MCP, ["x"], server="agent"), FakeSource(ToolKind.AGENT, ["x"])],
            "tool name collision: an MCP tool and a subagent both qualify to 'agent__x'",
        ),
        (
            lambda: [shell_source({"x": {"command": ["x"]}}), FakeSource(ToolKind.MCP, ["x"], server="tool")],
            "tool name collision: an MCP tool and a shell tool both qualify to 'tool__x'",
        ),
        (
            lambda: [shell_source({}, ["missing"])],
            "unknown tool 'missing'; define it under 'tools:' in lait.config.yml",
        ),
        (
            lambda: [shell_source({"x": {"command": ["x"], "parameters": [1]}})],
            "'tools.x.parameters' must be a JSON object (a JSON Schema)",
        ),
        (lambda: [shell_source({"x": {"command": []}})], "'tools.x.command' must not be empty"),
        (lambda: [shell_source({"y" * 60: {"command": ["x"]}})], "characters long"),
    ],
)
async def test_assembly_errors(sources: object, message: str) -> None:
    assert callable(sources)
    with pytest.raises(ToolNameError) as info:
        await ToolSet.assemble(sources())
    assert message in str(info.value)
