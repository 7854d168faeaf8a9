"""The opaque ``requestState`` of 2026-07-28 ``input_required`` results (issue 15).

A served run that waits for a person stays alive in the server; the state names it (run id,
round, tool, expiry) and is signed with HMAC-SHA256 under a key made fresh for each process, so a
client cannot forge another run's state or replay an old round: :meth:`StateSeal.open` raises
:class:`StateError` for anything this process did not mint unmodified, and the server rejects a
genuine state whose run is gone or whose round was already answered. The payload is readable
(base64 JSON) but holds nothing secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass

_PREFIX = "lait1"
MAX_STATE_CHARS = 4096


class StateError(Exception):
    """A ``requestState`` that is malformed, forged, tampered with, expired or stale."""


@dataclass(frozen=True, slots=True)
class RunState:
    run: str
    round: int
    tool: str
    expires: float


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class StateSeal:
    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else secrets.token_bytes(32)

    def _mac(self, body: str) -> bytes:
        return hmac.new(self._key, f"{_PREFIX}.{body}".encode("ascii"), hashlib.sha256).digest()

    def seal(self, state: RunState) -> str:
        payload = {"run": state.run, "round": state.round, "tool": state.tool, "exp": round(state.expires, 3)}
        body = _b64(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8"))
        return f"{_PREFIX}.{body}.{_b64(self._mac(body))}"

    def open(self, token: str, *, now: float | None = None) -> RunState:
        if not isinstance(token, str) or len(token) > MAX_STATE_CHARS:
            raise StateError("the requestState is not one this server issued")
        parts = token.split(".")
        if len(parts) != 3 or parts[0] != _PREFIX:
            raise StateError("the requestState is not one this server issued")
        _, body, mac = parts
        try:
            given = _unb64(mac)
        except (binascii.Error, ValueError):
            raise StateError("the requestState is not one this server issued") from None
        if not hmac.compare_digest(given, self._mac(body)):
            raise StateError(
                "the requestState failed its integrity check (it was altered, or issued by another "
                "server process)"
            )
        try:
            payload = json.loads(_unb64(body))
            state = RunState(
                str(payload["run"]), int(payload["round"]), str(payload["tool"]), float(payload["exp"])
            )
        except (binascii.Error, ValueError, KeyError, TypeError):
            raise StateError("the requestState is not one this server issued") from None
        if (time.time() if now is None else now) > state.expires:
            raise StateError("the requestState has expired; call the tool again")
        return state


__all__ = ["RunState", "StateError", "StateSeal"]
