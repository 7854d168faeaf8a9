"""The quick fixes of the security rules: applied to the text, the finding is gone and the file
still loads (LAIT601 inserts '--' in flow and block sequences; LAIT603 swaps the secret for a
${VAR} placeholder, keeping an Authorization scheme). The secret never appears in a message."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.documents.config_file import ConfigMode
from lait_core.lint.discovery import FileKind
from lait_core.lint.engine import Linter, LintOptions
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.positions import LineIndex

CONFIG = Path("/nonexistent-project/lait.config.yml")


def lint(text: str) -> list[Diagnostic]:
    return Linter(LintOptions(ConfigMode.DISABLED)).lint_text(text, CONFIG, FileKind.CONFIG)


def fixed(text: str, code: str) -> str:
    """``text`` with the first fix of every ``code`` finding applied (from the end backwards)."""
    index = LineIndex(text)
    edits = []
    for diag in lint(text):
        if diag.code == code:
            assert diag.fixes, diag
            fix = diag.fixes[0]
            edits.append((index.offset(fix.range.start), index.offset(fix.range.end), fix.text))
    assert edits, f"no {code} in {text!r}"
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "tools:\n  g:\n    command: [rg, '{{ input.p }}', .]\n",
            "tools:\n  g:\n    command: [rg, '--', '{{ input.p }}', .]\n",
        ),
        (
            'tools:\n  g:\n    command:\n      - rg\n      -   "{{ input.p }}"\n',
            "tools:\n  g:\n    command:\n      - rg\n      -   '--'\n      -   \"{{ input.p }}\"\n",
        ),
    ],
)
def test_option_injection_fix_inserts_a_double_dash(before: str, after: str) -> None:
    assert fixed(before, "LAIT601") == after
    assert [d.code for d in lint(after)] == []


SECRETS = """api_key: sk-proj-4f9a8b7c6d5e4f3a2b1c
models:
  fast:
    - provider: {base_url: 'http://h/v1', api_key: 'gsk_0123456789abcdef'}
      model_id: m
mcp_servers:
  remote:
    url: https://mcp.example.com/mcp
    headers:
      Authorization: Bearer abcdefgh12345678
  local:
    command: server
    env: {GITHUB_TOKEN: "ghp_aaaaaaaaaaaaaaaaaaaa"}
"""


def test_literal_secret_fix_uses_placeholders_and_messages_never_show_the_secret() -> None:
    findings = [d for d in lint(SECRETS) if d.code == "LAIT603"]
    assert len(findings) == 4
    for secret in ("sk-proj-4f9a8b7c6d5e4f3a2b1c", "gsk_0123456789abcdef", "abcdefgh12345678", "ghp_aaaa"):
        assert all(secret not in d.message for d in findings)
    after = fixed(SECRETS, "LAIT603")
    assert 'api_key: "${LAIT_API_KEY}"' in after
    assert 'api_key: "${FAST_API_KEY}"' in after
    assert 'Authorization: "Bearer ${REMOTE_TOKEN}"' in after
    assert 'GITHUB_TOKEN: "${GITHUB_TOKEN}"' in after
    # the keys now come from the environment, which the stdio server inherits: LAIT605 says so
    assert [d.code for d in lint(after)] == ["LAIT605"]


def test_the_global_config_is_not_checked_for_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    path = tmp_path / "lait" / "config.yml"
    findings = Linter(LintOptions(ConfigMode.DISABLED)).lint_text(SECRETS, path, FileKind.CONFIG)
    assert [d.code for d in findings] == []
