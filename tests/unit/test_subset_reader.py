"""The send-ahead path's YAML reader (lait_core.syntax.yaml.subset_reader): what it accepts it reads
as the full reader (lait_core.syntax.yaml.parse) does, and it refuses what it does not read."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.subset_reader import NotInSubset, read_subset
from lait_core.syntax.yaml.tree import MappingNode

WANTED = ("base_url", "api_key", "api_key_cmd", "default", "models", "confine")
REPO = Path(__file__).resolve().parents[2]


def full_reading(text: str) -> dict[str, Any]:
    parsed = parse_yaml(text, "lait.config.yml")
    assert parsed.ok and not parsed.problems, [d.message for d in parsed.problems]
    if parsed.root is None:
        return {}
    assert isinstance(parsed.root, MappingNode)
    return parsed.root.to_python()


def assert_read_alike(text: str) -> dict[str, Any]:
    got = read_subset(text, WANTED)
    full = full_reading(text)
    assert set(got) == set(full)
    for key, value in full.items():
        if key in WANTED:
            assert repr(got[key]) == repr(value), key  # repr: 1 and 1.0 and True differ
        else:
            assert got[key] == ("mapping" if isinstance(value, dict) else "other"), key
    return got


ACCEPTED = [
    "",
    "# only a comment\n",
    "---\nbase_url: http://localhost:1234/v1  # LM Studio\n",
    "base_url: 'http://127.0.0.1:8080/v1'\napi_key: \"${KEY}\"\n",
    "default:\n  model: local\n  temperature: 0.2\n  top_p: 1\n  max_tokens: 0x10\n  render: true\n"
    "  history: False\n  cache: ~\n  system: You're terse; answer in one line.\n",
    "default:\n  model:\n  tools: []\n  mcp: [ ]\n  skills: [a, 'b c', \"d\"]\n",
    'models:\n  local:\n    - provider: {base_url: "http://localhost:1234/v1"}\n'
    "      model_id: qwen2.5-0.5b-instruct\n      default_max_tokens: 1024\n",
    "models:\n  local:\n  - provider:\n      base_url: http://localhost:1234/v1\n      api_key: sk-x\n"
    "    model_id: a:b\n  - {provider: {base_url: 'http://h/v1'}, model_id: 'it''s'}\n",
    "default:\n  system: |\n    line one\n\n      indented # not a comment\n    last\n\n  model: m\n",
    "default:\n  system: |-\n    no final newline\n  temperature: .5\n",
    "default:\n  model: m\nprompts:\n  p:\n    template: >\n      folded, not read\n"
    "tools:\n  grep: {command: [grep, -rn, '--', \"{{ input.pattern }}\"]}\n",
    "default:\n  model: -m\n  system: a#b {x} [y] ?z :w\n",
    "confine: project\nmcp_servers:\n  notes:\n    command: ${LAIT_PYTHON}\n",
    'models:\n  "quoted": 1\n' if False else "models: {}\ndefault: {model: m, temperature: 1.5}\n",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_what_it_accepts_it_reads_as_the_full_reader(text: str) -> None:
    assert_read_alike(text)


def test_it_reads_the_example_config_and_the_corpus_configs_alike() -> None:
    example = (REPO / "examples" / "lait.config.yml").read_text(encoding="utf-8")
    got = assert_read_alike(example)
    assert got["default"] == {"model": "local", "max_tool_rounds": 8, "temperature": 0.2}
    read = 0
    for path in sorted((REPO / "tests" / "corpus").rglob("lait.config.yml")):
        text = path.read_text(encoding="utf-8")
        parsed = parse_yaml(text, str(path))
        if not parsed.ok or parsed.problems:
            continue
        try:
            assert_read_alike(text)
        except NotInSubset:
            continue
        read += 1
    assert read >= 20


REFUSED = [
    "base_url: &u http://h/v1\n",
    "base_url: *u\n",
    "base_url: !!str http://h/v1\n",
    'base_url: "http://h/v1\\n"\n',
    "base_url: http://h/v1\n  /more\n",
    "default:\n  system: >\n    folded\n",
    "default:\n  system: |2\n    indented\n",
    'default:\n  system: "two\n    lines"\n',
    "default:\n  model: [a,\n    b]\n",
    "default:\n  ? model\n  : m\n",
    'default:\n  "model": m\n',
    "default:\n  model: m\n  model: n\n",
    "base_url: a\nbase_url: b\n",
    "default:\n\tmodel: m\n",
    "%YAML 1.2\n---\nbase_url: x\n",
    "base_url: x\n---\nbase_url: y\n",
    "- a\n",
    "default:\n    model: m\n  temperature: 1\n",
    "default:\n  model: a: b\n",
    "default:\n  true: 1\n",
    "models:\n  m:\n    - - nested\n",
    "default:\n  system: |\n  \n    x\n" if False else "default:\n  system: |\n     \n    x\n",
    "base_url: x\x07\n",
]


@pytest.mark.parametrize("text", REFUSED)
def test_it_refuses_what_it_does_not_read(text: str) -> None:
    with pytest.raises(NotInSubset):
        read_subset(text, WANTED)


MUTATIONS = [*" :#'\"-\n{}[],|a1.>&*!?~\\%@`\t", "  ", ": ", "- ", "\n  ", "''", "\n- "]


def test_mutated_configs_are_refused_or_read_as_the_full_reader_reads_them() -> None:
    """Seeded mutations of the accepted texts: whatever the subset reader still accepts in the
    sections it reads is valid YAML there and holds the full reader's values."""
    rng = random.Random(26)
    seeds = [text for text in ACCEPTED if text]
    seeds.append((REPO / "examples" / "lait.config.yml").read_text(encoding="utf-8"))
    accepted = 0
    for _ in range(3000):
        text = rng.choice(seeds)
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(len(text) + 1)
            if rng.random() < 0.5 and at < len(text):
                text = text[:at] + text[at + 1 :]
            else:
                text = text[:at] + rng.choice(MUTATIONS) + text[at:]
        try:
            got = read_subset(text, WANTED)
        except NotInSubset:
            continue
        accepted += 1
        parsed = parse_yaml(text, "lait.config.yml")
        if not parsed.ok or parsed.problems:
            assert not all(key in WANTED for key in got), text  # a problem only in a section not read
            continue
        full = parsed.root.to_python() if isinstance(parsed.root, MappingNode) else {}
        assert set(full) == set(got), text
        assert {k: repr(v) for k, v in full.items() if k in WANTED} == {
            k: repr(v) for k, v in got.items() if k in WANTED
        }, text
    assert accepted > 500
