"""``httpx``, imported without what lait never uses from it.

- httpcore 1.0 imports ``trio`` at import time whenever it is installed, only to support code that
  runs under trio; lait runs on asyncio.
- httpx's ``__init__`` imports its command-line client (``httpx._main``: rich, click, pygments)
  whenever they are installed, only to offer ``httpx.main``.

Together they were about half of a chat's start-up (issue 17). So while httpx and httpcore are first
imported, ``import trio`` and ``import httpx._main`` fail (their ``sys.modules`` entries are None),
which both libraries handle as "not installed": httpcore keeps its "no trio" setting and ``httpx.main``
is a stub saying the CLI is not installed. Modules imported already are left alone. Import httpx from
here: ``from lait_core.support.httpx_import import httpx``.
"""

from __future__ import annotations

import sys

_blocked = [
    name for name in ("trio", "httpx._main") if name not in sys.modules and "httpcore" not in sys.modules
]
for _name in _blocked:
    sys.modules[_name] = None  # type: ignore[assignment]
try:
    import httpcore  # noqa: F401  (imported here so that it sees no trio)
    import httpx as httpx
finally:
    for _name in _blocked:
        if _name in sys.modules and sys.modules[_name] is None:
            del sys.modules[_name]

__all__ = ["httpx"]
