"""LAIT2xx: agent Markdown files, inline agents, schema sources, SKILL.md and agents in other
tools' formats. One module per rule."""
