"""The MCP sign-in's token store (OS keyring when usable, else 0600 files), its loopback
listener and its config accessor."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import httpx2
import keyring
import pytest
from keyring.backend import KeyringBackend as BaseKeyring
from keyring.backends import fail

from lait_core.engine.llm.chat_types import ConfigurationError
from lait_core.engine.mcp.oauth.callback import Callback, SignInCancelled
from lait_core.engine.mcp.oauth.oauth_settings import oauth_settings
from lait_core.engine.mcp.oauth.token_store import (
    KeyringBackend,
    TokenStore,
    forget_keyring,
    server_key,
    usable_keyring,
)
from lait_core.support.redact import forget_secrets, redact

URL = "https://user:pw@MCP.Example.com:8443/v1/mcp/?key=abc#x"
RECORD = {"tokens": {"access_token": "canary-access-1234", "refresh_token": "canary-refresh-5678"}}


class MemoryKeyring(BaseKeyring):
    priority = 5  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        from keyring.errors import PasswordDeleteError

        if self.items.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


class BrokenKeyring(MemoryKeyring):
    def set_password(self, service: str, username: str, password: str) -> None:
        from keyring.errors import PasswordSetError

        raise PasswordSetError("locked")


def env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}


def test_server_key_drops_credentials_query_and_case() -> None:
    assert server_key(URL) == "https://mcp.example.com:8443/v1/mcp"
    assert server_key("http://[::1]/mcp") == "http://[::1]/mcp"


def test_file_store_modes_round_trip_and_delete(tmp_path: Path) -> None:
    forget_secrets()
    store = TokenStore(env(tmp_path), backend=None)
    store.backend = store.files  # whatever this machine's keyring: the file backend
    store.save(URL, dict(RECORD))
    [path] = (tmp_path / "data" / "lait" / "mcp-oauth").glob("*.json")
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert "key=abc" not in path.read_text() and "pw" not in path.read_text()
    assert store.load("https://mcp.example.com:8443/v1/mcp")["tokens"] == RECORD["tokens"]
    assert redact("got canary-access-1234 and canary-refresh-5678") == "got *** and ***"
    assert store.update(URL, tokens=None, scope_needed="a b") == {
        "scope_needed": "a b",
        "server": server_key(URL),
    }
    assert store.delete(URL) is True and store.delete(URL) is False
    assert store.load(URL) == {}


def test_file_store_ignores_fifos_big_and_foreign_records(tmp_path: Path) -> None:
    store = TokenStore(env(tmp_path))
    store.backend = store.files
    path = store.files.path(server_key(URL))
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    assert store.load(URL) == {}  # refused, never opened for a blocking read
    path.unlink()
    path.write_text("x" * (70 * 1024))
    assert store.load(URL) == {}
    path.write_text('{"server": "https://other.example/mcp", "tokens": {"access_token": "x"}}')
    assert store.load(URL) == {}


def test_keyring_used_when_usable_and_files_as_fallback(tmp_path: Path) -> None:
    previous = keyring.get_keyring()
    try:
        keyring.set_keyring(fail.Keyring())
        forget_keyring()
        assert usable_keyring() is None
        assert TokenStore(env(tmp_path)).backend.name == "file"
        memory = MemoryKeyring()
        keyring.set_keyring(memory)
        assert usable_keyring() is None  # looked up once per process
        forget_keyring()
        assert usable_keyring() is memory
        store = TokenStore(env(tmp_path))
        assert isinstance(store.backend, KeyringBackend)
        store.save(URL, dict(RECORD))
        assert list(memory.items) == [("lait-mcp-oauth", server_key(URL))]
        assert not list((tmp_path / "data").rglob("*.json"))
        assert store.load(URL)["tokens"] == RECORD["tokens"]
        assert store.delete(URL) is True and memory.items == {}

        broken = TokenStore(env(tmp_path), backend=KeyringBackend(BrokenKeyring()))
        broken.save(URL, dict(RECORD))  # the keyring refuses: the file keeps it
        assert broken.load(URL)["tokens"] == RECORD["tokens"]
        assert len(list((tmp_path / "data").rglob("*.json"))) == 1
    finally:
        keyring.set_keyring(previous)
        forget_keyring()


async def test_callback_answers_only_its_path_and_reports_errors() -> None:
    callback = Callback("conf")
    await callback.start()
    try:
        async with httpx2.AsyncClient() as http:
            base = callback.redirect_uri
            assert (await http.get(base.replace("/callback", "/other?state=s&code=c"))).status_code == 404
            assert (await http.get(base)).status_code == 404  # no state: not a redirect
            answer = await http.get(base + "?state=s1&error=access_denied&error_description=no")
            assert answer.status_code == 200 and "Sign-in failed" in answer.text
        redirect = await callback.wait()
        assert (redirect.state, redirect.error, redirect.error_description, redirect.code) == (
            "s1",
            "access_denied",
            "no",
            None,
        )
        callback.renew()
        callback.cancel()
        with pytest.raises(SignInCancelled):
            await asyncio.wait_for(callback.wait(), 5)
    finally:
        await callback.close()


class Block:
    def __init__(self, **values: Any) -> None:
        self.oauth = values or None


def test_settings_accessor() -> None:
    environ = {"SECRET": "s3cret-value", "ID": "cid"}
    got = oauth_settings(
        "conf", Block(client_id="${ID}", client_secret_env="SECRET", scopes=["a", "b"]), environ
    )
    assert (got.client_id, got.client_secret, got.scopes) == ("cid", "s3cret-value", ("a", "b"))
    assert redact("s3cret-value") == "***"
    with pytest.raises(ConfigurationError, match="names MISSING, which is not set"):
        oauth_settings("conf", Block(client_secret_env="MISSING"), environ)
    with pytest.raises(ConfigurationError, match="must be an https URL with a path"):
        oauth_settings("conf", Block(client_metadata_url="http://x.example/doc"), environ)
    assert oauth_settings("conf", Block(), environ).client_id is None


def test_who_may_show_a_sign_in() -> None:
    """Headless runs (tests, CI, lait serve, no terminal) have no presenter: a needed sign-in fails
    at once; a terminal has one only when a person can be there."""
    import io

    from lait_cli.support.terminal_dialogs import TerminalInteraction
    from lait_core.engine.mcp.oauth.signin import TerminalSignIn, presenter_of, terminal_presenter
    from lait_core.engine.run.interaction import HeadlessInteraction
    from lait_core.serve.call_interaction import ServedInteraction

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert presenter_of(HeadlessInteraction()) is None
    assert not hasattr(ServedInteraction, "sign_in_presenter")
    assert presenter_of(TerminalInteraction(stdin=io.StringIO(), stderr=io.StringIO())) is None
    assert isinstance(terminal_presenter(Tty(), Tty(), {}), TerminalSignIn)
    assert terminal_presenter(Tty(), Tty(), {"CI": "true"}) is None
    assert isinstance(terminal_presenter(Tty(), Tty(), {"CI": "false"}), TerminalSignIn)
    assert terminal_presenter(io.StringIO(), Tty(), {}) is None
