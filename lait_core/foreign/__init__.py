"""Other tools' agent files as first-class documents: VS Code/Copilot and Claude Code formats.

:mod:`formats` says which format a path is in and lists each format's documented fields;
:mod:`check` lints a file against its own format; :mod:`language` completes and explains it;
:mod:`importer` converts one into lait files (``lait import``).
"""
