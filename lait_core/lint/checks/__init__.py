"""Lint-only checks (the load-time ones live with the documents, which the runtime shares)."""
