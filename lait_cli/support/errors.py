"""How a failed run ends (docs/cli.md): the exit code by the error *types* in the cause
chain, never by message text, and the one-line ``lait: <error chain>`` message. Shared by chat,
``lait run`` and ``lait agent run``.

Top-level imports are the standard library only.
"""

from __future__ import annotations


def _chain(exc: BaseException, *, context: bool) -> list[BaseException]:
    """``exc`` and its causes (with ``context``: also implicit contexts not suppressed)."""
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in out):
        out.append(current)
        nxt = current.__cause__
        if nxt is None and context and not current.__suppress_context__:
            nxt = current.__context__
        current = nxt
    return out


def error_message(exc: BaseException) -> str:
    """The error chain in one line: the outer message, then causes it does not already contain."""
    from lait_core.engine.llm.chat_types import error_chain_text

    return error_chain_text(exc)


def classify_chain(exc: BaseException, sigint: bool) -> tuple[int, str]:
    """Exit code and message of a failed run (docs/cli.md), by the types in the cause
    chain: 130 after SIGINT, 3 a workflow, agent or skill file that does not validate, 4 a model API error, 5 a
    ``timeout:`` or a cancellation, 1 any other engine error. Other exceptions are re-raised."""
    import asyncio

    from lait_core.engine.llm.chat_types import DocumentInvalid, EngineError, Interrupted, LlmError

    if sigint:
        return 130, "interrupted"
    chain = _chain(exc, context=True)
    message = error_message(exc)
    if any(isinstance(e, DocumentInvalid) for e in chain):
        return 3, message
    if any(isinstance(e, LlmError) for e in chain):
        return 4, message
    if any(isinstance(e, Interrupted | asyncio.CancelledError) for e in chain):
        return 5, message
    if any(isinstance(e, EngineError | OSError) for e in chain):
        return 1, message
    raise exc
