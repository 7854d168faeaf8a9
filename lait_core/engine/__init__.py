"""The run engine: the OpenAI-compatible client, model resolution, tool sources, policy, the
Interaction seam and the tool loop.

Nothing is imported here on purpose: ``lait lint`` and ``lait --version`` must never import
httpx, mcp or anyio, so callers import the submodules they need (only run commands do).

Public modules: :mod:`.models` (messages, requests, responses, errors), :mod:`.resolve`,
:mod:`.llm`, :mod:`.interaction`, :mod:`.policy`, :mod:`.tools`, :mod:`.process`, :mod:`.loop`.
"""
