"""LAIT5xx: names of MCP servers, skills, subagents and tools used by workflows and agents. One
module per rule."""
