"""Bad input never crashes `lait lint`: every nasty file of the corpus below is linted as a workflow,
an agent, a SKILL.md and a lait.config.yml in a real subprocess, which must exit 0 or 3 without a
traceback or an "internal error". The alias bomb also runs under a 1 GiB address-space limit, and
seeded random mutations of the example project are linted in-process."""

from __future__ import annotations

import os
import random
import re
import resource
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from lait_core.lint.engine import Linter
from lait_core.syntax.diagnostics import Diagnostic
from tests.cli.conftest import EXAMPLES, Run, run_lait

KINDS = {
    "workflow": "w.yml",
    "agent": "agents/a.md",
    "skill": "skills/s/SKILL.md",
    "config": "lait.config.yml",
}


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes
    wrap: bool = True
    """Agent and skill files get the data as their frontmatter (else the raw bytes are the file)."""

    def content(self, kind: str) -> bytes:
        if self.wrap and kind in ("agent", "skill"):
            return b"---\n" + self.data + b"\n---\nBody {{ input }}\n"
        return self.data


def _random_bytes(seed: int, size: int) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(size))


def _yamlish(seed: int, size: int) -> bytes:
    rng = random.Random(seed)
    alphabet = "ab: -\n\n  []{},&*!|>'\"%@`#?~\t0x.9日😀\\{{}}$"
    return "".join(rng.choice(alphabet) for _ in range(size)).encode("utf-8")


def _billion_laughs(levels: int = 9) -> bytes:
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        refs = ", ".join([f"*l{i - 1}"] * 9)
        lines.append(f"l{i}: &l{i} [{refs}]")
    lines.append(f"steps:\n  - jq: '.'\n    input: *l{levels - 1}")
    return ("\n".join(lines) + "\n").encode()


def _mapping_bomb() -> bytes:
    lines = ["m0: &m0 {a: x, b: x, c: x, d: x, e: x, f: x, g: x, h: x}"]
    for i in range(1, 9):
        pairs = ", ".join(f"{k}: *m{i - 1}" for k in "abcdefgh")
        lines.append(f"m{i}: &m{i} {{{pairs}}}")
    return ("\n".join(lines) + "\n").encode()


def _wide_aliases() -> bytes:
    anchor = "big: &big [" + ", ".join(str(i) for i in range(2000)) + "]\n"
    return (anchor + "".join(f"k{i}: *big\n" for i in range(200))).encode()


_BAD_VALUES = ("[1]", "{a: 1}", "1", "null", "true", "'x'", "[[]]", "-1", ".nan", "{}")
_STEP_KINDS = (
    "prompt",
    "agent",
    "run",
    "decide",
    "workflow",
    "jq",
    "ask",
    "write",
    "group",
    "switch",
    "parallel",
    "for_each",
    "while",
    "until",
    "stop",
    "break",
)
_STEP_KEYS = (
    "id",
    "when",
    "input",
    "output",
    "timeout",
    "retry",
    "steps",
    "else",
    "max_concurrency",
    "default",
)


def _every_step_kind_wrong() -> bytes:
    steps = []
    for i, kind in enumerate(_STEP_KINDS):
        for j, value in enumerate(_BAD_VALUES):
            extra = _STEP_KEYS[(i + j) % len(_STEP_KEYS)]
            other = _BAD_VALUES[(i * 3 + j) % len(_BAD_VALUES)]
            steps.append(f"  - {{{kind}: {value}, {extra}: {other}}}")
    nested = (
        "  - parallel: {a: [{switch: [{when: 1, steps: 2}], else: {x: 1}}], b: 1}\n"
        "  - for_each: [1]\n    steps: [{while: [], steps: [{until: {}, steps: [[]]}]}]\n"
        "  - group: [{group: [{group: null}]}]\n"
    )
    return ("steps:\n" + "\n".join(steps) + "\n" + nested).encode()


_WRONG_TOP_LEVEL = b"""\
version: [1]
name: {a: 1}
description: 1
inputs: [1]
input_schema: 1
output: {}
timeout: x
default: [1]
models: 1
schemas: [1]
agents: {a: 1, b: [1], c: {system: 1, tools: 1}}
base_url: [1]
api_key: 1
api_key_cmd: {}
model: [1]
temperature: {a: 1}
top_p: hot
max_tokens: -1
tools: 1
mcp: {a: 1}
skills: x
subagents: [[]]
mcp_servers: {a: 1, b: {command: 1, url: 2}}
workflows: 1
prompts: [1]
tool_policy: {deny: 1}
jev: 1
output_schema: 1
schema_name: [x]
steps: [{prompt: [1]}, {run: "x"}, {switch: {a: 1}}, {parallel: [1]}, {for_each: 1, steps: 2}]
"""

_SCALAR_STYLES = b"""\
plain: plain text
  folded on two lines
single: 'it''s {{ x }}'
double: "tab\\there \\u65e5\\U0001F600 \\
  escaped break \\x41 \\0 \\N"
literal: |
  line one
  line two
folded: >
  one
  two
strip: |-
  s
keep: |+
  k

indent: |2
    two
folded_strip: >-
  f
empty_block: |
int: 0x1F
oct: 0o17
float: .inf
nan: .nan
tilde: ~
bools: [yes, no, on, off, y, n, true, false, True, FALSE]
tagged: [!!str 1, !!int 2, !!float 3, !!bool true, !!null null, !!int x, !custom y, !!binary aGk=]
"""

_KEYS_THAT_ARE_COLLECTIONS = b"""\
? [a, b]
: 1
? {a: 1}
: 2
[x]: 3
{y: 1}: 4
? - seq
: 5
steps: [{jq: '.'}]
"""

_DUPLICATES = b"""\
name: a
name: b
steps:
  - jq: '.'
    jq: '..'
steps: []
inputs: {a: string, a: number}
"""

_MULTI_DOCS = b"steps: [{jq: '.'}]\n---\nsteps: 1\n---\n- x\n...\n---\n"


def _corpus() -> list[Case]:
    big = 17 * 1024 * 1024
    cases = [
        Case("random_bytes", _random_bytes(1, 4096), wrap=False),
        Case("random_bytes_no_nul", _random_bytes(2, 4096).replace(b"\0", b"x"), wrap=False),
        Case("random_yamlish_1", _yamlish(3, 3000)),
        Case("random_yamlish_2", _yamlish(4, 3000), wrap=False),
        Case("truncated_yaml", b"steps:\n  - prompt: |\n      hi\n  - jq: '.\n    output: {a: [1, "),
        Case("truncated_flow", b"steps: [{jq: '.'}, {prompt: \"abc"),
        Case("deep_seq_100k", b"[" * 100_000 + b"]" * 100_000, wrap=False),
        Case("deep_seq_1k", b"steps: " + b"[" * 1000 + b"]" * 1000),
        Case("deep_map_10k", b"steps: " + b"{a: " * 10_000 + b"1" + b"}" * 10_000),
        Case("deep_block_map_300", "".join(" " * i + f"k{i}:\n" for i in range(300)).encode()),
        Case("deep_groups_250", b"steps:\n  - " + b"{group: [" * 250 + b"{jq: '.'}" + b"]}" * 250),
        Case("billion_laughs", _billion_laughs()),
        Case("mapping_bomb", _mapping_bomb()),
        Case("wide_aliases", _wide_aliases()),
        Case("self_alias", b"steps: &s\n  - jq: '.'\n  - group: *s\n"),
        Case("undefined_alias", b"steps: *nope\nname: *also_nope\n"),
        Case("file_17mib", b"name: x\n# " + b"x" * big + b"\n", wrap=False),
        Case("binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), wrap=False),
        Case("invalid_utf8", b"name: caf\xe9\nsteps:\n  - jq: '.'\n"),
        Case("invalid_utf8_late", b"steps:\n  - prompt: ok\n" * 100 + b"  - prompt: \xff\xfe\n"),
        Case("lone_surrogate_escape", b'name: "\\ud800"\nsteps: [{jq: "."}]\n'),
        Case("control_chars", b"name: \x01\x02\x7f\nsteps: [{jq: '.'}]\n"),
        Case("bom", b"\xef\xbb\xbfsteps: [{jq: '.'}]\n"),
        Case("tabs_indent", b"steps:\n\t- jq: '.'\n"),
        Case("tabs_everywhere", b"\tname:\tx\nsteps:\n  -\tjq: '.'\t\n\t\t\n"),
        Case("frontmatter_unclosed", b"---\nname: x\ndescription: y\n", wrap=False),
        Case("frontmatter_only_open", b"---", wrap=False),
        Case("frontmatter_crlf", b"---\r\nname: x\r\n---\r\nBody\r\n", wrap=False),
        Case("huge_single_line", b"name: " + b"x" * 5_000_000 + b"\n"),
        Case("huge_flow_line", b"steps: [" + b"{jq: '.'}, " * 20_000 + b"]\n"),
        Case("every_step_kind_wrong", _every_step_kind_wrong()),
        Case("every_top_level_key_wrong", _WRONG_TOP_LEVEL),
        Case("scalar_styles", _SCALAR_STYLES),
        Case("collection_keys", _KEYS_THAT_ARE_COLLECTIONS),
        Case("duplicate_keys", _DUPLICATES),
        Case("null_document", b"null\n"),
        Case("tilde_document", b"~\n"),
        Case("empty_file", b"", wrap=False),
        Case("only_comments", b"# nothing\n# here\n"),
        Case("empty_document_markers", b"---\n...\n"),
        Case("multi_docs", _MULTI_DOCS),
        Case("scalar_document", b"42\n"),
        Case("sequence_document", b"- 1\n- [2]\n"),
        Case("directives", b"%YAML 1.1\n%TAG !e! tag:example.com,2000:\n---\nsteps: !e!x [{jq: '.'}]\n"),
        Case("bad_directive", b"%YAML 2.0\n---\nx: 1\n"),
        Case("cr_only_newlines", b"name: x\rsteps:\r  - jq: '.'\r"),
        Case("unicode_line_separators", "name: a\u2028b\u0085c\nsteps: [{jq: '.'}]\n".encode()),
        Case("bad_templates_and_jq", b"steps:\n  - prompt: '{{#each}} {{ ( }} {{/if}}'\n  - jq: '.[' \n"),
        Case("suppression_comments", b"# lait: ignore-file[\nname: x # lait: ignore[,,]\nsteps: []\n"),
    ]
    return cases


CORPUS = _corpus()

XFAIL: dict[tuple[str, str], str] = {}
"""Known crashes, each a bug to fix (empty: none known)."""


@dataclass(frozen=True)
class Outcome:
    run: Run
    path: str
    """The linted file, relative to the run's working directory."""


def _place(root: Path, case: Case, kind: str) -> str:
    relative = f"{kind}/{KINDS[kind]}"
    path = root / case.name / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(case.content(kind))
    return relative


def _crashed(run: Run) -> bool:
    return run.returncode not in (0, 3) or "Traceback" in run.stderr or "internal error" in run.stderr


# cases whose kinds are linted one per process from the start (each takes long)
_ALONE = frozenset({"deep_seq_100k"})


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Outcome]:
    """Every (case, kind), concurrently: the four kinds of a case are linted by one process (each file
    in its own directory); when that process crashes, each kind is linted alone to say which crashed."""
    from tests.cli.conftest import clean_env

    root = tmp_path_factory.mktemp("corpus")
    xdg = root / "_xdg"
    home = root / "_home"
    xdg.mkdir()
    home.mkdir()
    env = clean_env(xdg, home)

    def lint(case: Case, relatives: list[str]) -> Run:
        return run_lait(
            ["lint", *relatives], cwd=root / case.name, env=env, timeout=600, check_traceback=False
        )

    placed = {(case.name, kind): _place(root, case, kind) for case in CORPUS for kind in KINDS}
    results: dict[tuple[str, str], Outcome] = {}
    workers = max(2, (os.cpu_count() or 2) + 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        alone = {
            (c.name, k): pool.submit(lint, c, [placed[(c.name, k)]])
            for c in CORPUS
            if c.name in _ALONE
            for k in KINDS
        }
        batches = {
            c.name: pool.submit(lint, c, [placed[(c.name, k)] for k in KINDS])
            for c in CORPUS
            if c.name not in _ALONE
        }
        retries = {}
        for case in CORPUS:
            if case.name in _ALONE:
                continue
            batch = batches[case.name].result()
            for kind in KINDS:
                if _crashed(batch):
                    retries[(case.name, kind)] = pool.submit(lint, case, [placed[(case.name, kind)]])
                else:
                    results[(case.name, kind)] = Outcome(batch, placed[(case.name, kind)])
        for key, future in [*alone.items(), *retries.items()]:
            results[key] = Outcome(future.result(), placed[key])
    return results


def _params() -> list[object]:
    params: list[object] = []
    for case in CORPUS:
        for kind in KINDS:
            reason = XFAIL.get((case.name, kind))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(case.name, kind, id=f"{case.name}-{kind}", marks=marks))
    return params


@pytest.mark.parametrize(("case", "kind"), _params())
def test_nasty_input_is_a_diagnostic_not_a_crash(
    outcomes: dict[tuple[str, str], Outcome], case: str, kind: str
) -> None:
    outcome = outcomes[(case, kind)]
    run = outcome.run
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert "internal error" not in run.stderr, run.stderr[-2000:]
    assert run.returncode in (0, 3), (run.returncode, run.stderr[-2000:])
    for line in run.stdout.splitlines():
        if line.startswith(f"{outcome.path}:"):
            assert re.match(r"^[^:]+:\d+:\d+: LAIT\d{3} (error|warning|info): ", line), line[:500]


@pytest.mark.parametrize(
    ("case", "kind", "codes"),
    [
        ("file_17mib", "workflow", {"LAIT006"}),
        ("file_17mib", "agent", {"LAIT006"}),
        ("file_17mib", "skill", {"LAIT006"}),
        ("file_17mib", "config", {"LAIT006"}),
        ("binary", "workflow", {"LAIT005"}),
        ("binary", "skill", {"LAIT005"}),
        ("invalid_utf8", "workflow", {"LAIT005"}),
        ("invalid_utf8", "agent", {"LAIT005"}),
        ("invalid_utf8", "config", {"LAIT005"}),
        ("tabs_indent", "workflow", {"LAIT008"}),
        ("tabs_indent", "config", {"LAIT008"}),
        ("frontmatter_unclosed", "agent", {"LAIT201"}),
        ("billion_laughs", "workflow", {"LAIT003"}),
        ("billion_laughs", "agent", {"LAIT003"}),
        ("billion_laughs", "config", {"LAIT003"}),
        ("mapping_bomb", "workflow", {"LAIT003"}),
        ("wide_aliases", "workflow", {"LAIT003"}),
        ("self_alias", "workflow", {"LAIT003"}),
        ("undefined_alias", "workflow", {"LAIT001"}),
        ("duplicate_keys", "workflow", {"LAIT002"}),
        ("duplicate_keys", "skill", {"LAIT002"}),
        ("multi_docs", "workflow", {"LAIT001"}),
        ("collection_keys", "workflow", {"LAIT001"}),
        ("truncated_yaml", "workflow", {"LAIT001"}),
    ],
)
def test_nasty_input_gets_the_expected_code(
    outcomes: dict[tuple[str, str], Outcome], case: str, kind: str, codes: set[str]
) -> None:
    outcome = outcomes[(case, kind)]
    run = outcome.run
    assert run.returncode == 3, run.stderr[-2000:]
    got = {
        line.split(": ", 1)[1].split()[0]
        for line in run.stdout.splitlines()
        if line.startswith(f"{outcome.path}:")
    }
    assert codes <= got, run.stdout[:2000]


def _limit_address_space() -> None:
    limit = 1024 * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("workflow", _billion_laughs()),
        ("workflow", _billion_laughs(12)),
        ("agent", _billion_laughs()),
        ("config", _billion_laughs()),
        ("workflow", _mapping_bomb()),
    ],
    ids=["laughs-workflow", "laughs12-workflow", "laughs-agent", "laughs-config", "mapping-bomb-workflow"],
)
def test_alias_bomb_finishes_within_one_gib(
    tmp_path: Path, lait_env: dict[str, str], kind: str, data: bytes
) -> None:
    work = tmp_path / "bomb"
    path = work / KINDS[kind]
    path.parent.mkdir(parents=True)
    path.write_bytes(Case("bomb", data).content(kind))
    preexec: Callable[[], None] = _limit_address_space
    run = run_lait(["lint", KINDS[kind]], cwd=work, env=lait_env, timeout=300, preexec_fn=preexec)
    assert "internal error" not in run.stderr
    assert "MemoryError" not in run.stderr
    assert run.returncode == 3, run.stderr
    assert f"{KINDS[kind]}:" in run.stdout
    assert " LAIT003 error: alias '*" in run.stdout, run.stdout[:2000]


# --------------------------------------------------------------------------------------------
# seeded random mutations of the example project, linted in-process

EXAMPLE_FILES = sorted(
    p for p in EXAMPLES.rglob("*") if p.is_file() and (p.suffix in (".yml", ".yaml") or p.suffix == ".md")
)


def _mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(8)
        if not text:
            text = rng.choice(["-", ":", "{", "---\n", "'"])
            continue
        i = rng.randrange(len(text))
        lines = text.split("\n")
        a = rng.randrange(len(lines))
        b = rng.randrange(len(lines))
        if op == 0:  # delete a character
            text = text[:i] + text[i + 1 :]
        elif op == 1:  # duplicate a character
            text = text[:i] + text[i] + text[i:]
        elif op == 2 and i + 1 < len(text):  # swap two neighbours
            text = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
        elif op == 3:  # delete a line
            del lines[a]
            text = "\n".join(lines)
        elif op == 4:  # duplicate a line
            lines.insert(a, lines[a])
            text = "\n".join(lines)
        elif op == 5:  # swap two lines
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif op == 6:  # insert a YAML or template indicator
            text = text[:i] + rng.choice([*":-[]{}&*!|>'\"%@`#?,\t ", "{{", "}}", "---\n", "\n"]) + text[i:]
        else:  # delete a span
            text = text[:i] + text[i + rng.randint(1, 40) :]
    return text


def _check_diagnostic(d: Diagnostic, text: str) -> None:
    assert isinstance(d, Diagnostic)
    assert d.code.startswith("LAIT") and len(d.code) == 7
    assert d.message
    start, end = d.range
    assert (start.line, start.character) <= (end.line, end.character), d
    assert 0 <= start.line <= text.count("\n") + 1, d
    assert start.character >= 0, d


def test_random_mutations_of_the_examples_never_raise(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert len(EXAMPLE_FILES) >= 6
    originals = {p: p.read_text(encoding="utf-8") for p in EXAMPLE_FILES}
    rng = random.Random(20240601)
    linter = Linter()
    codes: set[str] = set()
    for iteration in range(300):
        path = rng.choice(EXAMPLE_FILES)
        text = _mutate(originals[path], rng)
        if iteration % 25 == 0:
            linter = Linter()  # fresh caches now and then
        try:
            diagnostics = linter.lint_text(text, path)
        except Exception as exc:  # pragma: no cover - the failure report
            pytest.fail(f"iteration {iteration}: {path.name} raised {type(exc).__name__}: {exc}\n---\n{text}")
        for d in diagnostics:
            _check_diagnostic(d, text)
            codes.add(d.code)
    assert len(codes) >= 8, codes  # the mutations reach many different checks
