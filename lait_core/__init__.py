"""The shared core of lait, one folder per role: syntax/ (text -> located trees), documents/ (the
typed files), lint/, language/ (the editor's knowledge), engine/ (running), serve/ (``lait serve
--mcp``), testing/ (``lait test``, ``lait eval``), commands/ (the work of single commands) and
support/ (small infrastructure). CONTRIBUTING.md, "Layout", says what each holds.

The core imports neither typer nor pygls; heavy stacks (mcp, httpx) are imported lazily by the
engine modules that need them.
"""

__version__ = "0.1.0"
