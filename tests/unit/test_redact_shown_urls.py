"""lait_core.support.redact.show_url: a URL the person must open passes redaction whole; others do not."""

from __future__ import annotations

from lait_core.support.redact import add_secret, redact, show_url


def test_a_shown_url_keeps_its_query_but_not_remembered_secrets() -> None:
    url = "http://127.0.0.1:9/authorize?state=abc123&code_challenge=xyz"
    assert redact(f"open {url}.") == "open http://127.0.0.1:9/authorize?state=***&code_challenge=***."
    show_url(url)
    assert redact(f"open {url}.") == f"open {url}."
    assert redact("http://127.0.0.1:9/authorize?state=other") == "http://127.0.0.1:9/authorize?state=***"
    add_secret("xyz-canary-secret")
    secret_url = "http://127.0.0.1:9/x?token=xyz-canary-secret"
    show_url(secret_url)
    assert "xyz-canary-secret" not in redact(secret_url)
