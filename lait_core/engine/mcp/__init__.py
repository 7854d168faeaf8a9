"""The MCP client (docs/mcp.md): transports (:mod:`.stdio`, :mod:`.http`), one live
connection per server (:mod:`.connection`), tool listing with its limits and cache
(:mod:`.listing`), result rendering (:mod:`.render`) and elicitation mapping
(:mod:`.elicitation`). The tool source and the per-run pool are in
:mod:`lait_core.engine.tools.mcp`.

:mod:`.connection`, :mod:`.stdio`, :mod:`.http` and :mod:`.elicitation` import the ``mcp`` SDK
(about 0.5 s); they are imported only when a server is first connected. :mod:`.limits`,
:mod:`.errors`, :mod:`.render`, :mod:`.spec` and :mod:`.listing` are light.
"""
