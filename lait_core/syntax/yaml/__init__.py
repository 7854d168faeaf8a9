"""YAML text -> the located tree (:mod:`.tree`): :mod:`.parse` picks the reader (tree-sitter through
:mod:`.compose`, libyaml events through :mod:`.libyaml_events`); scalar values and their offsets."""
