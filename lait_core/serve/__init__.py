"""``lait serve --mcp``: a project's agents and workflows as tools for any MCP client
(docs/mcp.md; issue 15 goes further: a run's questions for a person are forwarded to the
calling client, in both protocol eras).

Modules: ``tools`` (what is exposed, with schemas; also ``--list`` and the editor's hover),
``server`` (the SDK server and the shared services), ``calls`` (one run per call, parked runs of
2026-07-28 ``input_required`` rounds), ``state`` (the sealed ``requestState``), ``interaction``
(the served Interaction), ``transports`` (stdio, streamable HTTP), ``main`` (the command).
"""
