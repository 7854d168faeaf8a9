"""The checked-in JSON Schemas are generated from the models, valid, and agree with the loaders."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from lait_core.documents.agent_file import parse_agent
from lait_core.documents.config_file import parse_config
from lait_core.documents.json_schemas import KINDS, generate, schema_text
from lait_core.documents.workflow_file import parse_workflow
from lait_core.syntax.frontmatter import split_frontmatter
from lait_core.syntax.yaml.parse import parse_yaml

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.mark.parametrize("kind", KINDS)
def test_checked_in_schema_matches_generated(kind: str) -> None:
    checked_in = (ROOT / "schemas" / f"{kind}.json").read_text(encoding="utf-8")
    assert checked_in == schema_text(kind), (
        f"schemas/{kind}.json is out of date; regenerate it with `lait schema {kind} > schemas/{kind}.json`"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_schema_is_valid_draft_2020_12(kind: str) -> None:
    schema = generate(kind)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def _validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(generate(kind))


def test_every_key_has_a_description() -> None:
    """Hover in the editor reuses these descriptions, so none may be missing."""
    missing: list[str] = []
    for kind in KINDS:
        schema = generate(kind)
        for name, sub in [("<root>", schema), *schema.get("$defs", {}).items()]:
            for key, prop in sub.get("properties", {}).items():
                if isinstance(prop, dict) and not prop.get("description"):
                    missing.append(f"{kind}:{name}.{key}")
    assert missing == []


def test_examples_validate_against_schemas() -> None:
    config = parse_yaml((EXAMPLES / "lait.config.yml").read_text()).root
    assert config is not None
    assert list(_validator("config").iter_errors(config.to_python())) == []
    for wf in sorted((EXAMPLES / "workflows").glob("*.yml")):
        root = parse_yaml(wf.read_text()).root
        assert root is not None
        errors = [e.message for e in _validator("workflow").iter_errors(root.to_python())]
        assert errors == [], wf.name
    for agent in sorted((EXAMPLES / "agents").glob("*.md")):
        split = split_frontmatter(agent.read_text())
        assert not isinstance(split, Exception) and hasattr(split, "yaml_text")
        root = parse_yaml(split.yaml_text).root
        assert root is not None
        assert list(_validator("agent").iter_errors(root.to_python())) == [], agent.name


AGREEMENT = [
    ("workflow", "steps:\n  - prompt: hi\n", True),
    ("workflow", "steps: []\n", False),
    ("workflow", "steps:\n  - prompt: hi\n    run: [x]\n", False),
    ("workflow", "steps:\n  - prompt: hi\n    temprature: 1\n", False),
    ("workflow", "steps:\n  - prompt: hi\n    temperature: 3\n", False),
    ("workflow", "steps:\n  - while: '.'\n    steps: [{jq: '.'}]\n", False),
    ("workflow", "steps:\n  - while: '.'\n    max_iterations: 2\n    steps: [{jq: '.'}]\n", True),
    ("workflow", "steps:\n  - stop: false\n", False),
    ("workflow", "version: 3\nsteps:\n  - jq: '.'\n", False),
    ("workflow", "inputs:\n  a: string\n  b: {type: integer}\n  c: null\nsteps:\n  - jq: '.'\n", True),
    ("workflow", "agents:\n  x: {model: m}\nsteps:\n  - agent: x\n", False),
    ("workflow", "schemas:\n  s: {file: a.json}\nsteps:\n  - prompt: p\n    output_schema: s\n", True),
    ("workflow", "steps:\n  - parallel: {a: [{jq: '.'}], b: [{jq: '.'}]}\n", True),
    ("workflow", "steps:\n  - ask: q\n    choices: []\n", False),
    ("agent", "model: m\ntemperature: 0.5\n", True),
    ("agent", "system: x\n", False),
    ("agent", "schema_name: x\n", False),
    ("agent", "output_schema: {type: object}\nschema_name: x\n", True),
    ("config", "models:\n  a:\n    - provider: {base_url: u}\n      model_id: m\n", True),
    ("config", "models:\n  a:\n    - model_id: m\n", False),
    ("config", "api_key: a\napi_key_cmd: b\n", False),
    ("config", "defualt: {}\n", False),
    ("config", "mcp_servers:\n  a: {command: x, allowed_tools: []}\n", True),
    ("test", "workflow: w.yml\nreplay: tape\n", True),
    ("test", "workflow: w.yml\n", False),
    ("test", "workflow: w.yml\nreplay: tape\nasert: []\n", False),
    ("test", "workflow: w.yml\nreplay: t\ninput: {a: 1}\nassert:\n  - {type: equals, value: {a: 1}}\n", True),
    ("test", "workflow: w.yml\nreplay: t\nassert:\n  - {type: contains}\n", False),
    ("test", "workflow: w.yml\nreplay: t\nassert:\n  - {type: contain, value: x}\n", False),
    ("test", "workflow: w.yml\nreplay: t\nassert:\n  - {type: tool_called, name: t, min: -1}\n", False),
    (
        "test",
        "workflow: w.yml\nreplay: t\nassert:\n  - type: step_output\n    id: s\n    assert:\n"
        "      - {type: jq, expr: '.a'}\n      - {type: usage, max_total_tokens: 9, max_cost_usd: 0.5}\n",
        True,
    ),
    (
        "test",
        "workflow: w.yml\nreplay: t\nassert:\n  - type: step_output\n    id: s\n    assert:\n"
        "      - {type: jq, expr: '.a', extra: 1}\n",
        False,
    ),
    (
        "eval",
        "target: {workflow: w.yml}\ncases:\n  - input: hi\n    assert: [{type: contains, value: hi}]\n",
        True,
    ),
    ("eval", "target: {model: m, prompt: 'Say {{ input }}'}\ncases: []\n", True),
    ("eval", "target: {model: m}\ncases: []\n", False),
    ("eval", "target: {workflow: w.yml, model: m, prompt: p}\ncases: []\n", False),
    ("eval", "target: {model: m, prompt: p, inputs: {}}\ncases: []\n", False),
    ("eval", "target: {workflow: w.yml}\ncases:\n  - input: hi\n    asert: []\n", False),
    (
        "eval",
        "target: {workflow: w.yml}\ncases:\n  - input: hi\n    assert: [{type: llm_judge, criteria: c}]\n",
        True,
    ),
    ("eval", "target: {workflow: w.yml}\n", False),
]


@pytest.mark.parametrize(("kind", "text", "valid"), AGREEMENT)
def test_schema_and_loader_agree(kind: str, text: str, valid: bool) -> None:
    """The schema an editor attaches accepts exactly what lait's loader accepts (on these cases)."""
    root = parse_yaml(text).root
    assert root is not None
    schema_ok = not list(_validator(kind).iter_errors(root.to_python()))
    if kind == "workflow":
        loader_ok = parse_workflow(text, "w.yml").ok
    elif kind == "agent":
        loader_ok = (
            parse_agent(f"---\n{text}---\nbody\n", "a.md").ok
            and not parse_agent(f"---\n{text}---\nbody\n", "a.md").diagnostics
        )
    elif kind == "test":
        from lait_core.testing.definition import parse_test

        loader_ok = parse_test(text, "t.yml")[0] is not None
    elif kind == "eval":
        from lait_core.testing.definition import parse_eval

        loader_ok = parse_eval(text, "e.yml")[0] is not None
    else:
        doc = parse_config(text)
        loader_ok = doc.ok and not doc.diagnostics
        if "api_key_cmd" in text and "api_key:" in text:
            from lait_core.lint.checks.config import check_config

            loader_ok = loader_ok and not check_config(doc)
    assert schema_ok == valid
    assert loader_ok == valid
