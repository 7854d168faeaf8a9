"""Editor-facing language features computed in the core (the language server only converts them)."""
