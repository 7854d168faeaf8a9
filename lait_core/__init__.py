"""The shared core of lait: documents, templates, jq, lint rules and (later) the engine.

The core imports neither typer nor pygls; heavy stacks (mcp, httpx) are imported lazily by the
engine modules that need them.
"""

__version__ = "0.1.0"
