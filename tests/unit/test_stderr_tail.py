"""The kept tail of an MCP server's stderr: bounded in lines and bytes, lines put together across
reads, an unfinished last line included, control characters and escapes made harmless."""

from __future__ import annotations

from lait_core.engine.mcp.stderr_tail import MAX_LINE_CHARS, StderrTail


def test_lines_across_reads_and_an_unfinished_last_line() -> None:
    tail = StderrTail()
    for chunk in (b"first li", b"ne\r\nsec", b"ond\n\n   \nlast, no newline"):
        tail.feed(chunk)
    assert tail.lines() == ["first line", "second", "last, no newline"]
    assert tail.render() == "its stderr ended with:\n    first line\n    second\n    last, no newline"


def test_bounded_by_lines_and_bytes() -> None:
    tail = StderrTail(max_lines=3, max_bytes=100)
    for i in range(1000):
        tail.feed(f"line {i}\n".encode())
    assert tail.lines() == ["line 997", "line 998", "line 999"]
    tail.feed(b"y" * 10_000_000)  # an endless line keeps only its end
    assert len(tail._partial) <= 100
    tail.feed(b"\n" + b"z" * 90 + b"\n")
    assert tail.lines() == ["z" * 90]  # 100 bytes in all: the long line went out
    wide = StderrTail()
    wide.feed(b"w" * 2000 + b"\n")
    assert len(wide.lines()[0]) == MAX_LINE_CHARS


def test_control_characters_escapes_and_bad_utf8() -> None:
    tail = StderrTail()
    tail.feed(b"\x1b[31mred\x1b[0m \x07bell \xff end\n")
    assert tail.lines() == ["red ?bell \ufffd end"]
    assert StderrTail().render() is None
