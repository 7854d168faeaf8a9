"""The run engine: the model client (:mod:`.llm`), one run and its tool loop (:mod:`.run`, with
the Interaction seam), child processes (:mod:`.processes`), tool sources and their policy
(:mod:`.tools`), the MCP client (:mod:`.mcp`), the workflow executor (:mod:`.workflow`), the
embedded GGUF model (:mod:`.embedded`) and what a run leaves behind (:mod:`.records`).

Nothing is imported here on purpose: ``lait lint`` and ``lait --version`` must never import
httpx, mcp or anyio, so callers import the submodules they need (only run commands do).
"""
