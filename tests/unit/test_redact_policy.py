"""Which values lait remembers as secrets (lait_core.support.redact): a remembered value is masked in every
later text of the process, and lait-ls lives for a whole editing session, so short values and URL
query values that are not credentials are not remembered (docs/decisions.md, "Secrets")."""

from __future__ import annotations

from lait_core.support.redact import add_secret, add_url_secrets, mask_secrets, redact


def test_values_shorter_than_eight_characters_are_not_remembered() -> None:
    add_secret("json")
    add_secret("abc1234")
    add_secret("abcd1234")
    text = "json abc1234 abcd1234"
    assert mask_secrets(text) == "json abc1234 ***"
    assert redact(text) == "json abc1234 ***"


def test_only_credential_like_or_long_query_values_are_remembered() -> None:
    url = (
        "https://llm.example/v1?api-version=2024-06-01&page=12345678"
        "&api_key=sk-short1&X-Amz-Signature=0a1b2c3d&opaque=zq9w8e7r6t5y4u3i2o1p"
    )
    add_url_secrets(url)
    text = "2024-06-01 12345678 sk-short1 0a1b2c3d zq9w8e7r6t5y4u3i2o1p"
    assert mask_secrets(text) == "2024-06-01 12345678 *** *** ***"
    # inside the URL itself every query value is still masked, whatever its length or name
    assert redact(url) == (
        "https://llm.example/v1?api-version=***&page=***&api_key=***&X-Amz-Signature=***&opaque=***"
    )


def test_url_passwords_and_token_user_names_are_remembered() -> None:
    add_url_secrets("https://user:pa55word-long@mcp.example/mcp")
    add_url_secrets("https://ghp_tokenAsUserName@git.example/")
    assert mask_secrets("user pa55word-long ghp_tokenAsUserName") == "user *** ***"
