"""lait_core.syntax.jq: syntax checks (single and batched), evaluation, limits and references."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from types import MappingProxyType
from typing import Any

import jq as libjq
import pytest

from lait_core.syntax import jq as J
from lait_core.syntax.jq import (
    JqError,
    JqSyntaxError,
    Reference,
    check_many,
    check_syntax,
    evaluate,
    references,
)


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    J.clear_caches()
    yield
    J.clear_caches()


def _nested_list(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


# ----------------------------------------------------------------------------------------------
# is_truthy


@pytest.mark.parametrize("value", [True, 0, 0.0, "", "false", [], {}, [None], {"a": None}])
def test_truthy_values(value: Any) -> None:
    assert J.is_truthy(value) is True


@pytest.mark.parametrize("value", [False, None])
def test_falsy_values(value: Any) -> None:
    assert J.is_truthy(value) is False


# ----------------------------------------------------------------------------------------------
# check_syntax


@pytest.mark.parametrize(
    "expr",
    [
        ".",
        ".a.b?",
        "$steps.fetch.output | length",
        '$inputs.name // "anonymous"',
        "$loop.index",
        "$__loc__",
        "$ENV.HOME",
        "def f: 1; f",
        ". as $x | $x",
        "reduce .[] as $i (0; . + $i)",
        "label $out | 1, break $out",
        "if . then 1 end",
        '"a\\(.b)c"',
        "{a: 1,}",
        ".a # trailing comment",
        "[limit(2; .[])]",
        '@base64 "x\\(.)"',
        "def f: $undefined; 1",  # libjq drops unused definitions before binding names
    ],
)
def test_valid_expressions(expr: str) -> None:
    assert check_syntax(expr) is None


@pytest.mark.parametrize(
    ("expr", "message", "start", "end"),
    [
        ("$vars", "$vars is not defined", 0, 5),
        (".a | $steps | $nope", "$nope is not defined", 14, 19),
        ("foo", "foo/0 is not defined", 0, 3),
        ("select(1; 2)", "select/2 is not defined", 0, 6),
        (")", "syntax error, unexpected ')', expecting end of file", 0, 1),
        ("1; 2", "syntax error, unexpected ';', expecting end of file", 1, 2),
        (".[] |", "syntax error, unexpected end of file", 4, 5),
        ("(", "syntax error, unexpected end of file", 0, 1),
        ("é", "syntax error, unexpected 'é', expecting end of file", 0, 1),
        ("label $a | break $b", "$*label-b is not defined", 11, 19),
    ],
)
def test_invalid_expressions(expr: str, message: str, start: int, end: int) -> None:
    assert check_syntax(expr) == JqSyntaxError(message, start, end)


def test_error_offsets_count_code_points_after_japanese_text() -> None:
    expr = '"日本語" | $vars'
    error = check_syntax(expr)
    assert error is not None
    assert (error.start, error.end) == (8, 13)
    assert expr[error.start : error.end] == "$vars"


def test_error_offsets_on_a_later_line_with_non_ascii_text() -> None:
    expr = '"日本語"\n| "日本" | $vars\n| .a'
    error = check_syntax(expr)
    assert error is not None and error.start is not None
    assert error.message == "$vars is not defined"
    assert expr[error.start : error.end] == "$vars"
    assert error.start == expr.index("$vars")


def test_error_offset_after_a_tab() -> None:
    error = check_syntax("\t$v")
    assert error == JqSyntaxError("$v is not defined", 1, 3)


def test_unterminated_string_points_at_its_text() -> None:
    # At the end of the input libjq reports the last token it read: the string's text.
    error = check_syntax('.a | "abc')
    assert error is not None
    assert error.message.startswith("syntax error, unexpected end of file")
    assert (error.start, error.end) == (6, 9)


@pytest.mark.parametrize("expr", ["", "   ", "\n", "# only a comment", "# x \\"])
def test_empty_expressions(expr: str) -> None:
    assert check_syntax(expr) == JqSyntaxError("empty jq expression")


def test_definitions_without_a_body() -> None:
    assert check_syntax("def f: 1;") == JqSyntaxError('Top-level program not given (try ".")')


@pytest.mark.parametrize(("expr", "name"), [('include "x"; .', "x"), ('import "a" as a; .', "a")])
def test_modules_are_not_found(expr: str, name: str) -> None:
    assert check_syntax(expr) == JqSyntaxError(f"module not found: {name}")


def test_invalid_escape_keeps_libjq_detail() -> None:
    error = check_syntax('"\\q"')
    assert error is not None
    assert error.message.startswith("Invalid escape")
    assert error.start == 1


def test_source_size_limit() -> None:
    at_limit = '"' + "a" * (J.MAX_SOURCE_BYTES - 2) + '"'
    assert len(at_limit.encode()) == J.MAX_SOURCE_BYTES
    assert check_syntax(at_limit) is None
    over = '"' + "a" * (J.MAX_SOURCE_BYTES - 1) + '"'
    assert check_syntax(over) == JqSyntaxError(
        f"the jq expression is too long ({J.MAX_SOURCE_BYTES + 1} bytes; the limit is {J.MAX_SOURCE_BYTES})"
    )


def test_source_size_counts_utf8_bytes() -> None:
    expr = '"' + "日" * (J.MAX_SOURCE_BYTES // 3) + '"'
    error = check_syntax(expr)
    assert error is not None and error.message.startswith("the jq expression is too long")


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    cases = [
        ("1" + " | 1" * 6000, "the jq expression is nested too deeply"),
        ("[" * 20000 + "]" * 20000, "the jq expression nests deeper than 1024 levels"),
    ]
    for expr, message in cases:
        error = check_syntax(expr)
        assert error is not None
        assert error.message == message
        assert error.start is not None and 0 < error.start < len(expr)


def test_nul_and_lone_surrogates_are_rejected() -> None:
    assert check_syntax(".a\0.b") == JqSyntaxError("the jq expression contains a NUL character", 2, 3)
    assert check_syntax(".a | \ud800") == JqSyntaxError(
        "the jq expression contains a lone surrogate (invalid Unicode)", 5, 6
    )


def test_syntax_results_are_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_compiles(monkeypatch)
    assert check_syntax("$vars") is not None
    assert check_syntax("$vars") is not None
    assert check_syntax(". as $x | $x") is None
    assert check_syntax(". as $x | $x") is None
    assert calls() == 2
    assert check_syntax(".a | length") is None  # in the grammar subset: known without libjq
    assert calls() == 2


# ----------------------------------------------------------------------------------------------
# check_many


TRICKY = [
    ")",
    "(",
    '"',
    "1; 2",
    "def f: 1; f",
    ". as $x | $x",
    "reduce .[] as $i (0; .+$i)",
    "$__loc__",
    'include "x"; .',
    'import "a" as a; .',
    "# x",
    "",
    "   ",
    "$vars",
    "1); def g: (2",
    ".a); (.b",
    "(.a",
    ".b)",
    "# x \\",
    "1 # c\\\n+ 1",
    "1 # c\\\n+ $vars",
    '"\\(1 +)"',
    '"a\\(.b)c"',
    '"a\\(")")"',
    '"\\(")"',
    "é",
    "def f: 1;",
    "\0",
    "\ud800",
    "__lait_batch_0",
    "__lait_batch_",
    "$steps.a | $inputs.b | $loop",
    "if . then 1 end",
    "if . then 1",
    "end",
    "label $out | break $out",
    "break $out",
    "?//",
    "[.[] | {a}]",
    "1 +\n\n",
    "}",
    "]",
    "[1, 2}",
    '"\\q"',
    "foo",
    "foo(1)",
    "select(1;2)",
    "{a: foo}",
    "{foo}",
    "{a: 1, foo: 2}",
    '{"x\\(foo)": 1}',
    "{a: if true then 1, foo else 2 end}",
    "{a: try 1, foo}",
    '{a: "\\(1, foo)"}',
    "{(foo): 1}",
    "limit(1; .[])",
    "limit(1)",
    "$ENV.PATH",
    "true, false, null",
    "ltrimstr",
    "def f: $vv; 1",
    "[.[] as [$a] | $a]",
    "$steps::x",
    "a::b",
    "__loc__",
    "$__loc__selectand",
    "try error catch .",
    "{if: 1, and: 2}",
    "{as: 1}",
    '@base64 "\\(foo)"',
    "\n\n);\n",
    ");\ndef x: (1",
    "# comment\n.a",
    ".a # comment )",
]


def test_check_many_equals_check_syntax_on_tricky_expressions() -> None:
    single = [check_syntax(e) for e in TRICKY]
    J.clear_caches()
    assert check_many(TRICKY) == single
    # and the interesting ones really are errors or not
    assert single[TRICKY.index("1); def g: (2")] is not None
    assert single[TRICKY.index(".a); (.b")] is not None
    assert single[TRICKY.index("def f: 1; f")] is None
    assert single[TRICKY.index("{foo}")] is None
    assert single[TRICKY.index("{a: try 1, foo}")] is None
    assert single[TRICKY.index("{a: if true then 1, foo else 2 end}")] is not None
    assert single[TRICKY.index('{a: "\\(1, foo)"}')] is not None


def _random_expression(rng: random.Random, depth: int = 0) -> str:
    def sub() -> str:
        return _random_expression(rng, depth + 1)

    leaves = [
        ".",
        ".a",
        ".b?",
        ".items[0]",
        '"s"',
        "1",
        "null",
        "$steps.a.output",
        '$inputs["x"]',
        "$loop",
        "$vars",
        "$__loc__",
        "length",
        "not",
        "foo",
        "keys",
        "empty",
        "$ENV",
        "a::b",
    ]
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(leaves)
    forms: list[Callable[[], str]] = [
        lambda: f"{sub()} | {sub()}",
        lambda: f"{sub()}, {sub()}",
        lambda: f"{sub()} // {sub()}",
        lambda: f"({sub()})",
        lambda: f"[{sub()}]",
        lambda: f"{{a: {sub()}, b}}",
        lambda: f"{{({sub()}): 1, c: {sub()}}}",
        lambda: f'"x\\({sub()})y"',
        lambda: f"select({sub()})",
        lambda: f"map({sub()})",
        lambda: f"limit({sub()}; {sub()})",
        lambda: f"limit({sub()})",
        lambda: f"tostring({sub()})",
        lambda: f"if {sub()} then {sub()} else {sub()} end",
        lambda: f"if {sub()} then {sub()}, {sub()} end",
        lambda: f"try {sub()} catch {sub()}",
        lambda: f"{sub()} as $x | $x",
        lambda: f"{sub()} as $x | $y",
        lambda: f"reduce {sub()} as $i (0; . + $i)",
        lambda: f"def f: {sub()}; f",
        lambda: f"def f: {sub()}; 1",
        lambda: f"label $out | {sub()}",
        lambda: f"{sub()} # comment\n",
        lambda: f"{sub()} and {sub()}",
        lambda: f"-{sub()}",
    ]
    text = rng.choice(forms)()
    if rng.random() < 0.08:
        k = rng.randrange(len(text) + 1)
        text = text[:k] + rng.choice(')(][}{";#\\$|') + text[k:]
    return text


def test_check_many_equals_check_syntax_on_generated_expressions() -> None:
    rng = random.Random(20240611)
    exprs = list(dict.fromkeys(_random_expression(rng) for _ in range(700)))
    single = [check_syntax(e) for e in exprs]
    valid = sum(r is None for r in single)
    assert 0.2 * len(exprs) < valid < 0.9 * len(exprs)  # the sample mixes good and bad ones
    J.clear_caches()
    assert check_many(exprs) == single


def test_check_many_keeps_order_and_duplicates() -> None:
    exprs = [".a", "$vars", ".a", ")", "$vars"]
    results = check_many(exprs)
    assert [r is None for r in results] == [True, False, True, False, False]
    assert results[1] == results[4] == JqSyntaxError("$vars is not defined", 0, 5)
    assert check_many([]) == []


def test_check_many_finds_every_error_in_a_large_batch() -> None:
    exprs = [
        f'.items[{i}] | select(.name == "x{i}") | {{a: .b, c: ($steps.s{i}.output // "d")}}'
        for i in range(600)
    ]
    broken = {7: " | $vars", 150: ")", 151: "(", 299: " | foo(1)", 300: ' | "', 598: " | .a as $x | $y"}
    for k, suffix in broken.items():
        exprs[k] += suffix
    results = check_many(exprs)
    assert {k for k, r in enumerate(results) if r is not None} == set(broken)
    assert results[7] is not None and results[7].message == "$vars is not defined"
    assert results[598] is not None and results[598].message == "$y is not defined"


def _count_compiles(monkeypatch: pytest.MonkeyPatch) -> Callable[[], int]:
    J._callable()  # the verified builtin list is computed once per process
    real = libjq.compile
    count = [0]

    def counting(program: str, args: Any = None) -> Any:
        count[0] += 1
        return real(program, args=args)

    monkeypatch.setattr(libjq, "compile", counting)
    return lambda: count[0]


def test_check_many_compiles_in_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_compiles(monkeypatch)
    simple = [f'$steps.s{i}.output | select(.ok) | {{n: .n{i}, m: (.m // "x")}}' for i in range(600)]
    binding = [f". as $x | reduce .v{i}[] as $i (0; . + $i) | {{r: ., x: $x}}" for i in range(100)]
    assert all(r is None for r in check_many(simple + binding))
    # 700 expressions: 3 parse batches and 2 binding batches instead of 700 compilations.
    assert calls() <= 6


def test_check_many_with_an_error_stays_cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_compiles(monkeypatch)
    exprs = [f".a{i} | length" for i in range(500)]
    exprs[250] = ".a | )"
    results = check_many(exprs)
    assert [k for k, r in enumerate(results) if r is not None] == [250]
    assert calls() <= 8


def test_check_many_results_are_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    exprs = [f".a{i} | $steps.s{i}" for i in range(50)] + ["$vars"]
    first = check_many(exprs)
    calls = _count_compiles(monkeypatch)
    assert check_many(exprs) == first
    assert [check_syntax(e) for e in exprs] == first
    assert calls() == 0


def test_check_many_speed() -> None:
    exprs = [
        f'.items[{i}] | select(.name == "x{i}") | {{a: .b, c: ($steps.s{i}.output // "d")}}'
        for i in range(2000)
    ]
    J._callable()
    started = time.perf_counter()
    results = check_many(exprs)
    elapsed = time.perf_counter() - started
    assert all(r is None for r in results)
    assert elapsed < 1.0, f"check_many took {elapsed * 1000:.0f} ms for 2000 expressions"


@pytest.mark.parametrize(
    ("expr", "contained"),
    [
        (".a", True),
        ('"a(" | .b', True),
        ('"a\\(.b)c"', True),
        ('"a\\(")")"', True),
        ("(.a", False),
        (".a)", False),
        ("(]", False),
        ('"abc', False),
        ('"a\\(.b"', False),
        (".a # note", True),
        (".a # note\n| .b", True),
        (".a # note \\\n| .b", False),
        (".a # note \r| .b", False),
        ("a\0b", False),
        ('"a\\\\" | .b', True),
        ('"\\"" | (.b', False),
    ],
)
def test_self_contained(expr: str, contained: bool) -> None:
    assert J._contained(expr) is contained
    assert J._lex(expr).contained is contained


# ----------------------------------------------------------------------------------------------
# evaluate


def test_evaluate_basics() -> None:
    assert evaluate(".a", {"a": 1}) == 1
    assert evaluate(".a + 1", {"a": 1.5}) == 2.5
    assert evaluate("[.[] | . * 2]", [1, 2]) == [2, 4]
    assert evaluate('"日本" + .', "語") == "日本語"
    assert evaluate(". == null", None) is True
    assert evaluate("{a: 1, b: [true, null]}", None) == {"a": 1, "b": [True, None]}


def test_evaluate_globals() -> None:
    steps = {"fetch": {"output": {"items": [1, 2, 3]}}}
    assert evaluate("$steps.fetch.output.items | length", None, steps=steps) == 3
    assert evaluate("$inputs.name", None, inputs=MappingProxyType({"name": "x"})) == "x"
    assert evaluate("$loop.index", None, loop={"index": 4}) == 4
    assert evaluate("[$steps, $inputs, $loop]", None) == [{}, {}, None]


def test_evaluate_keeps_line_numbers_for_loc() -> None:
    assert evaluate("$__loc__", None) == {"file": "<top-level>", "line": 1}
    assert evaluate(".\n| $__loc__.line", None) == 2


def test_evaluate_comment_continuation_follows_libjq() -> None:
    # A comment ending in a backslash continues on the next line (libjq >= 1.7.1): "+ 1" is comment.
    assert evaluate("1 # c\\\n+ 1", None) == 1
    assert evaluate("1 # c\\\\\n+ 1", None) == 2


def test_evaluate_numbers() -> None:
    assert evaluate("100000000000000000001", None) == 100000000000000000001
    assert evaluate("1e1000", None) == 1.7976931348623157e308
    assert evaluate("-1e1000", None) == -1.7976931348623157e308
    assert evaluate("nan", None) is None
    assert evaluate(".", 3) == 3


def test_evaluate_zero_values() -> None:
    with pytest.raises(JqError, match=r"^the jq expression produced no value; exactly one is required$"):
        evaluate("empty", None)
    with pytest.raises(JqError, match="produced no value"):
        evaluate(".[] | select(. > 5)", [1, 2])


def test_evaluate_several_values() -> None:
    with pytest.raises(JqError) as info:
        evaluate(".[]", [1, 2, 3])
    assert info.value.message == (
        "the jq expression produced 3 values; exactly one is required"
        " (wrap a stream in [...] to collect it into one array)"
    )
    assert evaluate("[.[]]", [1, 2, 3]) == [1, 2, 3]


def test_evaluate_output_count_limit() -> None:
    with pytest.raises(JqError, match=r"produced 100000 values;"):
        evaluate("range(100000)", None)
    with pytest.raises(JqError, match=r"produced more than 100000 values;"):
        evaluate("range(100001)", None)
    with pytest.raises(JqError, match=r"produced more than 100000 values;"):
        evaluate("repeat(1)", None)


def test_evaluate_runtime_errors() -> None:
    with pytest.raises(JqError, match=r"^boom$"):
        evaluate('error("boom")', None)
    with pytest.raises(JqError, match=r"^boom$"):
        evaluate('1, error("boom")', None)
    with pytest.raises(JqError, match="Cannot index number"):
        evaluate(".a", 1)


def test_evaluate_invalid_expression() -> None:
    with pytest.raises(JqError, match=r"^invalid jq expression: \$vars is not defined$"):
        evaluate("$vars", None)
    with pytest.raises(JqError, match="invalid jq expression: syntax error"):
        evaluate(".a |", None)


def test_evaluate_input_depth_limit() -> None:
    assert evaluate("[paths] | length", _nested_list(J.MAX_DEPTH)) == J.MAX_DEPTH - 1
    with pytest.raises(JqError, match=r"^the jq input value nests deeper than 1024 levels$"):
        evaluate(".", _nested_list(J.MAX_DEPTH + 1))
    with pytest.raises(JqError, match=r"\$steps value nests deeper"):
        evaluate(".", None, steps={"a": _nested_list(J.MAX_DEPTH)})
    with pytest.raises(JqError, match=r"\$loop value nests deeper"):
        evaluate(".", None, loop=_nested_list(J.MAX_DEPTH + 1))


def test_evaluate_result_depth_limit() -> None:
    result = evaluate(f"reduce range({J.MAX_DEPTH - 1}) as $i ([]; [.])", None)
    assert result == _nested_list(J.MAX_DEPTH)
    for depth in (J.MAX_DEPTH + 1, 20_000):
        with pytest.raises(JqError, match=r"^the jq result nests deeper than 1024 levels$"):
            evaluate(f"reduce range({depth - 1}) as $i ([]; [.])", None)


def test_evaluate_input_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(J, "MAX_INPUT_BYTES", 100)
    assert evaluate("length", "x" * 50) == 50
    with pytest.raises(JqError, match=r"^the jq input is too large \(\d+ bytes of JSON; the limit is 100\)$"):
        evaluate("length", "x" * 100)
    with pytest.raises(JqError, match="the jq input is too large"):
        evaluate(".", None, steps={"a": "日" * 40})


def test_evaluate_output_size_limit() -> None:
    assert len(evaluate('"a" * 1000', None)) == 1000
    with pytest.raises(
        JqError, match=r"^the jq result is too large \(\d+ bytes of JSON; the limit is 16777216\)$"
    ):
        evaluate(f'"a" * {J.MAX_OUTPUT_BYTES}', None)


def test_evaluate_rejects_values_that_are_not_json() -> None:
    with pytest.raises(JqError, match="the jq input is not JSON data"):
        evaluate(".", float("nan"))
    with pytest.raises(JqError, match="the jq input is not JSON data"):
        evaluate(".", object())
    with pytest.raises(JqError, match="the jq input is not JSON data"):
        evaluate(".", "\ud800")


def test_evaluation_programs_are_cached() -> None:
    for i in range(5):
        assert evaluate(".a + $loop", {"a": i}, loop=1) == i + 1
    info = J._wrapped_program.cache_info()
    assert (info.misses, info.hits) == (1, 4)


# ----------------------------------------------------------------------------------------------
# references


def _refs(expr: str) -> list[tuple[str, str]]:
    found = references(expr)
    for ref in found:
        assert expr[ref.start : ref.end] == ref.name
    return [(r.root, r.name) for r in found]


def test_references_forms() -> None:
    expr = '$inputs.topic + $steps["my-step"].output + $steps.["other"] + $steps."q" + $steps?.opt'
    assert _refs(expr) == [
        ("inputs", "topic"),
        ("steps", "my-step"),
        ("steps", "other"),
        ("steps", "q"),
        ("steps", "opt"),
    ]


def test_reference_offsets() -> None:
    expr = '$steps.fetch | $inputs["日本"]'
    assert references(expr) == [Reference("steps", "fetch", 7, 12), Reference("inputs", "日本", 24, 26)]


def test_references_reported_once_at_first_occurrence() -> None:
    expr = "$steps.a.x, $steps.a.y, $inputs.a, $steps.b"
    refs = references(expr)
    assert [(r.root, r.name, r.start) for r in refs] == [
        ("steps", "a", 7),
        ("inputs", "a", 32),
        ("steps", "b", 42),
    ]


def test_references_name_characters_stop_at_dash() -> None:
    assert _refs("$steps.my-step") == [("steps", "my")]


def test_references_ignore_strings_comments_and_other_variables() -> None:
    expr = '"$steps.a" | $steps_x.b | $stepsy.c | .x.$steps # $inputs.d\n| $inputs.e'
    assert _refs(expr) == [("inputs", "e")]


def test_references_inside_interpolation_count() -> None:
    assert _refs('"total: \\($steps.count.output) of \\("$inputs.x")"') == [("steps", "count")]


def test_references_without_a_name() -> None:
    assert references("$steps | keys") == []
    assert references("$steps[$k]") == []
    assert references('$steps["a\\u0041"]') == []
    assert references("$inputs") == []
    assert references(".a") == []


def test_references_with_whitespace() -> None:
    assert _refs('$steps .a, $inputs [ "b" ]') == [("steps", "a"), ("inputs", "b")]
