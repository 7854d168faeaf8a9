"""value_shapes reading the files a workflow names: what cannot be read, parsed or followed is simply
unknown (None), never an exception, and nesting is bounded."""

from __future__ import annotations

from pathlib import Path

from lait_core.language.value_shapes import MAX_FILES, Shapes, Surroundings
from lait_core.syntax.yaml.parse import parse_yaml


def shapes(path: Path) -> Shapes:
    parsed = parse_yaml(path.read_text(encoding="utf-8"))
    return Shapes(parsed.root, Surroundings(path))


def test_unreadable_or_unparsable_files_are_unknown(tmp_path: Path) -> None:
    (tmp_path / "dir.md").mkdir()
    (tmp_path / "bad.md").write_text("---\noutput_schema: [\n---\nHi\n", encoding="utf-8")
    (tmp_path / "bad.yml").write_text("steps: [\n", encoding="utf-8")
    (tmp_path / "bin.json").write_bytes(b"\x00\xff not json")
    wf = tmp_path / "wf.yml"
    wf.write_text(
        "steps:\n"
        "  - {id: a, agent: dir.md}\n"
        "  - {id: b, agent: bad.md}\n"
        "  - {id: c, agent: missing.md}\n"
        "  - {id: d, workflow: bad.yml}\n"
        "  - {id: e, workflow: missing.yml}\n"
        "  - {id: f, prompt: x, output_schema: {file: bin.json}}\n"
        "  - {id: g, agent: '{{ inputs.which }}'}\n"
        "  - {id: h, workflow: '{{ inputs.which }}.yml'}\n",
        encoding="utf-8",
    )
    s = shapes(wf)
    assert [s.step(x) for x in "abcdegh"] == [None] * 7
    assert s.step("f") is None


def test_a_chain_of_children_stops_after_max_files(tmp_path: Path) -> None:
    depth = MAX_FILES + 3
    for i in range(depth):
        (tmp_path / f"w{i}.yml").write_text(
            f"steps:\n  - {{id: s, workflow: w{i + 1}.yml}}\n", encoding="utf-8"
        )
    (tmp_path / f"w{depth}.yml").write_text("steps:\n  - jq: '{deep: 1}'\n", encoding="utf-8")
    assert shapes(tmp_path / "w0.yml").step("s") is None  # too deep: not followed
    near = depth - 2
    assert shapes(tmp_path / f"w{near}.yml").step("s") == {
        "type": "object",
        "properties": {"deep": {"type": "number"}},
        "required": ["deep"],
    }


def test_mutual_recursion_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "a.yml").write_text("steps:\n  - {id: s, workflow: b.yml}\n", encoding="utf-8")
    (tmp_path / "b.yml").write_text("steps:\n  - {id: t, workflow: a.yml}\n", encoding="utf-8")
    assert shapes(tmp_path / "a.yml").step("s") is None
