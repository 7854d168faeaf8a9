"""OAuth 2.1 sign-in for streamable-HTTP MCP servers (the MCP authorization spec, 2025-11-25).

* :mod:`.oauth_settings` -- what ``mcp_servers.<name>.oauth`` asks for (pre-registered client, scopes).
* :mod:`.token_store` -- where tokens and client registrations live: the OS keyring when a usable one
  is installed, else one file per server under ``$XDG_DATA_HOME/lait/mcp-oauth/`` (mode 0600).
* :mod:`.signin` -- who shows the authorization URL: the terminal, the editor (``lait_ls``), or
  nobody (headless runs fail at once with "sign in with `lait mcp login NAME`").
* :mod:`.callback` -- the loopback listener that catches the authorization server's redirect.
* :mod:`.provider` -- the ``httpx2`` auth of one connection, built on the ``mcp`` SDK's
  ``OAuthClientProvider`` (discovery, registration, PKCE, ``resource``, refresh, step-up).
* :mod:`.login` -- ``lait mcp login NAME`` / ``lait mcp logout NAME``.

Only :mod:`.provider` and :mod:`.login` import the ``mcp`` SDK; nothing here is imported by
``lait lint`` or ``lait --version``.
"""
