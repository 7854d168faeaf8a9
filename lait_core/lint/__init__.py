"""Linting: the rule registry, the lint-only checks, file discovery, suppression and output formats."""
