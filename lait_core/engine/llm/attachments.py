"""Attachments of a user message: text files as fenced blocks, PDFs and images as content parts.

Shared by `lait --file/--image` and (later) workflow `files:`/`images:`.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

from lait_core.syntax.bounded_read import FileRefused, FileTooLarge, decode, read_bounded

FILES_LIMIT = 10 * 1024 * 1024
"""Attached files may be 10 MiB together."""

JsonObject = dict[str, Any]


class AttachmentError(Exception):
    """An attachment cannot be read or used (the message names it)."""


def read_bytes(path: Path, what: str) -> bytes:
    try:
        return read_bounded(path)
    except FileTooLarge:
        raise AttachmentError(f"{what} '{path}' is larger than 16 MiB") from None
    except FileRefused as exc:
        raise AttachmentError(f"cannot read {what}: {exc}") from None
    except OSError as exc:
        raise AttachmentError(f"cannot read {what} '{path}': {exc.strerror or exc}") from None


def read_text(path: Path, what: str) -> str:
    loaded = decode(read_bytes(path, what))
    if loaded.text is None:
        assert loaded.problem is not None
        raise AttachmentError(f"cannot read {what} '{path}': {loaded.problem.message}")
    return loaded.text


def fenced(path: str, content: str) -> str:
    """``{fence}{path}\\n{content}\\n{fence}``; the fence is one backtick longer than the longest
    run of backticks in the content, and at least three."""
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * (max(longest, 2) + 1)
    return f"{fence}{path}\n{content}\n{fence}"


_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
_IMAGE_EXTENSIONS = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


def image_mime(data: bytes, path: str) -> str | None:
    for magic, mime in _IMAGE_MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return _IMAGE_EXTENSIONS.get(Path(path).suffix.lower())


def _data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def user_content(
    text: str, files: list[str], images: list[str], *, file_flag: str = "files", image_flag: str = "images"
) -> str | list[JsonObject]:
    """The user message content: the prompt with file blocks appended, as a plain string, or as
    content parts (text, then images, then PDFs) when media is attached. ``*_flag`` name the
    option or key in messages."""
    blocks: list[str] = []
    pdfs: list[JsonObject] = []
    total = 0
    for name in files:
        data = read_bytes(Path(name), file_flag)
        total += len(data)
        if total > FILES_LIMIT:
            raise AttachmentError(f"the files attached with {file_flag} are larger than 10 MiB together")
        if data.startswith(b"%PDF-"):
            pdfs.append(
                {
                    "type": "file",
                    "file": {"filename": Path(name).name, "file_data": _data_url("application/pdf", data)},
                }
            )
        else:
            blocks.append(fenced(name, read_text(Path(name), file_flag)))
    if blocks:
        text = f"{text}\n\n" + "\n\n".join(blocks)
    image_parts: list[JsonObject] = []
    for ref in images:
        if ref.startswith(("http://", "https://")):
            url = ref
        else:
            data = read_bytes(Path(ref), image_flag)
            mime = image_mime(data, ref)
            if mime is None:
                raise AttachmentError(
                    f"cannot tell the image type of '{ref}'; expected PNG, JPEG, GIF or WebP"
                )
            url = _data_url(mime, data)
        image_parts.append({"type": "image_url", "image_url": {"url": url}})
    if not image_parts and not pdfs:
        return text
    return [{"type": "text", "text": text}, *image_parts, *pdfs]
