"""Loaded GGUF models: one ``llama_cpp.Llama`` per file per process, used by one generation at a
time, with generations that stop between tokens when cancelled.

Everything here blocks; :mod:`.transport` calls it from worker threads. ``llama_cpp`` is imported
on first load only.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.engine.embedded.chatml import EmbeddedRequestError
from lait_core.engine.embedded.locate import require_llama_cpp
from lait_core.engine.llm.chat_types import ConfigurationError, JsonObject, LlmResponseError

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_grammar import LlamaGrammar

LOCK_POLL = 0.05
"""Seconds between checks for cancellation while waiting for the model."""


class Cancelled(Exception):
    """The generation was cancelled (the waiting coroutine is gone)."""


THREADS_VARIABLE = "LAIT_EMBEDDED_THREADS"


def default_threads(environ: Mapping[str, str] | None = None) -> int:
    """Threads for prompt evaluation and decoding: ``$LAIT_EMBEDDED_THREADS``, else every core that
    is not already busy (cores minus the 1-minute load average, at least 1).

    llama.cpp's threads wait for each other at every step by spinning, so more threads than free
    cores is far slower than fewer: on 2 cores at load 7, 2 threads took 16-65 s for what 1 thread
    did in 4 s. On an idle machine this is every core (llama.cpp itself defaults to half).
    """
    env = os.environ if environ is None else environ
    configured = env.get(THREADS_VARIABLE, "").strip()
    if configured:
        if not configured.isdigit() or int(configured) < 1:
            raise ConfigurationError(f"${THREADS_VARIABLE} must be a positive integer (got '{configured}')")
        return int(configured)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        busy = int(os.getloadavg()[0])
    except (OSError, AttributeError):
        busy = 0
    return max(1, min(cores, cores - busy))


@dataclass(frozen=True, slots=True)
class Grammar:
    """A GBNF grammar, or a JSON Schema turned into one (any JSON when the schema cannot be)."""

    gbnf: str | None = None
    schema: JsonObject | None = None
    any_json: bool = False

    def build(self) -> LlamaGrammar:
        from llama_cpp.llama_grammar import JSON_GBNF, LlamaGrammar

        if self.gbnf is not None:
            return LlamaGrammar.from_string(self.gbnf, verbose=False)
        if self.schema is not None:
            try:
                return LlamaGrammar.from_json_schema(json.dumps(self.schema), verbose=False)
            except Exception:  # the converter raises bare Exceptions on unsupported schemas
                pass
        return LlamaGrammar.from_string(JSON_GBNF, verbose=False)


@dataclass(frozen=True, slots=True)
class Generated:
    text: str
    finish_reason: str
    tokens: int


class LocalModel:
    """One loaded GGUF file. :meth:`exclusive` serializes its users (llama contexts are not
    thread-safe); :meth:`generate` must be called inside it."""

    def __init__(self, path: Path, llama: Llama) -> None:
        self.path = path
        self._llama = llama
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def exclusive(self, cancel: threading.Event) -> Iterator[None]:
        while not self._lock.acquire(timeout=LOCK_POLL):
            if cancel.is_set():
                raise Cancelled
        try:
            yield
        finally:
            self._lock.release()

    def close(self) -> None:
        """Free the llama context, unless a generation still holds it (then leave it be)."""
        if not self._lock.acquire(timeout=1.0):
            return
        try:
            with contextlib.suppress(Exception):
                self._llama.close()
        finally:
            self._lock.release()

    def count_tokens(self, text: str) -> int:
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def generate(
        self,
        prompt: str,
        *,
        max_tokens: int,
        temperature: float,
        top_p: float,
        seed: int | None,
        stop: list[str],
        cancel: threading.Event,
        grammar: Grammar | None = None,
        on_text: Callable[[str], None] | None = None,
        repeat_penalty: float = 1.0,
        halt: Callable[[str], bool] | None = None,
    ) -> Generated:
        """Complete ``prompt``; ``on_text`` receives the text as it is produced. ``halt`` sees the
        text so far after each piece; when it says so, generation stops with finish reason
        ``"halted"``."""
        kwargs: dict[str, Any] = {"repeat_penalty": repeat_penalty}
        if seed is not None:
            kwargs["seed"] = seed
        try:
            chunks = self._llama.create_completion(
                prompt,
                max_tokens=max_tokens,
                temperature=temperature,
                top_p=top_p,
                stop=stop,
                stream=True,
                grammar=grammar.build() if grammar is not None else None,
                stopping_criteria=_cancel_criteria(cancel),
                **kwargs,
            )
            pieces: list[str] = []
            finish = "stop"
            for chunk in chunks:
                assert isinstance(chunk, dict)
                choice = chunk["choices"][0]
                piece = choice.get("text") or ""
                if piece:
                    pieces.append(piece)
                    if on_text is not None:
                        on_text(piece)
                    if halt is not None and halt("".join(pieces)):
                        finish = "halted"
                        break
                reason = choice.get("finish_reason")
                if reason:
                    finish = str(reason)
                if cancel.is_set():
                    break
        except ValueError as exc:
            if "exceed context window" in str(exc):
                raise EmbeddedRequestError(
                    f"the request is too long for the embedded model: {exc}; shorten the conversation "
                    "or the tool results"
                ) from None
            raise LlmResponseError(f"the embedded model failed: {exc}") from None
        except RuntimeError as exc:  # llama.cpp decode failures
            raise LlmResponseError(f"the embedded model failed: {exc}") from None
        if cancel.is_set():
            raise Cancelled
        text = "".join(pieces)
        return Generated(text, finish, self.count_tokens(text))


def _cancel_criteria(cancel: threading.Event) -> Any:
    from llama_cpp import StoppingCriteriaList

    return StoppingCriteriaList([lambda _ids, _logits: cancel.is_set()])


_MODELS: dict[str, LocalModel] = {}
_LOAD_LOCK = threading.Lock()


def load_model(path: Path, *, threads: int | None = None) -> LocalModel:
    """The loaded model of ``path``, loading it on first use (once per process, whatever thread)."""
    key = os.path.realpath(path)
    with _LOAD_LOCK:
        model = _MODELS.get(key)
        if model is not None:
            return model
        if not os.path.isfile(key):
            raise ConfigurationError(f"the GGUF model file '{path}' does not exist")
        require_llama_cpp()
        from llama_cpp import Llama

        n = threads or default_threads()
        try:
            llama = Llama(model_path=key, n_ctx=0, n_threads=n, n_threads_batch=n, verbose=False, seed=0)
        except (ValueError, RuntimeError, OSError) as exc:
            raise ConfigurationError(f"cannot load '{path}' as a GGUF model: {exc}") from None
        model = LocalModel(Path(key), llama)
        if not _MODELS:
            atexit.register(_close_all)
        _MODELS[key] = model
        return model


def _close_all() -> None:
    """Free the models before interpreter shutdown: left to ``Llama.__del__``, freeing runs after
    llama_cpp's module globals are gone and prints an ignored-exception traceback."""
    with _LOAD_LOCK:
        models = list(_MODELS.values())
        _MODELS.clear()
    for model in models:
        model.close()


def loaded_models() -> list[Path]:
    """The files loaded in this process (for tests and diagnostics)."""
    with _LOAD_LOCK:
        return [m.path for m in _MODELS.values()]
