#!/usr/bin/env python3
"""Benchmark `lait lint` against `check-jsonschema` on the same generated workflow and agent files.

Run from anywhere (it finds the repository from its own location)::

    python3 bench/lint_vs_check_jsonschema.py [--n 50 1000] [--runs 5] [--seed 20240601] [--keep]
    python3 bench/lint_vs_check_jsonschema.py --memory-only 10000

What it does (details in bench/README.md):

1. Generates, deterministically from ``--seed``, N workflow files (30-120 lines each, every step kind)
   and N/5 agent Markdown files into a temporary directory, and checks that ``lait lint --no-config``
   reports nothing on them but the expected LAIT506 warning (aborts otherwise). For check-jsonschema,
   which cannot split frontmatter, each agent's frontmatter is extracted beforehand into a ``.yml`` file.
2. Times both tools' whole job as subprocesses, ``--runs`` times each, alternating which tool goes
   first: ``lait lint --no-config <project dir>`` against ``check-jsonschema --schemafile
   schemas/workflow.json <workflows>`` plus ``check-jsonschema --schemafile schemas/agent.json
   <frontmatters>``, and ``lait lint --jobs 1`` (one process, however many cores) in the same rounds.
   Prints medians, the ratio lait / check-jsonschema (target <= 0.15 at the largest N on 2 cores,
   <= 0.5 for one process) and the CPU time per file of the one-process run (target <= 3 ms).
3. Times in-process linting of a generated 1,000-line and 10,000-line workflow (fresh ``Linter`` each
   run, after one warm-up call), and measures the peak RSS of ``lait lint`` for the largest N.
4. Prints a table and writes the numbers as JSON to ``bench/.out/lint_vs_check_jsonschema.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
WORKFLOW_SCHEMA = REPO / "schemas" / "workflow.json"
AGENT_SCHEMA = REPO / "schemas" / "agent.json"
OUT_FILE = REPO / "bench" / ".out" / "lint_vs_check_jsonschema.json"

EXPECTED_CODES = frozenset({"LAIT506"})  # "names were not checked" (no config): expected with --no-config
RATIO_TARGET = 0.15  # lait (all cores) / check-jsonschema at the largest N, on 2 cores
SERIAL_RATIO_TARGET = 0.5  # lait --jobs 1 / check-jsonschema at the largest N
PER_FILE_TARGET_MS = 3.0  # CPU time per file of lait --jobs 1
IN_PROCESS_TARGETS_MS = {1_000: 30.0, 10_000: 250.0}
MIN_LINES, MAX_LINES = 30, 120
AGENTS_PER_WORKFLOW = 5  # N workflows come with N / 5 agents
LEAF_EVERY = 10  # every 10th workflow calls no child workflow, so others may call it (no cycles)

# check-jsonschema: no cache, no format checks, and an unreachable proxy so that any attempt to fetch a
# remote schema fails loudly instead of silently touching the network (the run then aborts).
CJS_FLAGS = ["--no-cache", "--disable-formats", "*"]
OFFLINE_ENV = {
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "NO_PROXY": "",
    "no_proxy": "",
}

# ---------------------------------------------------------------------------------------------------
# Text material
# ---------------------------------------------------------------------------------------------------

JA_LINES = [
    "以下の内容を日本語で簡潔に要約してください。",
    "重要な数値と固有名詞はそのまま残してください。",
    "箇条書きで三つ以内にまとめてください。",
    "不明な点があれば推測せず「不明」と書いてください。",
    "読者はソフトウェアエンジニアです。専門用語は説明なしで使って構いません。",
    "変更点ごとに影響範囲とリスクを評価してください。",
    "丁寧語（です・ます調）で書いてください。",
    "根拠となる箇所を必ず引用してください。",
    "前回の結果と矛盾する場合は、その理由を説明してください。",
    "回答は二百文字以内に収めてください。",
]
EN_LINES = [
    "Summarize the text below for a busy reader.",
    "Keep every issue number, name and version exactly as written.",
    "Use short bullet points; no more than five.",
    "If something is unclear, say so instead of guessing.",
    "Point out risky changes first, then everything else.",
    "Do not invent facts that are not in the input.",
    "Prefer concrete file names and line numbers over general advice.",
    "Write in a neutral, friendly tone.",
    "List open questions at the end, if there are any.",
    "Answer in the language of the input.",
]
TOPICS = [
    "release",
    "triage",
    "review",
    "digest",
    "report",
    "migrate",
    "translate",
    "classify",
    "research",
    "support",
    "changelog",
    "incident",
    "onboarding",
    "invoice",
    "survey",
]
WORDS = [
    "summary",
    "draft",
    "plan",
    "notes",
    "facts",
    "items",
    "review",
    "verdict",
    "answer",
    "labels",
    "outline",
    "score",
    "check",
    "result",
    "issues",
    "context",
]
MODELS = ["local", "fast", "large", "qwen2.5-7b-instruct", "gpt-4o-mini"]
CAPABILITY_NAMES = {
    "skills": ["style-guide", "release-notes", "glossary"],
    "tools": ["grep", "ripgrep", "http_get"],
    "mcp": ["notes", "github", "filesystem"],
    "subagents": ["researcher", "summarizer"],
}
REGISTRY_AGENTS = ["summarizer", "reviewer", "translator"]

# ---------------------------------------------------------------------------------------------------
# Workflow generator
# ---------------------------------------------------------------------------------------------------


def _indent(lines: Sequence[str], by: int) -> list[str]:
    pad = " " * by
    return [pad + line if line else line for line in lines]


def _item(lines: Sequence[str]) -> list[str]:
    """One step mapping (lines relative to its key column) as a YAML sequence item."""
    return ["- " + lines[0], *_indent(lines[1:], 2)]


def _block(key: str, text_lines: Sequence[str]) -> list[str]:
    return [f"{key}: |", *_indent(text_lines, 2)]


@dataclass(slots=True)
class Ctx:
    """Where a step is generated: what its kind rules allow there."""

    depth: int = 0
    in_loop: bool = False  # a `break` is allowed (sequential loop body, not across `parallel`)
    concurrent: bool = False  # parallel branch or concurrent for_each: no ask/stop/break, dynamic write
    loop_item: bool = False  # `loop.item` exists (for_each)
    loop_index: bool = False  # `loop.index` exists (any loop)


@dataclass(slots=True)
class WorkflowGen:
    rng: random.Random
    name: str
    agent_paths: list[str]  # agent files, relative to the workflow's directory
    child_paths: list[str]  # child workflows (leaves only), relative to the workflow's directory
    ids: list[str] = field(default_factory=list)
    inputs: dict[str, str] = field(default_factory=dict)  # name -> JSON type
    schemas: list[str] = field(default_factory=list)
    inline_agents: list[str] = field(default_factory=list)
    _serial: int = 0

    # -- small helpers ------------------------------------------------------------------------------
    def new_id(self, hint: str = "") -> str:
        self._serial += 1
        word = hint or self.rng.choice(WORDS)
        new = f"{word}_{self._serial}"
        self.ids.append(new)
        return new

    def some_id(self, exclude: str | None = None) -> str | None:
        recent = [i for i in self.ids[-12:] if i != exclude]
        return self.rng.choice(recent) if recent else None

    def some_input(self, jtype: str | None = None) -> str | None:
        names = [n for n, t in self.inputs.items() if jtype is None or t == jtype]
        return self.rng.choice(names) if names else None

    def ja(self, k: int = 1) -> list[str]:
        return self.rng.sample(JA_LINES, k)

    def en(self, k: int = 1) -> list[str]:
        return self.rng.sample(EN_LINES, k)

    def retry_line(self) -> str:
        r = self.rng
        return self.rng.choice(
            [
                f"retry: {{max_attempts: {r.randint(2, 4)}, delay_seconds: {r.randint(0, 5)}}}",
                f"retry: {{max_attempts: {r.randint(2, 5)}, delay_seconds: 1, backoff: {r.choice([1.5, 2.0])}}}",
                f"retry: {{max_attempts: {r.randint(2, 3)}}}",
            ]
        )

    def template_lines(self, ctx: Ctx, own: str | None = None) -> list[str]:
        """A prompt body: Japanese and English prose with placeholders, each and if blocks."""
        r = self.rng
        lines: list[str] = []
        inp = self.some_input("string")
        if inp:
            lines.append(f"Topic: {{{{ inputs.{inp} }}}}")
        lines += self.ja(r.randint(1, 2))
        lines += self.en(r.randint(1, 2))
        if ctx.loop_item:
            lines.append("Item {{ loop.index }}: {{ loop.item }}")
        elif ctx.loop_index:
            lines.append("これは {{ loop.index }} 回目の試行です。")
        sid = self.some_id(exclude=own)
        if sid and r.random() < 0.6:
            choice = r.randrange(3)
            if choice == 0:
                lines += [f"{{{{#each steps.{sid}}}}}", "- {{ this }}", "{{/each}}"]
            elif choice == 1:
                lines.append(f"{{{{#if steps.{sid}}}}}前回の結果: {{{{ json steps.{sid} }}}}{{{{/if}}}}")
            else:
                lines.append(f"Previous step: {{{{ steps.{sid} }}}}")
        arr = self.some_input("array")
        if arr and r.random() < 0.4:
            lines += [f"{{{{#each inputs.{arr}}}}}", "{{@index}}. {{ this }}", "{{/each}}"]
        lines += ["", "入力:", "{{ input }}"]
        return lines

    def llm_keys(self) -> list[str]:
        r = self.rng
        keys: list[str] = []
        if r.random() < 0.4:
            keys.append(f"model: {r.choice(MODELS)}")
        if r.random() < 0.3:
            keys.append(f"temperature: {r.choice([0, 0.2, 0.5, 0.7, 1.0])}")
        if r.random() < 0.2:
            keys.append(f"max_tokens: {r.choice([256, 512, 1024, 4096])}")
        if r.random() < 0.15:
            keys.append(f"reasoning_effort: {r.choice(['low', 'medium', 'high'])}")
        if r.random() < 0.25:
            kind = r.choice(list(CAPABILITY_NAMES))
            names = r.sample(CAPABILITY_NAMES[kind], r.randint(1, 2))
            keys.append(f"{kind}: [{', '.join(names)}]")
        return keys

    def inline_schema(self) -> list[str]:
        r = self.rng
        props = r.sample(WORDS, r.randint(2, 4))
        lines = ["type: object", "properties:"]
        for i, p in enumerate(props):
            if i == 0:
                lines.append(f"  {p}: {{type: string, enum: [low, medium, high]}}")
            elif r.random() < 0.3:
                lines += [f"  {p}:", "    type: array", "    items: {type: string}"]
            else:
                lines.append(f"  {p}: {{type: {r.choice(['string', 'number', 'boolean', 'integer'])}}}")
        lines.append(f"required: [{', '.join(props[:2])}]")
        return lines

    # -- step kinds (each returns the step's lines relative to its key column) ------------------------
    def common(self, ctx: Ctx, lines: list[str]) -> list[str]:
        """Adds the occasional `when:` / `input:` jq that every step kind accepts."""
        r = self.rng
        own = lines[0][4:] if lines and lines[0].startswith("id: ") else None
        sid = self.some_id(exclude=own)
        if sid and r.random() < 0.15:
            lines.append(f"when: '$steps.{sid} != null'")
        if sid and r.random() < 0.12:
            lines.append(f"input: '{{previous: $steps.{sid}, value: .}}'")
        return lines

    def prompt_step(self, ctx: Ctx, schema: str | None = None, plain: bool = False) -> list[str]:
        r = self.rng
        own = self.new_id() if (schema or r.random() < 0.8) else None
        lines = [f"id: {own}"] if own else []
        lines += _block("prompt", self.template_lines(ctx, own))
        if r.random() < 0.2:
            lines.append(f'system: "{r.choice(EN_LINES)}"')
        lines += self.llm_keys()
        if schema:
            lines.append(f"output_schema: {schema}")
        elif not plain and r.random() < 0.15:
            lines += ["output_schema:", *_indent(self.inline_schema(), 2)]
            if r.random() < 0.5:
                lines.append(f"schema_name: {r.choice(WORDS)}_result")
        if r.random() < 0.2:
            lines.append(self.retry_line())
        if r.random() < 0.15:
            lines.append(f"timeout: {r.choice([30, 60, 120, 300])}")
        if not plain and r.random() < 0.15:
            lines.append("output: '{text: ., chars: length}'")
        return self.common(ctx, lines)

    def jq_step(self, ctx: Ctx) -> list[str]:
        r = self.rng
        sid = self.some_id()
        inp = self.some_input()
        exprs = ["{value: ., kind: type}", ".items // [] | length", '[.[]? | tostring] | join("\\n")']
        if sid:
            exprs += [
                f"$steps.{sid}",
                f"{{result: $steps.{sid}, at: now | todate}}",
                f'[$steps.{sid} // [] | .[]? | select(. != null)] | map(tostring) | join(", ")',
                f'if ($steps.{sid} | type) == "array" then ($steps.{sid} | length) else 0 end',
            ]
        if inp:
            exprs += [f"{{ {inp}: $inputs.{inp}, previous: . }}", f"$inputs.{inp} // empty | tostring"]
            if sid:
                exprs.append(f"{{topic: $inputs.{inp}, data: $steps.{sid}, n: ($steps.{sid} | length)}}")
        if ctx.loop_index:
            exprs.append("{index: $loop.index, value: .}")
        expr = r.choice(exprs)
        if expr.endswith("// empty | tostring"):  # exactly one value is a runtime rule; keep it realistic
            expr = expr.replace("// empty | tostring", '// "" | tostring')
        lines = [f"id: {self.new_id()}"] if r.random() < 0.6 else []
        lines.append(f"jq: '{expr}'")
        return self.common(ctx, lines)

    def run_step(self, ctx: Ctx) -> list[str]:
        r = self.rng
        argvs = [
            '[python3, -c, "import sys; print(sys.stdin.read().upper())"]',
            "[git, log, --oneline, -n, '20']",
            '[jq, -r, ".items[]?"]',
            "[wc, -l]",
            "[python3, scripts/check.py, --strict]",
        ]
        inp = self.some_input("string")
        if inp:
            argvs.append(f'[echo, "{{{{ inputs.{inp} }}}}"]')
        if ctx.loop_item:
            argvs.append('[printf, "%s\\n", "{{ loop.item }}"]')
        lines = [f"id: {self.new_id()}"] if r.random() < 0.5 else []
        if r.random() < 0.2:
            lines += ["run:", "  - python3", "  - -c", '  - "print(42)"']
        else:
            lines.append(f"run: {r.choice(argvs)}")
        if r.random() < 0.2:
            lines.append(f"timeout: {r.choice([10, 30])}")
        return self.common(ctx, lines)

    def agent_step(self, ctx: Ctx, inline: str | None = None) -> list[str]:
        r = self.rng
        if inline:
            ref = inline
        else:
            refs = list(REGISTRY_AGENTS) + self.agent_paths[:]
            ref = r.choice(refs) if refs else r.choice(REGISTRY_AGENTS)
        lines = [f"id: {self.new_id()}"] if (inline or r.random() < 0.7) else []
        lines.append(f"agent: {ref}")
        lines += [k for k in self.llm_keys() if not k.startswith("reasoning")]
        if r.random() < 0.2:
            lines.append("files: [README.md, 'docs/{{ input }}.md']")
        if r.random() < 0.15:
            lines.append(self.retry_line())
        return self.common(ctx, lines)

    def write_step(self, ctx: Ctx) -> list[str]:
        r = self.rng
        inp = self.some_input("string")
        if ctx.loop_index:
            path = "out/item-{{ loop.index }}.md"
        elif inp:
            path = f"out/{{{{ inputs.{inp} }}}}-{r.choice(WORDS)}.md"
        else:
            path = f"out/{r.choice(WORDS)}.md"
        if ctx.concurrent and "{{" not in path:
            path = "out/{{ input }}.txt"
        lines = [f'write: "{path}"']
        sid = self.some_id()
        if sid:
            lines.append(f"input: '$steps.{sid}'")
        return lines

    def ask_step(self, ctx: Ctx) -> list[str]:
        r = self.rng
        lines = [f"id: {self.new_id('answer')}"]
        inp = self.some_input("string")
        topic = f"{{{{ inputs.{inp} }}}}" if inp else "this"
        if r.random() < 0.5:
            lines += [
                f'ask: "続行しますか？ Proceed with {topic}?"',
                'choices: ["yes", "no"]',
                'default: "yes"',
            ]
        else:
            lines += [f'ask: "Any extra notes for {topic}?"', "default: none", "multiline: true"]
        return lines

    def decide_step(self, ctx: Ctx) -> list[str]:
        return [
            f"id: {self.new_id('decision')}",
            "decide:",
            "  urgent:",
            "    type: noul",
            "    instructions: 緊急の対応が必要ですか？",
            "  team:",
            "    type: choice",
            "    criteria:",
            "      backend: Server, database and API problems",
            "      frontend: UI and browser problems",
            "      docs: null",
        ]

    def workflow_step(self, ctx: Ctx) -> list[str]:
        r = self.rng
        sid = self.some_id()
        lines = [f"id: {self.new_id('child')}", f"workflow: {r.choice(self.child_paths)}"]
        if sid:
            lines.append(f"input: '$steps.{sid}'")
        if r.random() < 0.3:
            lines.append("when: '. != null'")
        return lines

    def body(self, ctx: Ctx, lo: int, hi: int) -> list[str]:
        lines: list[str] = []
        for _ in range(self.rng.randint(lo, hi)):
            lines += _item(self.simple_step(ctx))
        return lines

    def simple_step(self, ctx: Ctx) -> list[str]:
        makers: list[Callable[[Ctx], list[str]]] = [self.prompt_step, self.jq_step, self.run_step]
        makers += [self.agent_step, self.jq_step]
        if not ctx.concurrent:
            makers.append(self.write_step)
        return self.rng.choice(makers)(ctx)

    def for_each_step(self, ctx: Ctx) -> list[str]:
        r = self.rng
        arr = self.some_input("array")
        sid = self.some_id()
        source = f"$inputs.{arr}" if arr else (f"[$steps.{sid}] | flatten" if sid else "[.[]?]")
        conc = r.random() < 0.5
        lines = [f"id: {self.new_id('each')}", f"for_each: '{source}'"]
        if conc:
            lines.append(f"max_concurrency: {r.choice([2, 4, 8])}")
        inner = Ctx(ctx.depth + 1, in_loop=not conc, concurrent=conc or ctx.concurrent)
        inner.loop_item = inner.loop_index = True
        lines += ["steps:", *_indent(self.body(inner, 1, 3), 2)]
        if not conc and r.random() < 0.4:
            lines += _indent(_item(["when: '.done == true'", "break: true"]), 2)
        if r.random() < 0.3:
            lines.append("output: 'map(select(. != null))'")
        return lines

    def loop_step(self, ctx: Ctx) -> list[str]:
        r = self.rng
        kind = r.choice(["while", "until"])
        cond = ".done" if kind == "until" else "(.done // false) | not"
        lines = [f"id: {self.new_id('loop')}", f"{kind}: '{cond}'", f"max_iterations: {r.randint(2, 6)}"]
        inner = Ctx(ctx.depth + 1, in_loop=True, concurrent=ctx.concurrent, loop_index=True)
        body = _item(self.prompt_step(inner, plain=True))
        body += _item(
            [
                "output: '{done: (length > 20), text: .}'",
                "jq: '.'",
            ]
        )
        if not ctx.concurrent:
            body += _item(["when: '.done'", "break: true"])
        lines += ["steps:", *_indent(body, 2)]
        return lines

    def switch_step(self, ctx: Ctx) -> list[str]:
        r = self.rng
        sid = self.some_id()
        subject = f"$steps.{sid}" if sid else "."
        lines = [f"id: {self.new_id('route')}", "switch:"]
        inner = Ctx(ctx.depth + 1, ctx.in_loop, ctx.concurrent, ctx.loop_item, ctx.loop_index)
        for label in r.sample(["bug", "feature", "question", "docs"], r.randint(1, 3)):
            case = [f'when: \'{subject} | tostring | test("{label}"; "i")\'', "steps:"]
            case += _indent(self.body(inner, 1, 2), 2)
            lines += _indent(_item(case), 2)
        if r.random() < 0.8:
            lines += ["else:", *_indent(self.body(inner, 1, 1), 2)]
        return lines

    def parallel_step(self, ctx: Ctx) -> list[str]:
        r = self.rng
        lines = [f"id: {self.new_id('fanout')}", "parallel:"]
        inner = Ctx(ctx.depth + 1, in_loop=False, concurrent=True)
        branches = r.sample(["tests", "lint", "docs", "security", "summary", "translate_ja"], r.randint(2, 3))
        for b in branches:
            lines += [f"  {b}:", *_indent(self.body(inner, 1, 2), 4)]
        if r.random() < 0.5:
            lines.append(f"output: '{{{', '.join(branches)}}}'")
        return lines

    def group_step(self, ctx: Ctx) -> list[str]:
        inner = Ctx(ctx.depth + 1, ctx.in_loop, ctx.concurrent, ctx.loop_item, ctx.loop_index)
        lines = [f"id: {self.new_id('guarded')}", "group:", *_indent(self.body(inner, 1, 3), 2)]
        lines.append(self.retry_line())
        lines += ["on_error:", *_indent(_item(["jq: '{error: .error, fallback: true}'"]), 2)]
        return lines

    def stop_step(self, ctx: Ctx) -> list[str]:
        sid = self.some_id()
        cond = f"$steps.{sid} == null" if sid else ". == null"
        return [f"when: '{cond}'", "output: '{stopped: true}'", "stop: true"]

    def any_step(self, ctx: Ctx) -> list[str]:
        r = self.rng
        weighted: list[tuple[Callable[[Ctx], list[str]], int]] = [
            (self.prompt_step, 8),
            (self.jq_step, 6),
            (self.run_step, 4),
            (self.agent_step, 4),
            (self.write_step, 1),
        ]
        if ctx.depth < 2:
            weighted += [
                (self.for_each_step, 2),
                (self.switch_step, 2),
                (self.parallel_step, 2),
                (self.loop_step, 1),
                (self.group_step, 1),
            ]
        if not ctx.concurrent:
            weighted += [(self.ask_step, 1), (self.stop_step, 1)]
        if ctx.depth == 0:
            weighted.append((self.decide_step, 1))
            if self.child_paths:
                weighted.append((self.workflow_step, 1))
        makers = [m for m, _ in weighted]
        weights = [w for _, w in weighted]
        return r.choices(makers, weights)[0](ctx)

    # -- whole file ----------------------------------------------------------------------------------
    def header(self) -> list[str]:
        r = self.rng
        topic = r.choice(TOPICS)
        lines = [f"# {self.name}: generated benchmark workflow ({topic})"]
        if r.random() < 0.3:
            lines.append("version: 2")
        lines += [f"name: {self.name}", f"description: {r.choice(EN_LINES)} {r.choice(JA_LINES)}"]
        # inputs
        pool = [("topic", "string"), ("audience", "string"), ("changes", "array"), ("limit", "integer")]
        pool += [("language", "string"), ("urgent", "boolean"), ("tickets", "array")]
        chosen = r.sample(pool, r.randint(1, 4))
        lines.append("inputs:")
        for name, jtype in chosen:
            self.inputs[name] = jtype
            style = r.randrange(3)
            if jtype == "array":
                lines += [f"  {name}:", "    type: array", "    items: {type: string}"]
                if style:
                    lines.append("    default: []")
            elif style == 0:
                lines.append(f"  {name}: {jtype}")
            else:
                default = {"string": '"ja"', "integer": "10", "boolean": "false"}[jtype]
                lines += [f"  {name}:", f"    type: {jtype}", f"    default: {default}"]
                if style == 2:
                    lines.append(f"    description: {r.choice(EN_LINES)}")
        if r.random() < 0.25:
            lines += ["input_schema:", "  type: [string, object]"]
        if r.random() < 0.2:
            lines += [
                "models:",
                "  fast:",
                '    - provider: {base_url: "http://localhost:1234/v1"}',
                "      model_id: qwen2.5-7b-instruct",
                "      default_max_tokens: 1024",
            ]
        # default
        if r.random() < 0.8:
            lines.append("default:")
            lines.append(f"  model: {r.choice(MODELS)}")
            if r.random() < 0.5:
                lines.append(f"  temperature: {r.choice([0.1, 0.2, 0.3])}")
            if r.random() < 0.4:
                lines += _indent(_block("system", self.ja(2) + self.en(1)), 2)
            lines.append("  " + self.retry_line())
            if r.random() < 0.6:
                lines.append(f"  timeout: {r.choice([60, 120, 300])}")
        # schemas
        n_schemas = r.choice([0, 0, 1, 1, 2])
        if n_schemas:
            lines.append("schemas:")
            for _ in range(n_schemas):
                name = f"{r.choice(WORDS)}_{len(self.schemas) + 1}"
                self.schemas.append(name)
                lines += [f"  {name}:", *_indent(self.inline_schema(), 4)]
        # inline agents
        n_agents = r.choice([0, 0, 0, 1, 1, 2])
        if n_agents:
            lines.append("agents:")
            for _ in range(n_agents):
                name = (
                    f"{r.choice(['editor', 'critic', 'helper', 'translator'])}_{len(self.inline_agents) + 1}"
                )
                self.inline_agents.append(name)
                lines += [f"  {name}:", *_indent(_block("system", self.ja(1) + self.en(2)), 4)]
                lines.append(f"    temperature: {r.choice([0.1, 0.3, 0.5])}")
        return lines

    def generate(self, min_lines: int, max_lines: int) -> str:
        r = self.rng
        lines = self.header()
        forced = [self.prompt_step(Ctx(), schema=s) for s in self.schemas]
        forced += [self.agent_step(Ctx(), inline=a) for a in self.inline_agents]
        # at least ~25 lines of ordinary steps, so that no file is (nearly) all header
        fixed = len(lines) + sum(len(s) for s in forced)
        target = min(max(r.randint(min_lines, max_lines), fixed + 25), max_lines)
        steps: list[list[str]] = []
        used = len(lines) + 2 + sum(len(s) for s in forced)  # + "steps:" and a possible "output:"
        failures = 0
        while used < target and failures < 50:
            n_ids = len(self.ids)
            step = _item(self.any_step(Ctx()))
            if used + len(step) > max_lines:
                del self.ids[n_ids:]  # the step is dropped, and so are its ids
                failures += 1
                continue
            steps.append(step)
            used += len(step)
        for s in forced:
            steps.insert(r.randint(0, len(steps)), _item(s))
        lines.append("steps:")
        for s in steps:
            lines += _indent(s, 2)
        if r.random() < 0.3 and self.ids:
            lines.append(f"output: '{{result: $steps.{r.choice(self.ids)}, last: .}}'")
        return "\n".join(lines) + "\n"


def make_agent(rng: random.Random, name: str) -> str:
    """An agent Markdown file: frontmatter (settings, schemas) and a prompt body, 30-120 lines."""
    r = rng
    front = [f"name: {name}", f"description: {r.choice(EN_LINES)}"]
    front.append(f"model: {r.choice(MODELS)}")
    if r.random() < 0.6:
        front.append(f"temperature: {r.choice([0, 0.1, 0.2, 0.7])}")
    if r.random() < 0.4:
        front.append(f"max_tokens: {r.choice([300, 800, 2000])}")
    if r.random() < 0.3:
        front.append(f"reasoning_effort: {r.choice(['low', 'medium', 'high'])}")
    if r.random() < 0.5:
        kind = r.choice(list(CAPABILITY_NAMES))
        front.append(f"{kind}: [{', '.join(r.sample(CAPABILITY_NAMES[kind], 2))}]")
    if r.random() < 0.5:
        front += [
            "input_schema:",
            "  type: object",
            "  properties:",
            "    focus: {type: string}",
            "    text: {type: string}",
            "  required: [text]",
        ]
    if r.random() < 0.5:
        front += [
            "output_schema:",
            "  type: object",
            "  properties:",
            "    verdict: {type: string, enum: [approve, revise]}",
            "    problems:",
            "      type: array",
            "      items: {type: string}",
            "  required: [verdict, problems]",
            f"schema_name: {name.replace('-', '_')}_output",
        ]
    body = ["# 役割 / Role", "", *r.sample(JA_LINES, 2), *r.sample(EN_LINES, 2), ""]
    body += ["{{#if input.focus}}Pay special attention to: {{ input.focus }}.{{/if}}", ""]
    target = r.randint(MIN_LINES, MAX_LINES) - len(front) - 2
    section = 0
    while len(body) < target + 2:
        section += 1
        body += ["", f"## {section}. {r.choice(WORDS).capitalize()}", ""]
        for _ in range(r.randint(2, 6)):
            body.append(f"- {r.choice(JA_LINES + EN_LINES)}")
    body = body[: max(target, 8)]
    return "---\n" + "\n".join(front) + "\n---\n" + "\n".join(body).rstrip() + "\n"


def frontmatter(text: str) -> str:
    lines = text.splitlines()
    end = lines.index("---", 1)
    return "\n".join(lines[1:end]) + "\n"


# ---------------------------------------------------------------------------------------------------
# Corpus on disk
# ---------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Corpus:
    project: Path  # what lait lints: project/workflows/*.yml + project/agents/*.md
    workflows: list[Path]
    agents: list[Path]
    agent_fronts: list[Path]  # outside `project`, for check-jsonschema
    workflow_lines: int
    agent_lines: int


def generate_corpus(root: Path, n: int, seed: int) -> Corpus:
    project = root / "project"
    wf_dir, ag_dir, fm_dir = project / "workflows", project / "agents", root / "agent_frontmatter"
    for d in (wf_dir, ag_dir, fm_dir):
        d.mkdir(parents=True)
    n_agents = max(1, n // AGENTS_PER_WORKFLOW)
    agents, fronts, agent_lines = [], [], 0
    for i in range(n_agents):
        name = f"agent_{i:04d}"
        for attempt in range(100):
            text = make_agent(random.Random(f"{seed}-agent-{i}-{attempt}"), name)
            if MIN_LINES <= text.count("\n") <= MAX_LINES:
                break
        else:
            raise SystemExit(f"generator bug: no draw of {name}.md has {MIN_LINES}-{MAX_LINES} lines")
        agent_lines += text.count("\n")
        path = ag_dir / f"{name}.md"
        path.write_text(text, encoding="utf-8")
        front = fm_dir / f"{name}.yml"
        front.write_text(frontmatter(text), encoding="utf-8")
        agents.append(path)
        fronts.append(front)
    leaves = [f"./wf_{i:04d}.yml" for i in range(0, n, LEAF_EVERY)]
    workflows, workflow_lines = [], 0
    for i in range(n):
        for attempt in range(100):  # a header plus forced steps can overflow MAX_LINES: draw again
            rng = random.Random(f"{seed}-workflow-{i}-{attempt}")
            agent_refs = [f"../agents/{p.name}" for p in rng.sample(agents, min(3, len(agents)))]
            children = [] if i % LEAF_EVERY == 0 else leaves
            gen = WorkflowGen(rng, f"wf_{i:04d}", agent_refs, children)
            text = gen.generate(MIN_LINES, MAX_LINES)
            count = text.count("\n")
            if MIN_LINES <= count <= MAX_LINES:
                break
        else:
            raise SystemExit(f"generator bug: no draw of wf_{i:04d}.yml has {MIN_LINES}-{MAX_LINES} lines")
        workflow_lines += count
        path = wf_dir / f"wf_{i:04d}.yml"
        path.write_text(text, encoding="utf-8")
        workflows.append(path)
    return Corpus(project, workflows, agents, fronts, workflow_lines, agent_lines)


def big_workflow(lines: int, seed: int, agent_refs: list[str]) -> str:
    """One workflow of about ``lines`` lines (many steps); children are not referenced."""
    gen = WorkflowGen(random.Random(f"{seed}-big-{lines}"), f"big_{lines}", agent_refs, [])
    text = gen.generate(lines, lines)
    return text + "# padding\n" * (lines - text.count("\n"))  # exactly ``lines`` lines


# ---------------------------------------------------------------------------------------------------
# Commands and measurements
# ---------------------------------------------------------------------------------------------------


def use_bytecode_cache() -> None:
    """Run every tool with its modules' bytecode cached, as an installed tool runs (pip writes the
    ``.pyc`` files of what it installs): without ``PYTHONDONTWRITEBYTECODE`` and with
    ``PYTHONPYCACHEPREFIX=bench/.out/pycache``, which the untimed first round of each job fills, so no
    ``__pycache__`` lands in the checkout. With ``PYTHONDONTWRITEBYTECODE=1`` (as in this development
    environment) every ``lait lint`` would otherwise compile lait's modules from source on each start,
    some 60 ms of CPU that check-jsonschema, whose installed modules have their ``.pyc`` files, never pays."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(OUT_FILE.parent / "pycache")


def _script(name: str) -> list[str] | None:
    """A console script of *this* interpreter's environment (bypassing pyenv-style shims)."""
    path = Path(sysconfig.get_path("scripts")) / name
    if path.is_file() and os.access(path, os.X_OK):
        return [str(path)]
    return None


def lait_cmd() -> list[str]:
    return _script("lait") or [sys.executable, "-m", "lait_cli.main"]


def cjs_cmd() -> list[str]:
    found = _script("check-jsonschema") or ([w] if (w := shutil.which("check-jsonschema")) else None)
    return found or [sys.executable, "-m", "check_jsonschema"]


def lait_job(corpus: Corpus, *extra: str) -> list[list[str]]:
    return [[*lait_cmd(), "lint", "--no-config", *extra, str(corpus.project)]]


def cjs_job(corpus: Corpus) -> list[list[str]]:
    base = [*cjs_cmd(), *CJS_FLAGS]
    return [
        [*base, "--schemafile", str(WORKFLOW_SCHEMA), *map(str, corpus.workflows)],
        [*base, "--schemafile", str(AGENT_SCHEMA), *map(str, corpus.agent_fronts)],
    ]


def cjs_env() -> dict[str, str]:
    return {**os.environ, **OFFLINE_ENV}


@dataclass(slots=True)
class Timing:
    wall_s: float
    cpu_s: float  # user + sys of the child processes: hardly affected by other load on a shared machine


def run_job(cmds: list[list[str]], env: dict[str, str] | None = None) -> Timing:
    """Wall and CPU time of running the commands one after another; any failure aborts the benchmark."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    for cmd in cmds:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, check=False)
        if proc.returncode != 0:
            raise SystemExit(
                f"command failed (exit {proc.returncode}): {' '.join(cmd[:6])} ...\n"
                f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
            )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu)


def verify_clean(corpus: Corpus) -> dict[str, int]:
    """Abort unless lait reports nothing but the expected warning(s); returns the counts per code."""
    cmd = lait_job(corpus, "--format", "json")[0]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"lait lint failed on the generated files (exit {proc.returncode}):\n{proc.stderr}")
    findings: list[dict[str, Any]] = json.loads(proc.stdout)
    unexpected = [f for f in findings if f["code"] not in EXPECTED_CODES or f["severity"] != "warning"]
    if unexpected:
        shown = "\n".join(f"{f['file']}:{f['line']}: {f['code']} {f['message']}" for f in unexpected[:20])
        raise SystemExit(
            f"generated files are not lint-clean ({len(unexpected)} unexpected findings):\n{shown}"
        )
    counts: dict[str, int] = {}
    for f in findings:
        counts[f["code"]] = counts.get(f["code"], 0) + 1
    return counts


def _group_rss_kib(pgid: int) -> int:
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
            if int(stat[stat.rfind(")") + 2 :].split()[2]) != pgid:
                continue
            with open(f"/proc/{name}/status", encoding="ascii", errors="replace") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return total


def peak_total_rss_kib(cmds: list[list[str]], env: dict[str, str] | None = None) -> int:
    """Peak of the summed RSS of every process of each command (a parent and its lint workers),
    sampled every 20 ms (Linux); the largest over ``cmds``. Pages the workers share with the parent
    count once per process, so this overstates what the job really holds."""
    peak = 0
    for cmd in cmds:
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=REPO,
            start_new_session=True,
        )
        try:
            while proc.poll() is None:
                peak = max(peak, _group_rss_kib(proc.pid))
                time.sleep(0.02)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
    return peak


def peak_rss_kib(cmds: list[list[str]], env: dict[str, str] | None = None) -> int:
    """Peak RSS of the largest process among ``cmds``, each measured in a fresh wrapper process.

    RUSAGE_CHILDREN in the wrapper covers only the command it waited for, so the number belongs to
    that command alone (ru_maxrss is in KiB on Linux).
    """
    wrapper = (
        "import resource, subprocess, sys\n"
        "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "sys.exit(rc)\n"
    )
    peak = 0
    for cmd in cmds:
        proc = subprocess.run(
            [sys.executable, "-c", wrapper, *cmd],
            capture_output=True,
            text=True,
            env=env,
            cwd=REPO,
            check=False,
        )
        if proc.returncode != 0:
            raise SystemExit(f"command failed while measuring RSS: {' '.join(cmd[:6])} ...")
        peak = max(peak, int(proc.stdout.strip()))
    return peak


def _ms(values: Sequence[float], scale: float = 1000.0) -> list[float]:
    return [round(v * scale, 2) for v in values]


@dataclass(slots=True)
class SizeResult:
    n_workflows: int
    n_agents: int
    workflow_lines: int
    agent_lines: int
    expected_findings: dict[str, int]
    lait: list[Timing]
    cjs: list[Timing]
    serial: list[Timing]  # lait lint --jobs 1

    @staticmethod
    def _median(timings: list[Timing], cpu: bool = False) -> float:
        return statistics.median(t.cpu_s if cpu else t.wall_s for t in timings)

    @property
    def lait_median(self) -> float:
        return self._median(self.lait)

    @property
    def cjs_median(self) -> float:
        return self._median(self.cjs)

    @property
    def ratio(self) -> float:
        return self.lait_median / self.cjs_median

    @property
    def cpu_ratio(self) -> float:
        return self._median(self.lait, cpu=True) / self._median(self.cjs, cpu=True)

    @property
    def serial_ratio(self) -> float:
        return self._median(self.serial) / self.cjs_median

    @property
    def files(self) -> int:
        return self.n_workflows + self.n_agents

    @property
    def serial_cpu_per_file_ms(self) -> float:
        return self._median(self.serial, cpu=True) * 1000 / self.files

    def as_json(self) -> dict[str, Any]:
        return {
            "n_workflows": self.n_workflows,
            "n_agents": self.n_agents,
            "workflow_lines": self.workflow_lines,
            "agent_lines": self.agent_lines,
            "expected_findings": self.expected_findings,
            "lait_wall_ms": _ms([t.wall_s for t in self.lait]),
            "check_jsonschema_wall_ms": _ms([t.wall_s for t in self.cjs]),
            "lait_cpu_ms": _ms([t.cpu_s for t in self.lait]),
            "check_jsonschema_cpu_ms": _ms([t.cpu_s for t in self.cjs]),
            "lait_median_ms": round(self.lait_median * 1000, 2),
            "check_jsonschema_median_ms": round(self.cjs_median * 1000, 2),
            "lait_cpu_median_ms": round(self._median(self.lait, cpu=True) * 1000, 2),
            "check_jsonschema_cpu_median_ms": round(self._median(self.cjs, cpu=True) * 1000, 2),
            "ratio": round(self.ratio, 3),
            "cpu_ratio": round(self.cpu_ratio, 3),
            "lait_jobs1_wall_ms": _ms([t.wall_s for t in self.serial]),
            "lait_jobs1_cpu_ms": _ms([t.cpu_s for t in self.serial]),
            "jobs1_ratio": round(self.serial_ratio, 3),
            "jobs1_cpu_per_file_ms": round(self.serial_cpu_per_file_ms, 3),
        }


def bench_size(root: Path, n: int, runs: int, seed: int) -> tuple[SizeResult, Corpus]:
    corpus = generate_corpus(root / f"n{n}", n, seed)
    expected = verify_clean(corpus)
    lait_cmds, cjs_cmds, env = lait_job(corpus), cjs_job(corpus), cjs_env()
    serial_cmds = lait_job(corpus, "--jobs", "1")
    run_job(lait_cmds)  # one untimed round each: page cache, .pyc files
    run_job(cjs_cmds, env)
    jobs: dict[str, tuple[list[list[str]], dict[str, str] | None]] = {
        "lait": (lait_cmds, None),
        "cjs": (cjs_cmds, env),
        "serial": (serial_cmds, None),
    }
    timings: dict[str, list[Timing]] = {name: [] for name in jobs}
    order = list(jobs)
    for i in range(runs):
        for name in order[i % 3 :] + order[: i % 3]:  # each tool goes first in turn
            cmds, job_env = jobs[name]
            timings[name].append(run_job(cmds, job_env))
    result = SizeResult(
        n,
        len(corpus.agents),
        corpus.workflow_lines,
        corpus.agent_lines,
        expected,
        timings["lait"],
        timings["cjs"],
        timings["serial"],
    )
    print(
        f"  N={n:<5} lait {result.lait_median * 1000:8.1f} ms   check-jsonschema "
        f"{result.cjs_median * 1000:8.1f} ms   ratio {result.ratio:.2f} (CPU time: {result.cpu_ratio:.2f}); "
        f"--jobs 1: ratio {result.serial_ratio:.2f}, {result.serial_cpu_per_file_ms:.2f} ms CPU per file",
        flush=True,
    )
    return result, corpus


@dataclass(slots=True)
class InProcessResult:
    lines: int
    size_bytes: int
    warm: list[Timing]  # one process, a fresh Linter per run: expression caches are warm after run 1
    cold: list[Timing]  # a fresh process per run (after the warm-up call): caches start empty
    target_ms: float

    @staticmethod
    def _median_ms(timings: list[Timing], cpu: bool = False) -> float:
        return statistics.median(t.cpu_s if cpu else t.wall_s for t in timings) * 1000

    @property
    def median_ms(self) -> float:
        return self._median_ms(self.warm)

    @property
    def cold_median_ms(self) -> float:
        return self._median_ms(self.cold)

    def as_json(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "bytes": self.size_bytes,
            "warm_wall_ms": _ms([t.wall_s for t in self.warm]),
            "warm_cpu_ms": _ms([t.cpu_s for t in self.warm]),
            "cold_wall_ms": _ms([t.wall_s for t in self.cold]),
            "cold_cpu_ms": _ms([t.cpu_s for t in self.cold]),
            "median_ms": round(self.median_ms, 2),
            "cpu_median_ms": round(self._median_ms(self.warm, cpu=True), 2),
            "cold_median_ms": round(self.cold_median_ms, 2),
            "cold_cpu_median_ms": round(self._median_ms(self.cold, cpu=True), 2),
            "target_ms": self.target_ms,
            "met": self.median_ms <= self.target_ms,
            "cold_met": self.cold_median_ms <= self.target_ms,
        }


WARMUP_WORKFLOW = """\
inputs:
  topic: string
steps:
  - id: first
    prompt: |
      {{#if inputs.topic}}Topic: {{ inputs.topic }}{{/if}}
      {{ input }}
  - jq: '$steps.first | length'
  - jq: '[.[]? | select(. != null) | tostring] | map(test("a"; "i")) | any'
"""

_COLD_SCRIPT = """
import sys, time
from pathlib import Path
from lait_core.documents.config_file import ConfigMode
from lait_core.lint.engine import Linter, LintOptions
warm, big = Path(sys.argv[1]), Path(sys.argv[2])
Linter(LintOptions(ConfigMode.DISABLED)).lint_text(warm.read_text(encoding="utf-8"), warm)
text = big.read_text(encoding="utf-8")
start, cpu = time.perf_counter(), time.process_time()
Linter(LintOptions(ConfigMode.DISABLED)).lint_text(text, big)
print(time.perf_counter() - start, time.process_time() - cpu)
"""


def bench_in_process(root: Path, seed: int, runs: int, agents: list[Path]) -> list[InProcessResult]:
    from lait_core.documents.config_file import ConfigMode
    from lait_core.lint.engine import Linter, LintOptions

    big_dir = root / "big"
    big_dir.mkdir()
    refs = [os.path.relpath(a, big_dir) for a in agents[:3]]
    warm = big_dir / "warmup.yml"
    # the warm-up also runs lait_core's one-time lazy set-up (the table of callable jq builtins, built
    # on the first expression that calls a function: ~9-16 ms), which, like imports, a process pays once
    warm.write_text(WARMUP_WORKFLOW, encoding="utf-8")
    Linter(LintOptions(ConfigMode.DISABLED)).lint_text(warm.read_text(encoding="utf-8"), warm)
    results = []
    for size, target in IN_PROCESS_TARGETS_MS.items():
        text = big_workflow(size, seed, refs)
        path = big_dir / f"big_{size}.yml"
        path.write_text(text, encoding="utf-8")
        warm_runs: list[Timing] = []
        first, rest = text.split("\n", 1)
        assert first.startswith("#"), "the generator starts every workflow with a comment line"
        for k in range(runs):
            # each run gets a slightly different text (the header comment), so a cache of whole
            # documents by text cannot answer; caches of single jq expressions and templates can
            variant = f"{first} (run {k + 1})\n{rest}"
            linter = Linter(LintOptions(ConfigMode.DISABLED))
            start, cpu = time.perf_counter(), time.process_time()
            diags = linter.lint_text(variant, path)
            warm_runs.append(Timing(time.perf_counter() - start, time.process_time() - cpu))
            bad = [d for d in diags if d.code not in EXPECTED_CODES]
            if bad:
                raise SystemExit(f"{path.name} is not lint-clean: {bad[0].code} {bad[0].message}")
        cold_runs: list[Timing] = []
        for _ in range(runs):
            proc = subprocess.run(
                [sys.executable, "-c", _COLD_SCRIPT, str(warm), str(path)],
                capture_output=True,
                text=True,
                cwd=REPO,
                check=True,
            )
            wall, cpu = map(float, proc.stdout.split())
            cold_runs.append(Timing(wall, cpu))
        res = InProcessResult(text.count("\n"), len(text.encode()), warm_runs, cold_runs, target)
        print(
            f"  {res.lines:>6}-line workflow: {res.median_ms:7.1f} ms warm caches, "
            f"{res.cold_median_ms:7.1f} ms cold caches (target <= {target:.0f} ms)",
            flush=True,
        )
        results.append(res)
    return results


def tool_version(cmd: list[str]) -> str:
    proc = subprocess.run([*cmd, "--version"], capture_output=True, text=True, check=False)
    return (proc.stdout or proc.stderr).strip()


def print_table(sizes: list[SizeResult], inproc: list[InProcessResult], rss: dict[str, Any]) -> None:
    def med_min(timings: list[Timing], cpu: bool = False, digits: int = 0) -> str:
        values = [(t.cpu_s if cpu else t.wall_s) * 1000 for t in timings]
        return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f})"

    print()
    print(
        "| N wf | N agents | lines | lait wall ms, median (min) | check-jsonschema wall ms | ratio "
        "| lait CPU ms | check-jsonschema CPU ms | CPU ratio | lait --jobs 1 wall ms | ratio "
        "| CPU ms per file |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in sizes:
        print(
            f"| {s.n_workflows} | {s.n_agents} | {s.workflow_lines + s.agent_lines:,} "
            f"| {med_min(s.lait)} | {med_min(s.cjs)} | **{s.ratio:.2f}** "
            f"| {med_min(s.lait, True)} | {med_min(s.cjs, True)} | {s.cpu_ratio:.2f} "
            f"| {med_min(s.serial)} | **{s.serial_ratio:.2f}** | {s.serial_cpu_per_file_ms:.2f} |"
        )
    print()
    print(
        "| in-process lint | warm caches: wall ms, median (min) | CPU ms | cold caches: wall ms | CPU ms "
        "| target | met (warm / cold) |"
    )
    print("|---|---:|---:|---:|---:|---:|:-:|")
    for r in inproc:
        met = " / ".join("yes" if t <= r.target_ms else "NO" for t in (r.median_ms, r.cold_median_ms))
        print(
            f"| {r.lines:,}-line workflow | {med_min(r.warm, False, 1)} | {med_min(r.warm, True, 1)} "
            f"| {med_min(r.cold, False, 1)} | {med_min(r.cold, True, 1)} | <= {r.target_ms:.0f} | {met} |"
        )
    print()
    print(
        f"peak RSS at N={rss['n_workflows']} (the largest single process): lait lint {rss['lait_kib'] / 1024:.1f} MiB, "
        f"with --jobs 1 {rss['lait_jobs1_kib'] / 1024:.1f} MiB, "
        f"all of lait's processes together {rss.get('lait_all_processes_kib', 0) / 1024:.1f} MiB, "
        f"check-jsonschema {rss['check_jsonschema_kib'] / 1024:.1f} MiB"
    )
    if sizes:
        largest = max(sizes, key=lambda s: s.n_workflows)
        verdict = "met" if largest.ratio <= RATIO_TARGET else "NOT met"
        print(f"ratio target (<= {RATIO_TARGET} at N={largest.n_workflows}): {verdict} ({largest.ratio:.2f})")
        verdict = "met" if largest.serial_ratio <= SERIAL_RATIO_TARGET else "NOT met"
        print(
            f"--jobs 1 ratio target (<= {SERIAL_RATIO_TARGET} at N={largest.n_workflows}): {verdict} "
            f"({largest.serial_ratio:.2f})"
        )
        per_file = largest.serial_cpu_per_file_ms
        verdict = "met" if per_file <= PER_FILE_TARGET_MS else "NOT met"
        print(f"--jobs 1 CPU per file (<= {PER_FILE_TARGET_MS:g} ms): {verdict} ({per_file:.2f} ms)")


MEMORY_TARGET = 1.5  # lait's peak RSS / check-jsonschema's


def memory_only(n: int, seed: int) -> int:
    """Peak RSS of each tool on one generated project of ``n`` workflows (one run each)."""
    root = Path(tempfile.mkdtemp(prefix="lait-bench-"))
    try:
        corpus = generate_corpus(root / f"n{n}", n, seed)
        load = os.getloadavg()[0]
        cjs = peak_rss_kib(cjs_job(corpus), cjs_env())
        rows = {
            "lait lint (largest process)": peak_rss_kib(lait_job(corpus)),
            "lait lint --jobs 1": peak_rss_kib(lait_job(corpus, "--jobs", "1")),
        }
        if sys.platform == "linux":
            rows["lait lint (all its processes, summed)"] = peak_total_rss_kib(lait_job(corpus))
        print(f"{n} workflows + {len(corpus.agents)} agents; cpus {os.cpu_count()}, load average {load:.2f}")
        print(f"check-jsonschema (largest process): {cjs / 1024:.1f} MiB")
        for label, kib in rows.items():
            verdict = "met" if kib <= MEMORY_TARGET * cjs else "NOT met"
            print(f"{label}: {kib / 1024:.1f} MiB, {kib / cjs:.2f}x (target <= {MEMORY_TARGET}x: {verdict})")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, nargs="+", default=[50, 1000], help="numbers of workflow files")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per tool and size")
    parser.add_argument("--seed", type=int, default=20240601, help="generator seed")
    parser.add_argument("--keep", action="store_true", help="keep the generated files (path is printed)")
    parser.add_argument("--out", type=Path, default=OUT_FILE, help="where to write the JSON results")
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="keep the environment's bytecode setting (see use_bytecode_cache)",
    )
    parser.add_argument(
        "--memory-only",
        type=int,
        metavar="N",
        help="only measure peak memory at N workflows (target: lait <= 1.5x check-jsonschema)",
    )
    args = parser.parse_args(argv)
    if not args.no_bytecode_cache:
        use_bytecode_cache()
    if args.memory_only is not None:
        return memory_only(args.memory_only, args.seed)
    if args.runs < 1 or any(n < 1 for n in args.n):
        parser.error("--n and --runs must be positive")

    root = Path(tempfile.mkdtemp(prefix="lait-bench-"))
    try:
        print(f"lait: {' '.join(lait_cmd())}  ({tool_version(lait_cmd())})")
        print(f"check-jsonschema: {' '.join(cjs_cmd())}  ({tool_version(cjs_cmd())})")
        load_before = os.getloadavg()
        print(
            f"cpus: {os.cpu_count()}, python {platform.python_version()}, runs: {args.runs}, "
            f"load average {load_before[0]:.2f}"
        )
        print("subprocess jobs (whole job: workflows + agents):")
        sizes: list[SizeResult] = []
        largest: Corpus | None = None
        for n in sorted(set(args.n)):
            res, corpus = bench_size(root, n, args.runs, args.seed)
            sizes.append(res)
            largest = corpus
        assert largest is not None
        print("in-process (fresh Linter per run, after a warm-up call):")
        inproc = bench_in_process(root, args.seed, args.runs, largest.agents)
        rss = {
            "n_workflows": len(largest.workflows),
            "lait_kib": peak_rss_kib(lait_job(largest)),
            "lait_jobs1_kib": peak_rss_kib(lait_job(largest, "--jobs", "1")),
            "check_jsonschema_kib": peak_rss_kib(cjs_job(largest), cjs_env()),
        }
        if sys.platform == "linux":
            rss["lait_all_processes_kib"] = peak_total_rss_kib(lait_job(largest))
        load_after = os.getloadavg()
        print_table(sizes, inproc, rss)
        print(f"load average (1 min) before / after: {load_before[0]:.2f} / {load_after[0]:.2f}")
        data = {
            "machine": {
                "cpus": os.cpu_count(),
                "load_average_1min_before_after": [round(load_before[0], 2), round(load_after[0], 2)],
                "python": platform.python_version(),
                "platform": platform.platform(),
            },
            "tools": {"lait": tool_version(lait_cmd()), "check_jsonschema": tool_version(cjs_cmd())},
            "settings": {
                "runs": args.runs,
                "seed": args.seed,
                "lait_command": [*lait_cmd(), "lint", "--no-config", "<project dir>"],
                "check_jsonschema_flags": CJS_FLAGS,
                "agents_per_workflow": 1 / AGENTS_PER_WORKFLOW,
            },
            "subprocess": [s.as_json() for s in sizes],
            "ratio_target": RATIO_TARGET,
            "jobs1_ratio_target": SERIAL_RATIO_TARGET,
            "jobs1_cpu_per_file_target_ms": PER_FILE_TARGET_MS,
            "in_process": [r.as_json() for r in inproc],
            "peak_rss": rss,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"\nwrote {args.out}")
    finally:
        if args.keep:
            print(f"generated files kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
