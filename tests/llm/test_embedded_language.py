"""The language features know `provider: {gguf: ...}` (from the model and its descriptions): key
completion with docs, key hover, and an alias's hover showing the file. No model needed."""

from __future__ import annotations

from pathlib import Path

from lait_core.language import Document, KeyDoc, Project, hover_at
from lait_core.lint.discovery import FileKind
from lait_core.lint.engine import Linter
from lait_core.syntax.positions import Position
from tests.unit.test_language_completion import C, items
from tests.unit.test_language_hover import doc_at


def test_completion_offers_gguf_under_provider_with_its_doc() -> None:
    got = {i.label: i for i in items("models:\n  tiny:\n    - provider:\n        ‸\n", C)}
    assert set(got) >= {"base_url", "gguf", "api_key", "api_key_cmd"}
    assert "GGUF model file run in-process" in str(got["gguf"].documentation)


def test_key_hover_documents_gguf() -> None:
    text = "models:\n  tiny:\n    - provider: {gguf: m.gguf}\n      model_id: t\n"
    found = doc_at(FileKind.CONFIG, text, "gguf")
    assert isinstance(found, KeyDoc)
    assert "relative to the file that defines it" in found.description
    assert "Exclusive with `base_url`" in found.description


def test_alias_hover_shows_the_gguf_file(tmp_path: Path) -> None:
    (tmp_path / "lait.config.yml").write_text(
        "models:\n  tiny:\n    - provider: {gguf: models/t.gguf}\n      model_id: t\n"
    )
    path = tmp_path / "flow.yml"
    text = "steps:\n  - prompt: hi\n    model: tiny\n"
    path.write_text(text)
    start = text.index("tiny") + 1
    pos = Position(text.count("\n", 0, start), start - (text.rfind("\n", 0, start) + 1))
    result = hover_at(Project(Linter()), Document(path, text, FileKind.WORKFLOW), pos)
    assert result is not None
    assert "t @ " in result.markdown and "models/t.gguf" in result.markdown, result.markdown


def test_schema_knows_provider_gguf() -> None:
    """The published config schema accepts `provider: {gguf: ...}` and rejects it next to server
    keys, or a provider with neither."""
    from jsonschema import Draft202012Validator

    from lait_core.documents.json_schemas import generate

    validator = Draft202012Validator(generate("config"))

    def errors(provider: dict[str, str]) -> int:
        config = {"models": {"tiny": [{"provider": provider, "model_id": "t"}]}}
        return len(list(validator.iter_errors(config)))

    assert errors({"gguf": "models/t.gguf"}) == 0
    assert errors({"base_url": "http://localhost:1234/v1"}) == 0
    assert errors({"gguf": "m.gguf", "base_url": "http://localhost:1234/v1"}) > 0
    assert errors({"gguf": "m.gguf", "api_key_cmd": "pass show x"}) > 0
    assert errors({}) > 0
