"""lait_core.language: document symbols and folding ranges."""

from __future__ import annotations

import pytest

from lait_core.language import Fold, OutlineKind, OutlineSymbol, document_symbols, folding_ranges
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import Position, Range


def shape(symbols: list[OutlineSymbol]) -> list[object]:
    return [
        (s.name, s.kind.value, s.detail, shape(s.children)) if s.children else (s.name, s.detail)
        for s in symbols
    ]


def test_loops_and_error_handlers_nest() -> None:
    text = (
        "steps:\n"
        "  - while: '. < 3'\n"
        "    max_iterations: 5\n"
        "    steps:\n"
        "      - id: bump\n"
        "        jq: '. + 1'\n"
        "        on_error:\n"
        "          - until: 'true'\n"
        "            max_iterations: 1\n"
        "            steps:\n"
        "              - break: true\n"
        "  - stop: true\n"
    )
    symbols = document_symbols(FileKind.WORKFLOW, text)
    assert shape(symbols) == [
        (
            "steps",
            "section",
            "2 steps",
            [
                (
                    "step-1 (while)",
                    "step",
                    "while",
                    [
                        (
                            "bump",
                            "step",
                            "jq",
                            [
                                (
                                    "on_error",
                                    "branch",
                                    "",
                                    [("step-3 (until)", "step", "until", [("step-4 (break)", "break")])],
                                )
                            ],
                        )
                    ],
                ),
                ("step-5 (stop)", "stop"),
            ],
        )
    ]
    loop = symbols[0].children[0]
    assert loop.range == Range(Position(1, 4), Position(10, 27))
    assert loop.selection == Range(Position(1, 4), Position(1, 9))
    bump = loop.children[0]
    assert bump.selection == Range(Position(4, 12), Position(4, 16))


def test_workflow_sections_and_details() -> None:
    text = (
        "name: demo\n"
        "inputs:\n  a: string\n  b: {type: integer}\n  c:\n"
        "agents:\n  w: {system: x, description: Writes.}\n"
        "models:\n  m:\n    - {provider: {base_url: 'http://x'}, model_id: qwen}\n"
        "default:\n  timeout: 30\n"
        "steps:\n  - jq: .\n"
    )
    assert shape(document_symbols(FileKind.WORKFLOW, text)) == [
        ("name", "demo"),
        ("inputs", "section", "", [("a", "string"), ("b", "integer"), ("c", "")]),
        ("agents", "section", "", [("w", "Writes.")]),
        ("models", "section", "", [("m", "qwen")]),
        ("default", "section", "", [("timeout", "30")]),
        ("steps", "section", "1 steps", [("step-1 (jq)", "jq")]),
    ]


def test_config_sections() -> None:
    text = (
        "tools:\n  grep: {command: [grep], description: Search.}\n"
        "skills:\n  s: skills/s\n"
        "prompts:\n  p: {template: x, model: local}\n"
        "tool_policy:\n  deny: ['*']\n"
    )
    symbols = document_symbols(FileKind.CONFIG, text)
    assert shape(symbols) == [
        ("tools", "section", "", [("grep", "Search.")]),
        ("skills", "section", "", [("s", "skills/s")]),
        ("prompts", "section", "", [("p", "local")]),
        ("tool_policy", "section", "", [("deny", "")]),
    ]
    assert [c.kind for c in symbols[0].children] == [OutlineKind.TOOL]


@pytest.mark.parametrize(
    ("text", "folds"),
    [
        ("a:\n  b: 1\n  c:\n    - 1\n    - 2\n", [(0, 4), (2, 4)]),
        ("a: |\n  x\n  y\n\n\nb: 1\n", [(0, 2)]),
        ("a: {x: 1,\n  y: 2}\nb: [1,\n  2]\n", [(0, 1), (2, 3)]),
        ("a: 'long\n  quoted'\nb: 1\n", [(0, 1)]),
        ("steps:\n  - id: a\n    jq: .\n  - jq: .\n", [(0, 3), (1, 2)]),
        ("a: 1\n", []),
        ("a: [\n", []),
    ],
)
def test_folding(text: str, folds: list[tuple[int, int]]) -> None:
    assert folding_ranges(FileKind.WORKFLOW, text) == [Fold(s, e) for s, e in folds]


def test_folding_of_an_agent_file() -> None:
    text = "---\nname: x\ninput_schema:\n  type: object\n---\nBody\nmore\n"
    assert folding_ranges(FileKind.AGENT, text) == [Fold(0, 4), Fold(2, 3)]
    assert folding_ranges(FileKind.AGENT, "no frontmatter\n") == []
    assert folding_ranges(FileKind.UNKNOWN, "a:\n  b: 1\n") == []


@pytest.mark.parametrize("kind", [FileKind.WORKFLOW, FileKind.CONFIG, FileKind.AGENT])
def test_every_prefix_gives_well_formed_symbols(kind: FileKind) -> None:
    text = {
        FileKind.WORKFLOW: "inputs:\n  a: string\nsteps:\n  - id: x\n    switch:\n      - when: '1'\n"
        "        steps: [{jq: .}]\n    else:\n      - jq: .\n  - parallel: {l: [{jq: .}]}\n",
        FileKind.CONFIG: "models:\n  m:\n    - provider: {base_url: u}\n      model_id: q\ndefault: {model: m}\n",
        FileKind.AGENT: "---\nname: a\ntools: [x]\n---\n\nBody 😀\n",
    }[kind]

    def check(symbols: list[OutlineSymbol]) -> None:
        for s in symbols:
            assert s.name
            assert s.range.start <= s.selection.start and s.selection.end <= s.range.end, s
            for c in s.children:
                assert s.range.start <= c.range.start and c.range.end <= s.range.end, (s, c)
            check(s.children)

    for end in range(len(text) + 1):
        check(document_symbols(kind, text[:end]))
        for fold in folding_ranges(kind, text[:end]):
            assert fold.start_line < fold.end_line
