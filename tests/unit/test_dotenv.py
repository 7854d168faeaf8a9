"""lait_core.documents.dotenv: parsing ``.env`` files and loading ``./.env``."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.documents.dotenv import DotenvError, load_dotenv, parse_dotenv


def _error(text: str, path: str = ".env") -> str:
    with pytest.raises(DotenvError) as info:
        parse_dotenv(text, path)
    assert str(info.value) == info.value.message
    return info.value.message


def test_simple_assignments() -> None:
    assert parse_dotenv("A=1\nB=two\n") == {"A": "1", "B": "two"}


def test_blank_lines_and_comments_are_skipped() -> None:
    text = "\n   \n# comment\n   # indented comment\n\tA=1\n"
    assert parse_dotenv(text) == {"A": "1"}


def test_export_prefix() -> None:
    assert parse_dotenv("export A=1\nexport\tB=2\nexportC=3") == {"A": "1", "B": "2", "exportC": "3"}


def test_key_trailing_blanks_and_value_leading_blanks() -> None:
    assert parse_dotenv("A \t=  \t value") == {"A": "value"}


def test_value_split_at_first_equals() -> None:
    assert parse_dotenv("URL=http://x/?a=b&c=d") == {"URL": "http://x/?a=b&c=d"}


def test_empty_values() -> None:
    assert parse_dotenv("A=\nB=   \nC= # comment\nD=''\nE=\"\"") == {
        "A": "",
        "B": "",
        "C": "",
        "D": "",
        "E": "",
    }


def test_bare_value_comments() -> None:
    text = "A=abc # comment\nB=a#b\nC=x\t# tab comment\nD=#not-a-comment\nE=trailing   \t"
    assert parse_dotenv(text) == {"A": "abc", "B": "a#b", "C": "x", "D": "#not-a-comment", "E": "trailing"}


def test_bare_value_keeps_inner_spaces_and_quotes() -> None:
    assert parse_dotenv('A=hello  world\nB=it\'s\nC=say "hi"') == {
        "A": "hello  world",
        "B": "it's",
        "C": 'say "hi"',
    }


def test_double_quoted_escapes() -> None:
    text = r'A="line1\nline2\ttab\rcr \\ back \" quote"'
    assert parse_dotenv(text) == {"A": 'line1\nline2\ttab\rcr \\ back " quote'}


def test_double_quoted_keeps_hash_and_spaces() -> None:
    assert parse_dotenv('A="  a # b  "  # comment') == {"A": "  a # b  "}


def test_single_quoted_is_literal() -> None:
    assert parse_dotenv(r"A='raw \n $HOME # x'") == {"A": r"raw \n $HOME # x"}


@pytest.mark.parametrize("escape", ["\\a", "\\$", "\\'", "\\u0041", "\\0"])
def test_invalid_escape(escape: str) -> None:
    message = _error(f'X=1\nA="a{escape}"')
    assert message.startswith(f".env:2: invalid escape '{escape[:2]}' in a double-quoted value")


def test_dangling_backslash() -> None:
    assert _error('A="abc\\') == ".env:1: dangling '\\' at the end of a line in a double-quoted value"


def test_text_after_closing_quote() -> None:
    assert _error("\nA='x' y") == ".env:2: unexpected text after the closing ': 'y'"
    assert _error('A="x"y') == ".env:1: unexpected text after the closing \": 'y'"


def test_comment_after_closing_quote() -> None:
    assert parse_dotenv("A='x'#c\nB=\"y\"   # c\nC='z'   ") == {"A": "x", "B": "y", "C": "z"}


def test_multiline_double_quoted_value() -> None:
    text = 'KEY="-----BEGIN KEY-----\nabc\\tdef\n-----END KEY-----"\nNEXT=1'
    assert parse_dotenv(text) == {"KEY": "-----BEGIN KEY-----\nabc\tdef\n-----END KEY-----", "NEXT": "1"}


def test_multiline_single_quoted_value_is_verbatim() -> None:
    text = "PEM='-----BEGIN-----\n  indented \\n\n\n# not a comment\n-----END-----'  # done\nB=2"
    assert parse_dotenv(text) == {
        "PEM": "-----BEGIN-----\n  indented \\n\n\n# not a comment\n-----END-----",
        "B": "2",
    }


def test_unterminated_quote_cites_the_starting_line() -> None:
    assert _error("A=1\n\nB='abc\ndef\n") == ".env:3: unterminated single-quoted value (no closing ')"
    assert _error('A="abc') == '.env:1: unterminated double-quoted value (no closing ")'


def test_errors_inside_a_multiline_value_cite_the_starting_line() -> None:
    assert _error('A=1\nB="abc\ndef\\q"').startswith(".env:2: invalid escape '\\q'")
    assert _error("A=1\nB='abc\ndef' junk") == ".env:2: unexpected text after the closing ': 'junk'"


def test_line_after_multiline_value_is_numbered_right() -> None:
    assert _error("A='1\n2\n3'\nbroken") == ".env:4: expected KEY=VALUE, got 'broken'"


def test_missing_equals() -> None:
    assert _error("A=1\nJUSTAKEY\n") == ".env:2: expected KEY=VALUE, got 'JUSTAKEY'"
    assert _error("export A") == ".env:1: expected KEY=VALUE, got 'A'"


@pytest.mark.parametrize("key", ["", "1A", "A-B", "A.B", "É", "A B"])
def test_invalid_keys(key: str) -> None:
    assert _error(f"{key}=v") == (
        f".env:1: invalid variable name {key!r} (ASCII letters, digits and '_', not starting with a digit)"
    )


def test_valid_keys() -> None:
    assert parse_dotenv("_=1\na=2\nA_1=3\n__X__=4") == {"_": "1", "a": "2", "A_1": "3", "__X__": "4"}


def test_custom_path_in_errors() -> None:
    assert _error("oops", "/tmp/project/.env") == "/tmp/project/.env:1: expected KEY=VALUE, got 'oops'"


def test_crlf_line_endings_and_bom() -> None:
    assert parse_dotenv("\ufeffA=1\r\nB='x\r\ny'\r\nC=\"z\"\r\n") == {"A": "1", "B": "x\ny", "C": "z"}


def test_later_assignment_wins() -> None:
    assert parse_dotenv("A=1\nA=2") == {"A": "2"}


def test_nul_in_value_is_an_error() -> None:
    assert _error("A=1\nB=x\0y") == ".env:2: the value of B contains a NUL character"


def test_load_sets_only_missing_variables(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("NEW=from-file\nOLD=from-file\nEMPTY=from-file\n", encoding="utf-8")
    environ = {"OLD": "kept", "EMPTY": ""}
    load_dotenv(tmp_path, environ)
    assert environ == {"OLD": "kept", "EMPTY": "", "NEW": "from-file"}


def test_load_missing_file_is_ignored(tmp_path: Path) -> None:
    environ = {"A": "1"}
    load_dotenv(tmp_path, environ)
    assert environ == {"A": "1"}


def test_load_only_reads_the_cwd_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("PARENT=1\n", encoding="utf-8")
    child = tmp_path / "child"
    child.mkdir()
    environ: dict[str, str] = {}
    load_dotenv(child, environ)
    assert environ == {}


def test_load_unreadable_file(tmp_path: Path) -> None:
    (tmp_path / ".env").mkdir()
    with pytest.raises(DotenvError, match=r"^failed to read '\.env'"):
        load_dotenv(tmp_path, {})


def test_load_invalid_utf8(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"A=\xff\n")
    with pytest.raises(DotenvError, match=r"^failed to read '\.env'"):
        load_dotenv(tmp_path, {})


def test_load_malformed_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("A=1\nnot an assignment\n", encoding="utf-8")
    environ: dict[str, str] = {}
    with pytest.raises(DotenvError) as info:
        load_dotenv(tmp_path, environ)
    assert str(info.value) == ".env:2: expected KEY=VALUE, got 'not an assignment'"
    assert environ == {}


def test_load_into_os_environ(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.setenv("LAIT_DOTENV_TEST", "")  # so that monkeypatch restores the variable's absence
    monkeypatch.delenv("LAIT_DOTENV_TEST")
    (tmp_path / ".env").write_text("LAIT_DOTENV_TEST='a b'\n", encoding="utf-8")
    load_dotenv(tmp_path, os.environ)
    assert os.environ["LAIT_DOTENV_TEST"] == "a b"
