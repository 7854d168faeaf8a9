"""Errors of a workflow run. The CLI classifies them by type (walking ``__cause__``), never by text:

* :class:`WorkflowLoadError` -- a workflow file (the top one or a child) does not validate or
  cannot be read: exit code 3 (validation).
* :class:`~lait_core.engine.llm.chat_types.Interrupted` subclasses :class:`StepTimedOut` and
  :class:`WorkflowTimedOut` -- a ``timeout:`` deadline: exit code 5.
* :class:`~lait_core.engine.llm.chat_types.LlmError` anywhere in the ``__cause__`` chain: exit code 4.
* everything else (:class:`WorkflowError`, :class:`StepFailed` around other causes): exit code 1.

:class:`StepFailed` puts the step label in front of its cause, so ``str()`` of the outermost error
is the whole chain (``step 'outer': step 'inner': command 'x' failed ...``).
"""

from __future__ import annotations

from collections.abc import Sequence

from lait_core.engine.llm.chat_types import DocumentInvalid, EngineError, Interrupted, error_chain_text
from lait_core.syntax.diagnostics import Diagnostic


class WorkflowError(EngineError):
    """A workflow run failed for a reason of its own (bad inputs, a cycle, a failed check)."""


class WorkflowLoadError(WorkflowError, DocumentInvalid):
    """A workflow file did not validate; nothing of it ran. ``str()`` lists every error as
    ``file:line:col: CODE message``."""

    def __init__(self, path: str, diagnostics: Sequence[Diagnostic], message: str | None = None) -> None:
        """``message`` is given when the file could not be read at all."""
        unreadable = message is not None
        if message is None:
            lines = [
                f"{path}:{d.range.start.line + 1}:{d.range.start.character + 1}: {d.code} {d.message}"
                for d in diagnostics
            ]
            from lait_core.lint.findings import ProblemCount

            count = ProblemCount.of(diagnostics).describe()
            message = f"'{path}' is not a valid workflow ({count}):\n" + "\n".join(lines)
        super().__init__(message, path=path, diagnostics=diagnostics, unreadable=unreadable)


class DecideNotSupported(WorkflowError):
    def __init__(self) -> None:
        super().__init__(
            "decide steps are not supported yet (the file is valid, but lait cannot run 'decide:')"
        )


class StepFailed(WorkflowError):
    """A step failed after its retries (and had no ``on_error``); ``__cause__`` is the reason."""

    def __init__(self, label: str, cause: BaseException) -> None:
        self.label = label
        self.cause = cause
        super().__init__(f"step '{label}': {error_text(cause)}")


class StepTimedOut(Interrupted):
    def __init__(self, label: str, seconds: int, attempt: int, max_attempts: int) -> None:
        super().__init__(
            "timed_out", f"step '{label}' timed out after {seconds}s (attempt {attempt}/{max_attempts})"
        )
        self.label = label
        self.seconds = seconds


class WorkflowTimedOut(Interrupted):
    def __init__(self, seconds: int, path: str) -> None:
        super().__init__("timed_out", f"workflow timed out after {seconds}s ('timeout')")
        self.seconds = seconds
        self.path = path


def error_text(exc: BaseException) -> str:
    """The error chain of ``exc`` in one line (``on_error``'s ``error``, failed-step events)."""
    return error_chain_text(exc)
