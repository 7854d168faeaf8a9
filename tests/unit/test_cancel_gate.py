"""lait_core.support.cancel: work on the language server's lint thread makes way for the request loop. While
a Gate is closed, work whose token holds it waits at its next checkpoint (without the GIL); it goes
on when the last closer is done, and a cancel still stops it there."""

from __future__ import annotations

import threading

import pytest

from lait_core.support.cancel import Cancelled, CancelToken, Gate, cancellable, checkpoint


def run_checkpoints(token: CancelToken, passed: threading.Event, outcome: list[str]) -> None:
    with cancellable(token):
        try:
            checkpoint()
        except Cancelled:
            outcome.append("cancelled")
        else:
            outcome.append("passed")
        finally:
            passed.set()


def test_work_waits_at_a_checkpoint_while_the_gate_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Gate, "WAIT_SECONDS", 60.0)
    gate = Gate()
    token = CancelToken(gate)
    passed = threading.Event()
    outcome: list[str] = []
    with gate.closed():
        with gate.closed():  # nested closers: open only when the last is done
            worker = threading.Thread(target=run_checkpoints, args=(token, passed, outcome))
            worker.start()
            assert not passed.wait(0.3)
        assert not passed.wait(0.3)
    assert passed.wait(10)
    worker.join(10)
    assert outcome == ["passed"]


def test_a_cancel_still_stops_the_work_at_the_checkpoint_it_waited_at(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Gate, "WAIT_SECONDS", 60.0)
    gate = Gate()
    token = CancelToken(gate)
    passed = threading.Event()
    outcome: list[str] = []
    with gate.closed():
        worker = threading.Thread(target=run_checkpoints, args=(token, passed, outcome))
        worker.start()
        assert not passed.wait(0.3)
        token.cancel()
    assert passed.wait(10)
    worker.join(10)
    assert outcome == ["cancelled"]


def test_work_without_a_gate_and_outside_cancellable_never_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Gate, "WAIT_SECONDS", 60.0)
    gate = Gate()
    with gate.closed():
        checkpoint()  # no current token (the CLI): returns at once
        with cancellable(CancelToken()):
            checkpoint()  # a token without a gate
    with cancellable(CancelToken(gate)):
        checkpoint()  # the gate is open again
