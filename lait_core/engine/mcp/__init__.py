"""The MCP client (docs/mcp.md): transports (:mod:`.stdio`, :mod:`.http`), one live
connection per server (:mod:`.connection`), tool listing with its limits and cache
(:mod:`.listing`), result rendering (:mod:`.result_text`) and elicitation mapping
(:mod:`.elicitation`). The tool source and the per-run pool are in
:mod:`lait_core.engine.tools.mcp_tools`.

:mod:`.connection`, :mod:`.stdio`, :mod:`.http` and :mod:`.elicitation` import the ``mcp`` SDK
(about 0.5 s); they are imported only when a server is first connected. :mod:`.limits`,
:mod:`.mcp_errors`, :mod:`.result_text`, :mod:`.spec` and :mod:`.listing` are light.
"""
