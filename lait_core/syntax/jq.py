"""jq expressions of workflow files, through libjq (the PyPI ``jq`` package).

Workflow files use jq in ``when``, ``input``, ``output``, ``jq``, ``with``, ``for_each``,
``while``, ``until``, switch-case ``when`` and the top-level ``output``. Every expression runs
with the globals ``$steps``, ``$inputs`` and ``$loop`` declared; any other free variable is a
compile error. Every evaluation must yield exactly one value.

Syntax checks
    :func:`check_syntax` compiles one expression (about 1.2 ms: libjq recompiles its builtins
    every time); results are cached by source text. :func:`check_many` gives the same results
    for a whole file far faster, in three steps:

    1. *Parse batches*: up to 256 expressions compiled as one program of definitions that
       nothing calls, ``def __lait_batch_0: (<expr0>\\n\\n);`` ... ``.``. libjq parses them all
       but drops unused definitions before binding names, so this finds syntax errors only,
       at about 15 µs an expression.
    2. An expression that parsed and only uses ``$steps``/``$inputs``/``$loop``/``$ENV``/
       ``$__loc__`` and builtins with the right arity, binding nothing itself, compiles: done
       (see :func:`_binds_nothing_unknown`).
    3. *Binding batches*: the others (``as``, ``reduce``, ``def``, unknown names) are compiled
       64 at a time as called local definitions, ``(def __lait_batch_: (<expr>\\n\\n);
       __lait_batch_), ...``, so that undefined variables and functions are reported.

    When a batch fails, the expressions libjq's error locations point at are compiled one by
    one, and the rest is retried (or split in halves when no error is attributable). Only
    *self-contained* expressions join batches: their strings, interpolations, brackets and
    comments all close inside them (see :func:`_contained`), so their tokens parse as the
    parenthesised term and cannot reach into their neighbours; the rest are compiled one by one.

Evaluation
    :func:`evaluate` compiles ``.[1] as $steps | .[2] as $inputs | .[3] as $loop | .[0] |
    (<expr>\\n\\n) | tojson`` once per source (cached) and feeds it ``[value, steps, inputs,
    loop]``. The result comes back as JSON text, so libjq's printer (which is bounded) renders
    it and Python's decoder parses it: no recursive conversion of an unbounded value.

Limits: source ≤ 64 KiB, input JSON ≤ 64 MiB, ≤ 100 000 output values, rendered result
≤ 16 MiB, value nesting depth ≤ 1024. libjq cannot be interrupted (it holds the GIL), so an
expression that loops forever (``last(repeat(1))``) blocks the calling thread; the workflow executor
therefore evaluates in a killable worker process (:mod:`lait_core.engine.workflow.jq_eval`, running
:mod:`lait_core.syntax.jq_worker`), which a timeout, Ctrl-C or an editor cancel kills.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import jq as _libjq

from lait_core.support.cancel import checkpoint
from lait_core.syntax import jq_subset

MAX_SOURCE_BYTES: Final = 64 * 1024
MAX_INPUT_BYTES: Final = 64 * 1024 * 1024
MAX_OUTPUT_VALUES: Final = 100_000
MAX_OUTPUT_BYTES: Final = 16 * 1024 * 1024
MAX_DEPTH: Final = 1024
GLOBALS: Final = ("steps", "inputs", "loop")

_BATCH_PREFIX: Final = "__lait_batch_"
_PARSE_BATCH: Final = 256
_BIND_BATCH: Final = 64
_BATCH_MAX_BYTES: Final = 512 * 1024
_CACHE_SIZE: Final = 32_768
_EVAL_PREFIX: Final = ".[1] as $steps | .[2] as $inputs | .[3] as $loop | .[0] | ("
_EVAL_SUFFIX: Final = "\n\n) | tojson"
_TOO_DEEP: Final = "the jq {} nests deeper than " + str(MAX_DEPTH) + " levels"
_WRAP_HINT: Final = "exactly one is required (wrap a stream in [...] to collect it into one array)"


class JqError(Exception):
    """A jq expression failed: invalid source, a runtime error, a broken limit or not exactly one value."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class JqSyntaxError:
    """Why an expression does not compile; a value, not raised.

    ``start``/``end`` are code-point offsets in the expression when libjq located the error.
    """

    message: str
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True, slots=True)
class Reference:
    """``$inputs.name`` or ``$steps["name"]``: ``expr[start:end] == name``."""

    root: str
    name: str
    start: int
    end: int


def is_truthy(value: Any) -> bool:
    """jq truthiness: everything but ``false`` and ``null`` (so ``0``, ``""`` and ``[]`` are true)."""
    return value is not None and value is not False


# --------------------------------------------------------------------------------------------
# Lexing (best effort, mirrors libjq's lexer for strings, interpolation, comments and brackets)

_CODE_SPECIAL = re.compile(r'["#()\[\]{}]')
_STRING_SPECIAL = re.compile(r'["\\]')
_SIMPLE_STRING = re.compile(r'"(?:[^"\\]|\\[^(])*"')
_NON_BRACKET = re.compile(r"[^()\[\]{}]+")
_SURROGATE = re.compile("[\ud800-\udfff]")
_CLOSER: Final = {"(": ")", "[": "]", "{": "}"}
_INTERPOLATION: Final = "\\("

_StringEnd = Literal["quote", "interpolation", "eof"]


@dataclass(frozen=True, slots=True)
class _Lexed:
    contained: bool
    """Every string, interpolation, bracket and comment closes inside the text (conservative)."""
    inert: tuple[tuple[int, int], ...]
    """Sorted spans of string-literal text and comments: what is not code."""
    has_code: bool
    """Something other than whitespace and comments."""
    deep_at: int | None = None
    """The offset of the first bracket nested deeper than :data:`MAX_DEPTH` (None: not that deep)."""


def _string_from(src: str, i: int) -> tuple[int, _StringEnd]:
    """Scan string text from ``i``: the offset after the closing quote or after ``\\(``."""
    search = _STRING_SPECIAL.search
    while True:
        m = search(src, i)
        if m is None:
            return len(src), "eof"
        if m.group() == '"':
            return m.end(), "quote"
        nxt = m.end()
        if src.startswith("(", nxt):
            return nxt + 1, "interpolation"
        i = nxt + 1


def _comment_end(src: str, i: int) -> tuple[int, bool]:
    """End of the comment starting at ``i`` and whether it is plainly one line.

    libjq continues a comment onto the next line when the line ends with an odd number of
    backslashes (before an optional ``\\r``); such comments, and any comment holding ``\\r``,
    are reported as not plain so that batching never depends on this detail.
    """
    plain = True
    j = i
    n = len(src)
    while True:
        nl = src.find("\n", j)
        line = src[j:] if nl < 0 else src[j:nl]
        if "\r" in line or line.endswith("\\"):
            plain = False
        body = line[:-1] if line.endswith("\r") else line
        odd = (len(body) - len(body.rstrip("\\"))) % 2 == 1
        if nl < 0:
            return n, plain
        j = nl + 1
        if not odd:
            return j, plain


def _lex(src: str) -> _Lexed:
    contained = "\0" not in src and _SURROGATE.search(src) is None
    inert: list[tuple[int, int]] = []
    stack: list[str] = []
    has_code = False
    last = 0
    i = 0
    n = len(src)
    deep_at: int | None = None
    search = _CODE_SPECIAL.search
    while i < n:
        m = search(src, i)
        stop = n if m is None else m.start()
        if not has_code and src[last:stop].strip(" \t\r\n"):
            has_code = True
        if m is None:
            break
        c = m.group()
        start = m.start()
        i = m.end()
        if c == "#":
            i, plain = _comment_end(src, start + 1)
            contained = contained and plain
            inert.append((start, i))
            last = i
            continue
        has_code = True
        last = i
        resume = c == '"'
        if c in _CLOSER:
            stack.append(c)
            if deep_at is None and len(stack) > MAX_DEPTH:
                deep_at = start
        elif c in ")]}":
            top = stack.pop() if stack else None
            if top == _INTERPOLATION and c == ")":
                resume = True
            elif top is None or top == _INTERPOLATION or _CLOSER[top] != c:
                contained = False
        if resume:
            i, how = _string_from(src, i)
            inert.append((start, i))
            last = i
            if how == "interpolation":
                stack.append(_INTERPOLATION)
                if deep_at is None and len(stack) > MAX_DEPTH:
                    deep_at = i - 2
            elif how == "eof":
                contained = False
    if stack:
        contained = False
    return _Lexed(contained, tuple(inert), has_code, deep_at)


def _contained(src: str) -> bool:
    """Whether ``src`` is self-contained (see :class:`_Lexed`); fast path for the common case."""
    if "\0" in src or _SURROGATE.search(src) is not None:
        return False
    rest = _SIMPLE_STRING.sub("", src) if '"' in src else src
    if '"' in rest or "#" in rest or "\\" in rest:
        return _lex(src).contained
    stack: list[str] = []  # linear: a 60 KB expression of nested parentheses is no special case
    for c in _NON_BRACKET.sub("", rest):
        if c in _CLOSER:
            stack.append(c)
        elif not stack or _CLOSER[stack.pop()] != c:
            return False
    return not stack


def _may_nest_too_deep(expr: str) -> bool:
    return expr.count("(") + expr.count("[") + expr.count("{") > MAX_DEPTH


def _nesting_error(expr: str) -> JqSyntaxError | None:
    """Nesting deeper than :data:`MAX_DEPTH`, found by lait's lexer before libjq sees the source
    (libjq gives up at 10,000 levels; nothing real nests a thousand deep)."""
    if not _may_nest_too_deep(expr):
        return None
    at = _lex(expr).deep_at
    if at is None:
        return None
    return JqSyntaxError(_TOO_DEEP.format("expression"), at, at + 1)


# --------------------------------------------------------------------------------------------
# Module directives: libjq opens the files of ``import``/``include`` itself, with a plain blocking
# open() and no size limit. Before it sees such an expression, lait finds every file libjq could
# open for it -- each string of the expression taken as a module name and as a search directory
# (absolute, or relative to the working directory as libjq takes them), plus ``~/.jq`` -- and
# refuses the expression when one of them exists but is not a regular file (a FIFO would freeze
# the linter) or is larger than 16 MiB. Module files found are scanned the same way, up to
# 64 files deep.

_MODULE_KEYWORD = re.compile(r"(?<![A-Za-z0-9_$])(?:import|include)(?![A-Za-z0-9_])")
_MAX_MODULE_FILES: Final = 64


def _has_module_directive(expr: str) -> bool:
    return ("import" in expr or "include" in expr) and _MODULE_KEYWORD.search(_code_tokens(expr)) is not None


def _strings_of(expr: str) -> list[str]:
    found = []
    for start, end in _lex(expr).inert:
        if expr[start] != '"' or not expr.endswith('"', start, end) or end - start < 2:
            continue
        try:
            value = json.loads(expr[start:end])
        except ValueError:
            continue
        if isinstance(value, str) and value and "\0" not in value:
            found.append(value)
    return found


def _module_candidates(strings: list[str], origin: str | None) -> Iterable[str]:
    import os

    dirs = ["~/.jq", *strings]
    if origin is not None:
        dirs.append(origin)
    for directory in dict.fromkeys(os.path.expanduser(d) for d in dirs):
        bases = (
            [directory]
            if os.path.isabs(directory) or origin is None
            else [directory, os.path.join(origin, directory)]
        )
        for base in bases:
            for name in strings:
                last = name.rstrip("/").rsplit("/", 1)[-1]
                for ext in (".jq", ".json"):
                    yield os.path.join(base, name + ext)
                    yield os.path.join(base, name, last + ext)


def _module_error(expr: str) -> JqSyntaxError | None:
    """Why libjq must not load the modules ``expr`` names (see above); None when it may."""
    if not _has_module_directive(expr):
        return None
    import os
    import stat

    from lait_core.syntax.bounded_read import MAX_FILE_BYTES, FileRefused, read_bounded

    pending: list[tuple[str, str | None]] = [(expr, None)]
    seen: set[str] = set()
    while pending and len(seen) <= _MAX_MODULE_FILES:
        source, origin = pending.pop()
        for candidate in _module_candidates(_strings_of(source), origin):
            key = os.path.abspath(candidate)
            if key in seen:
                continue
            try:
                info = os.stat(candidate)
            except (OSError, ValueError):
                continue
            seen.add(key)
            if not stat.S_ISREG(info.st_mode):
                if stat.S_ISDIR(info.st_mode):
                    continue
                return JqSyntaxError(
                    f"a jq module path is not a regular file: {_refusal(candidate, info.st_mode)}"
                )
            if info.st_size > MAX_FILE_BYTES:
                return JqSyntaxError(f"the jq module '{candidate}' is larger than 16 MiB")
            if candidate.endswith(".jq") and len(seen) <= _MAX_MODULE_FILES:
                try:
                    text = read_bounded(candidate).decode("utf-8", "replace")
                except FileRefused as exc:
                    return JqSyntaxError(f"a jq module path is not a regular file: {exc}")
                except OSError:
                    continue
                if _has_module_directive(text):
                    pending.append((text, os.path.dirname(key)))
    return None


def _refusal(path: str, mode: int) -> str:
    from lait_core.syntax.bounded_read import not_regular

    return str(not_regular(path, mode))


_REFERENCE_ROOT = re.compile(r"\$(steps|inputs)(?![A-Za-z0-9_]|::)")
_WS = r"[ \t\r\n]*"
_REFERENCE_TAIL = re.compile(
    rf"{_WS}(?:\?{_WS})*(?:"
    r"\.(?P<field>[A-Za-z_][A-Za-z0-9_]*)"
    rf'|\.{_WS}"(?P<quoted>[^"\\]+)"'
    rf'|(?:\.{_WS})?\[{_WS}"(?P<bracket>[^"\\]+)"{_WS}\]'
    r")"
)


def references(expr: str) -> list[Reference]:
    """``$inputs``/``$steps`` names used by ``expr``, each (root, name) once, first occurrence first.

    Recognised: ``$steps.name``, ``$steps."name"``, ``$steps["name"]`` and ``$steps.["name"]``
    (optionally with ``?`` after the variable), outside string literals and comments;
    interpolations count as code. Computed names (``$steps[$x]``) are not references.
    """
    if "$steps" not in expr and "$inputs" not in expr:
        return []
    inert = _lex(expr).inert
    starts = [span[0] for span in inert]
    seen: set[tuple[str, str]] = set()
    found: list[Reference] = []
    for m in _REFERENCE_ROOT.finditer(expr):
        k = bisect.bisect_right(starts, m.start()) - 1
        if k >= 0 and m.start() < inert[k][1]:
            continue
        tail = _REFERENCE_TAIL.match(expr, m.end())
        if tail is None:
            continue
        group = tail.lastgroup
        assert group is not None
        key = (m.group(1), tail.group(group))
        if key in seen:
            continue
        seen.add(key)
        found.append(Reference(key[0], key[1], tail.start(group), tail.end(group)))
    return found


# --------------------------------------------------------------------------------------------
# Syntax checks

_ERROR_HEAD = re.compile(
    r"^jq: error: (?P<message>.*?)(?: at <top-level>, line (?P<line>\d+), column (?P<column>\d+):)?$",
    re.MULTILINE,
)
_ERROR_LINE = re.compile(r"^jq: error: .*? at <top-level>, line (\d+), column \d+:$", re.MULTILINE)
_NO_PROGRAM = "Top-level program not given"

_cache: OrderedDict[str, JqSyntaxError | None] = OrderedDict()
_cache_lock = threading.Lock()


def _cached(expr: str) -> tuple[bool, JqSyntaxError | None]:
    with _cache_lock:
        if expr in _cache:
            _cache.move_to_end(expr)
            return True, _cache[expr]
    return False, None


def _remember(expr: str, result: JqSyntaxError | None) -> None:
    with _cache_lock:
        _cache[expr] = result
        _cache.move_to_end(expr)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)


def _compile_args() -> dict[str, Any]:
    return dict.fromkeys(GLOBALS)


def _code_points(data: bytes, offset: int) -> int:
    """Code-point index of the character holding byte ``offset`` of UTF-8 ``data``."""
    return len(data[:offset].decode("utf-8", "ignore"))


def _describe_char(ch: str) -> str:
    return f"'{ch}'" if ch.isprintable() else f"U+{ord(ch):04X}"


def _syntax_error(expr: str, text: str) -> JqSyntaxError:
    """A :class:`JqSyntaxError` from libjq's error text for the compilation of ``expr`` alone."""
    head = _ERROR_HEAD.search(text)
    if head is None:
        return JqSyntaxError(text.strip() or "the jq expression does not compile")
    message = head.group("message").strip()
    start: int | None = None
    end: int | None = None
    if head.group("line") is not None:
        data = expr.encode("utf-8")
        offset = 0
        for _ in range(int(head.group("line")) - 1):
            nl = data.find(b"\n", offset)
            if nl < 0:
                break
            offset = nl + 1
        offset = min(len(data), offset + max(int(head.group("column")) - 1, 0))
        # libjq underlines the token with one caret per byte, under the echoed source line.
        echoed = text[head.end() :].split("\n")
        carets = echoed[2].count("^") if len(echoed) > 2 and not echoed[2].strip(" ^") else 0
        start = _code_points(data, offset)
        end = max(_code_points(data, min(len(data), offset + carets)), min(start + 1, len(expr)))
    if "memory exhausted" in message:
        message = "the jq expression is nested too deeply"
    elif "INVALID_CHARACTER" in message and start is not None and start < len(expr):
        message = message.replace("INVALID_CHARACTER", _describe_char(expr[start]))
    elif message.startswith(_NO_PROGRAM) and not _lex(expr).has_code:
        message = "empty jq expression"
    return JqSyntaxError(message, start, end)


def _check_alone(expr: str) -> JqSyntaxError | None:
    size = len(expr.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE_BYTES:
        return JqSyntaxError(f"the jq expression is too long ({size} bytes; the limit is {MAX_SOURCE_BYTES})")
    nul = expr.find("\0")
    if nul >= 0:
        return JqSyntaxError("the jq expression contains a NUL character", nul, nul + 1)
    bad = _SURROGATE.search(expr)
    if bad is not None:
        return JqSyntaxError(
            "the jq expression contains a lone surrogate (invalid Unicode)", bad.start(), bad.end()
        )
    problem = _nesting_error(expr) or _module_error(expr)
    if problem is not None:
        return problem
    try:
        _libjq.compile(expr, args=_compile_args())
    except ValueError as exc:
        return _syntax_error(expr, str(exc))
    return None


def clear_caches() -> None:
    """Forget cached syntax results and compiled evaluation programs."""
    with _cache_lock:
        _cache.clear()
    _wrapped_program.cache_clear()


def _known_valid(expr: str) -> bool:
    """Whether ``expr`` certainly compiles, known without libjq: it is in the grammar subset of
    :mod:`lait_core.syntax.jq_subset` and uses only the globals and builtins (False: not sure)."""
    return not _may_nest_too_deep(expr) and jq_subset.parses(expr) and _binds_nothing_unknown(expr)


def check_syntax(expr: str) -> JqSyntaxError | None:
    """Compile ``expr`` on its own (with ``$steps``, ``$inputs``, ``$loop`` declared); cached."""
    hit, result = _cached(expr)
    if hit:
        return result
    result = None if _known_valid(expr) else _check_alone(expr)
    _remember(expr, result)
    return result


def _batchable(expr: str) -> bool:
    return (
        len(expr.encode("utf-8", "surrogatepass")) <= MAX_SOURCE_BYTES
        and _BATCH_PREFIX not in expr
        and not _may_nest_too_deep(expr)
        and not _has_module_directive(expr)
        and _contained(expr)
    )


_TOKEN = re.compile(
    r"\$([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)"
    r"|(?<![A-Za-z0-9_.$@])([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)"
    r"|([()\[\]{};,])"
    r"|(?:\.[A-Za-z_][A-Za-z0-9_]*|@[A-Za-z0-9_]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?"
    r"|[^ \t\r\n$A-Za-z0-9_()\[\]{};,])+"
)
_FREE_VARIABLES: Final = frozenset({*GLOBALS, "ENV", "__loc__"})
_STRUCTURE_KEYWORDS: Final = frozenset({"if", "then", "elif", "else", "end", "try", "catch", "and", "or"})
_BINDING_KEYWORDS: Final = frozenset(
    {"as", "def", "reduce", "foreach", "label", "break", "import", "include", "module", "__loc__"}
)
_SIMPLE_MAX_CHARS: Final = 1024


def prepare() -> None:
    """Do now the one-time set-up of the syntax checks (the table of callable builtins, 9-16 ms,
    otherwise made on the first expression that calls a function): a parallel lint calls this before
    it forks, so its workers inherit the table."""
    _callable()


@functools.cache
def _callable() -> frozenset[str]:
    """``name/arity`` of the functions every program can call, each verified by compiling a call."""
    listed = _libjq.compile("builtins").input_value(None).first()
    names = {n for n in listed if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*/[0-9]", n)}
    names |= {"true/0", "false/0", "null/0"}
    while names:
        order = sorted(names)
        calls = []
        for entry in order:
            name, arity = entry.split("/")
            calls.append(f"({name}({';'.join('.' * int(arity))}))" if arity != "0" else f"({name})")
        try:
            _libjq.compile(",\n".join(calls))
        except ValueError as exc:
            bad = {
                order[int(line) - 1] for line in _ERROR_LINE.findall(str(exc)) if 0 < int(line) <= len(order)
            }
            if not bad:
                return frozenset()
            names -= bad
        else:
            return frozenset(names)
    return frozenset()


def _code_tokens(expr: str) -> str:
    """``expr`` with each string literal reduced to ``"`` and each comment to a space."""
    if '"' not in expr and "#" not in expr:
        return expr
    if "#" not in expr and "\\(" not in expr:
        return _SIMPLE_STRING.sub('"', expr)
    parts: list[str] = []
    last = 0
    for start, end in _lex(expr).inert:
        parts.append(expr[last:start])
        if expr[start] == "#":
            parts.append(" ")
        else:
            # An interpolation's parentheses stay, so that brackets still nest: "a\(x)b" -> "(x)".
            parts.append((")" if expr[start] == ")" else "") + '"' + ("(" if expr[end - 1] == "(" else ""))
        last = end
    parts.append(expr[last:])
    return "".join(parts)


def _binds_nothing_unknown(expr: str) -> bool:
    """Whether a parsed ``expr`` only uses the free variables and builtin functions (right arity).

    Such an expression binds nothing of its own (no ``as``, ``def``, ``reduce``, ``foreach``,
    ``label``), so libjq's binding pass cannot fail on it: it compiles iff it parses. Object
    keys (``{name: ...}``, ``{name}``) are not calls. False means "not sure", never "invalid".
    """
    if len(expr) > _SIMPLE_MAX_CHARS:
        return False
    callable_ = _callable()
    stack: list[list[Any]] = []  # [bracket, called function or None, semicolons]
    key_position = False
    call = ""
    for var, ident, punct in _TOKEN.findall(_code_tokens(expr)):
        if call:
            if punct == "(":
                stack.append(["(", call, 0])
                call = ""
                key_position = False
                continue
            if call + "/0" not in callable_:
                return False
            call = ""
        if var:
            if var not in _FREE_VARIABLES:
                return False
        elif ident:
            if ident in _BINDING_KEYWORDS:
                return False
            if ident == "if":
                # ``if`` ... ``end`` brackets expressions: ``{a: if . then 1, f else 2 end}`` calls f.
                stack.append(["if", None, 0])
            elif ident == "end":
                if not stack or stack.pop()[0] != "if":
                    return False
            elif ident not in _STRUCTURE_KEYWORDS and not (key_position and stack and stack[-1][0] == "{"):
                call = ident
        elif punct:
            if punct in "([{":
                stack.append([punct, None, 0])
            elif punct in ")]}":
                if not stack:
                    return False
                _, function, semicolons = stack.pop()
                if function is not None and f"{function}/{semicolons + 1}" not in callable_:
                    return False
            elif punct == ";" and stack:
                stack[-1][2] += 1
        key_position = punct == "{" or punct == ","
    return not call or call + "/0" in callable_


def _batch_program(exprs: Sequence[str], *, bind: bool) -> tuple[str, list[int]]:
    """A program holding every expression, and the 1-based line where each one's part starts.

    ``bind=False``: top-level definitions that nothing calls, which libjq parses and then drops
    before binding names, so it only finds syntax errors (cheap: about 15 µs an expression).
    ``bind=True``: local definitions that are called, so names are bound (undefined ``$vars``,
    unknown functions and wrong arities are found) at about 0.1 ms an expression.
    """
    parts: list[str] = []
    first_lines: list[int] = []
    line = 1
    last = len(exprs) - 1
    for k, expr in enumerate(exprs):
        first_lines.append(line)
        if bind:
            part = f"(def {_BATCH_PREFIX}: ({expr}\n\n); {_BATCH_PREFIX}){',' if k < last else ''}\n"
        else:
            part = f"def {_BATCH_PREFIX}{k}: ({expr}\n\n);\n"
        parts.append(part)
        line += part.count("\n")
    if not bind:
        parts.append(".")
    return "".join(parts), first_lines


def _batch_survivors(exprs: list[str], results: dict[str, JqSyntaxError | None], *, bind: bool) -> list[str]:
    """The expressions that compile within batches; the others get :func:`check_syntax` results."""
    survivors: list[str] = []
    work = [exprs]
    while work:
        pending = work.pop()
        while pending:
            if len(pending) == 1:
                results[pending[0]] = check_syntax(pending[0])
                break
            program, first_lines = _batch_program(pending, bind=bind)
            try:
                _libjq.compile(program, args=_compile_args())
            except ValueError as exc:
                text = str(exc)
            else:
                survivors.extend(pending)
                break
            lines = (int(line) for line in _ERROR_LINE.findall(text))
            suspects = {bisect.bisect_right(first_lines, line) - 1 for line in lines} & set(
                range(len(pending))
            )
            guilty = False
            for k in suspects:
                result = results[pending[k]] = check_syntax(pending[k])
                guilty = guilty or result is not None
            pending = [expr for k, expr in enumerate(pending) if k not in suspects]
            if not guilty and len(pending) > 1:
                # libjq's report does not point at a culprit: split the rest in halves.
                half = len(pending) // 2
                work.extend((pending[half:], pending[:half]))
                break
    return survivors


def _chunks(exprs: list[str], most: int) -> Iterable[list[str]]:
    chunk: list[str] = []
    size = 0
    for expr in exprs:
        if chunk and (len(chunk) >= most or size + len(expr) > _BATCH_MAX_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append(expr)
        size += len(expr)
    if chunk:
        yield chunk


def check_many(exprs: Sequence[str]) -> list[JqSyntaxError | None]:
    """:func:`check_syntax` for every expression, compiling them together when possible.

    Self-contained expressions are first parsed in batches; the parsed ones that only use the
    globals and builtins are then known to compile, the rest are compiled in binding batches.
    Failing batches are resolved by compiling the expressions libjq's errors point at (or
    halves of the batch) one by one. Results equal :func:`check_syntax`'s and are cached.
    """
    results: dict[str, JqSyntaxError | None] = {}
    batch: list[str] = []
    for i, expr in enumerate(dict.fromkeys(exprs)):
        if not i & 255:
            checkpoint()
        hit, result = _cached(expr)
        if hit:
            results[expr] = result
        elif _known_valid(expr):
            results[expr] = None
            _remember(expr, None)
        elif _batchable(expr):
            batch.append(expr)
        else:
            results[expr] = check_syntax(expr)
    parsed: list[str] = []
    for chunk in _chunks(batch, _PARSE_BATCH):
        checkpoint()
        parsed += _batch_survivors(chunk, results, bind=False)
    unsure: list[str] = []
    for expr in parsed:
        if _binds_nothing_unknown(expr):
            results[expr] = None
            _remember(expr, None)
        else:
            unsure.append(expr)
    for chunk in _chunks(unsure, _BIND_BATCH):
        checkpoint()
        for expr in _batch_survivors(chunk, results, bind=True):
            results[expr] = None
            _remember(expr, None)
    return [results[expr] for expr in exprs]


# --------------------------------------------------------------------------------------------
# Evaluation


@functools.lru_cache(maxsize=1024)
def _wrapped_program(expr: str) -> Any:
    """The cached evaluation program for a valid ``expr``, or None if it cannot be wrapped safely."""
    if not _contained(expr):
        return None
    try:
        return _libjq.compile(_EVAL_PREFIX + expr + _EVAL_SUFFIX)
    except ValueError:
        return None


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests containers more than ``limit`` deep; iterative, no recursion."""
    if not isinstance(value, dict | list | tuple):
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list | tuple))
    return False


def _recursion_headroom(levels: int) -> None:
    """Let Python's (recursive) json encoder/decoder handle ``levels`` more nesting levels.

    The limit is only ever raised, never lowered, so concurrent callers cannot undercut each other.
    """
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back  # type: ignore[assignment]
    needed = depth + levels + 100
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


def _finite(text: str) -> float:
    # libjq prints literals beyond the double range verbatim (1E+1000); jq itself clamps them.
    number = float(text)
    if number in (float("inf"), float("-inf")):
        return sys.float_info.max if number > 0 else -sys.float_info.max
    return number


def _dump_input(payload: Any) -> str:
    _recursion_headroom(MAX_DEPTH + 2)
    try:
        text = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        size = len(text.encode("utf-8"))
    except (TypeError, ValueError) as exc:
        raise JqError(f"the jq input is not JSON data: {exc}") from None
    if size > MAX_INPUT_BYTES:
        raise JqError(f"the jq input is too large ({size} bytes of JSON; the limit is {MAX_INPUT_BYTES})")
    return text


def _load_output(text: str) -> Any:
    size = len(text) if len(text) * 4 <= MAX_OUTPUT_BYTES else len(text.encode("utf-8"))
    if size > MAX_OUTPUT_BYTES:
        raise JqError(f"the jq result is too large ({size} bytes of JSON; the limit is {MAX_OUTPUT_BYTES})")
    _recursion_headroom(MAX_DEPTH + 2)
    try:
        result = json.loads(text, parse_float=_finite)
    except (RecursionError, ValueError):
        # libjq stops printing at depth 10000 ("<skipped: too deep>"); Python's decoder stops sooner.
        raise JqError(_TOO_DEEP.format("result")) from None
    if text.count("[") + text.count("{") > MAX_DEPTH and _deeper_than(result, MAX_DEPTH):
        raise JqError(_TOO_DEEP.format("result"))
    return result


def evaluate(
    expr: str,
    value: Any,
    *,
    steps: Mapping[str, Any] | None = None,
    inputs: Mapping[str, Any] | None = None,
    loop: Any = None,
) -> Any:
    """Run ``expr`` on ``value`` and return its one result; raise :class:`JqError` otherwise.

    ``$steps`` and ``$inputs`` are ``{}`` when not given, ``$loop`` is ``null``.
    """
    error = check_syntax(expr)
    if error is None:
        error = _module_error(expr)  # again: the files may have changed since the cached check
    if error is not None:
        raise JqError(f"invalid jq expression: {error.message}")
    globals_ = {"steps": dict(steps or {}), "inputs": dict(inputs or {}), "loop": loop}
    for name, item in (("input", value), ("$steps", globals_["steps"]), ("$inputs", globals_["inputs"])):
        if _deeper_than(item, MAX_DEPTH):
            raise JqError(_TOO_DEEP.format(f"{name} value"))
    if _deeper_than(loop, MAX_DEPTH):
        raise JqError(_TOO_DEEP.format("$loop value"))
    program = _wrapped_program(expr)
    if program is not None:
        outputs = program.input_text(_dump_input([value, globals_["steps"], globals_["inputs"], loop]))
    else:
        # Rare: a valid expression the lexer cannot vouch for (a comment ending in a backslash, say).
        _dump_input([value, globals_["steps"], globals_["inputs"], loop])
        outputs = _libjq.compile(expr, args=globals_).input_text(_dump_input(value))
    count = 0
    first: Any = None
    try:
        for output in outputs:
            count += 1
            if count == 1:
                first = output
            elif count > MAX_OUTPUT_VALUES:
                break
    except ValueError as exc:
        raise JqError(str(exc)) from None
    if count == 0:
        raise JqError("the jq expression produced no value; exactly one is required")
    if count > MAX_OUTPUT_VALUES:
        raise JqError(f"the jq expression produced more than {MAX_OUTPUT_VALUES} values; {_WRAP_HINT}")
    if count > 1:
        raise JqError(f"the jq expression produced {count} values; {_WRAP_HINT}")
    if program is not None:
        return _load_output(first)
    if _deeper_than(first, MAX_DEPTH):
        raise JqError(_TOO_DEEP.format("result"))
    _recursion_headroom(MAX_DEPTH + 2)
    _load_output(json.dumps(first, ensure_ascii=False))
    return first
