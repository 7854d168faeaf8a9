"""Typed, located models of lait's documents: lait.config.yml, agent.md, workflow.yml, SKILL.md."""
