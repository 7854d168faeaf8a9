"""Where the run history and the MCP OAuth token files go: ``$XDG_DATA_HOME/lait``, with the XDG
rule that an unset or relative ``XDG_DATA_HOME`` means ``~/.local/share``."""

from __future__ import annotations

from pathlib import Path

from lait_core.engine.mcp.oauth.token_store import data_dir
from lait_core.engine.records.run_history import history_path
from lait_core.support.userdata import data_home


def test_an_absolute_xdg_data_home_is_used() -> None:
    env = {"XDG_DATA_HOME": "/srv/data", "HOME": "/home/ada"}
    assert data_home(env) == Path("/srv/data/lait")
    assert history_path(env) == Path("/srv/data/lait/history.jsonl")
    assert data_dir(env) == Path("/srv/data/lait/mcp-oauth")


def test_an_unset_or_relative_xdg_data_home_means_the_home_folder() -> None:
    for env in (
        {"HOME": "/home/ada"},
        {"HOME": "/home/ada", "XDG_DATA_HOME": "data"},
        {"HOME": "/home/ada", "XDG_DATA_HOME": ""},
    ):
        assert data_home(env) == Path("/home/ada/.local/share/lait"), env
        assert history_path(env) == Path("/home/ada/.local/share/lait/history.jsonl")
        assert data_dir(env) == Path("/home/ada/.local/share/lait/mcp-oauth")
