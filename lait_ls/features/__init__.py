"""One module per LSP feature; each exposes ``register(server)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lait_ls.server import LaitServer


def register_all(server: LaitServer) -> None:
    import importlib
    import pkgutil

    import lait_ls.features as pkg

    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"lait_ls.features.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(server)
