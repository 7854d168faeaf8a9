"""Typed, located models of lait's documents: lait.config.yml, agent.md, workflow.yml, SKILL.md
(:mod:`.document_models`, one loader per file kind), the files the config registers, named prompts,
the JSON Schemas generated from the models, and other tools' agent files (:mod:`.foreign_formats`,
:mod:`.foreign_names`, :mod:`.foreign_agent`)."""
