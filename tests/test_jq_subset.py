"""The jq grammar subset (lait_core.syntax.jq_subset) never calls valid what libjq rejects: checked on
hand-picked near misses and on thousands of generated expressions, each compiled by libjq."""

from __future__ import annotations

import random

import jq as libjq
import pytest

from lait_core.syntax import jq
from lait_core.syntax.jq_subset import parses


def compiles(expr: str) -> bool:
    try:
        libjq.compile(expr, args={name: None for name in jq.GLOBALS})
    except ValueError:
        return False
    return True


def libjq_parses(expr: str) -> bool:
    """libjq parses ``expr`` (as the body of a definition nothing calls: names are not bound)."""
    return compiles(f"def _unused: ({expr}\n\n); .")


COMMON = [
    "$steps.each_4 == null",
    "{docs, translate_ja}",
    "{topic: $inputs.urgent, data: $steps.answer_5, n: ($steps.answer_5 | length)}",
    '[.[]? | tostring] | join("\\n")',
    '[$steps.fanout_8 // [] | .[]? | select(. != null)] | map(tostring) | join(", ")',
    "{result: $steps.review_1, at: now | todate}",
    '$steps.notes_2 | tostring | test("docs"; "i")',
    "[$steps.verdict_1] | flatten",
    "if .a then 1 elif .b then 2 else 3 end",
    '.["a b"] | ."c"?',
    "$loop.index % 2 == 0 and ($inputs.n > 3 or false)",
    '{(.k): .v, "s": 1, $steps}',
    "[]",
    ".",
]

NEAR_MISSES = [
    "{a: 1 + 2}",  # an object value is terms joined by |
    "1 == 2 == 3",  # comparisons do not chain
    "f()",
    "length(",
    ".a |",
    "| .a",
    "{a,}",
    "[1,]",
    "(1",
    ". a",
    ".a .. b",
    '"\\(1)"',
    '"\\x"',
    "$",
    ".a b",
    "{1: 2}",
    "if . then 1 else 2",
    "1 +",
    "a::b",
    "@base64",
    ". as $x | $x",
    "reduce .[] as $x (0; . + $x)",
    "def f: 1; f",
    ".a # comment",
    "-1",
    "1 = 2",
    ".a?//1",
    "{a: b: c}",
    ".[1:2]",
    "..",
    "$__loc__",
    "",
    "   ",
]


@pytest.mark.parametrize("expr", COMMON)
def test_common_expressions_are_in_the_subset(expr: str) -> None:
    assert parses(expr)
    assert jq._known_valid(expr)
    assert compiles(expr)


@pytest.mark.parametrize("expr", NEAR_MISSES)
def test_near_misses_are_left_to_libjq(expr: str) -> None:
    assert not parses(expr)
    assert not jq._known_valid(expr)


VOCABULARY = [
    ".",
    ".a",
    ".b",
    "$steps",
    "$inputs",
    "$x",
    "1",
    "2.5",
    '"s"',
    '"\\n"',
    "length",
    "select",
    "map",
    "test",
    "not",
    "if",
    "then",
    "elif",
    "else",
    "end",
    "and",
    "or",
    "|",
    ",",
    "//",
    "==",
    "<",
    "+",
    "-",
    "*",
    "%",
    "?",
    ";",
    ":",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "as",
    "@text",
    "?//",
    "..",
    "::",
    "#",
    "=",
    "|=",
    "$__loc__",
    "reduce",
    "try",
    '"\\(',
    ".[",
    "!=",
    ">=",
    "/",
]


def _mutations(rng: random.Random, expr: str) -> str:
    tokens = expr.split(" ")
    for _ in range(rng.randint(1, 3)):
        choice = rng.random()
        at = rng.randrange(len(tokens) + 1)
        if choice < 0.4:
            tokens.insert(at, rng.choice(VOCABULARY))
        elif choice < 0.7 and tokens:
            del tokens[min(at, len(tokens) - 1)]
        elif tokens:
            tokens[min(at, len(tokens) - 1)] = rng.choice(VOCABULARY)
    return rng.choice((" ", "")).join(tokens)


def test_generated_expressions_in_the_subset_all_compile(seed: int = 20261203) -> None:
    rng = random.Random(seed)
    accepted = 0
    checked: set[str] = set()
    for k in range(40_000):
        if k % 2:
            expr = (" " if rng.random() < 0.7 else "").join(
                rng.choice(VOCABULARY) for _ in range(rng.randint(1, 9))
            )
        else:
            expr = _mutations(rng, rng.choice(COMMON))
        if expr in checked or not parses(expr):
            continue
        checked.add(expr)
        accepted += 1
        assert libjq_parses(expr), expr
        if jq._known_valid(expr):
            assert compiles(expr), expr
    assert accepted > 300  # the generator reaches the subset often enough to mean something


def test_check_many_gives_the_same_results_with_and_without_the_subset() -> None:
    exprs = [*COMMON, *NEAR_MISSES, "$nope | length", "nosuchfunction(1)", "length(1; 2)"]
    jq.clear_caches()
    fast = jq.check_many(exprs)
    jq.clear_caches()
    slow = [jq._check_alone(e) for e in exprs]
    assert [(r is None) for r in fast] == [(r is None) for r in slow]
    assert [str(r) for r in fast] == [str(r) for r in slow]
