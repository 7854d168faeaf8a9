"""The Handlebars-dialect template engine: rendering, syntax errors, offsets and references."""

from __future__ import annotations

import re
from typing import Any

import pytest

from lait_core.syntax.template import (
    Block,
    Call,
    Comment,
    LiteralExpr,
    Output,
    PathExpr,
    PathKind,
    Reference,
    Template,
    TemplateRenderError,
    TemplateSyntaxError,
    Text,
    check_syntax,
    is_truthy,
    parse,
    references,
    render,
    text_form,
    walk,
)
from lait_core.syntax.template import parser as template_parser

CONTEXT: dict[str, Any] = {
    "inputs": {
        "name": "Ada",
        "count": 3,
        "ratio": 1.5,
        "flag": True,
        "off": False,
        "nothing": None,
        "obj": {"a": 1, "b": [1, 2]},
        "items": ["x", "y", "z"],
        "empty_list": [],
        "empty_obj": {},
        "zero": 0,
        "blank": "",
        "dict": {"k1": "v1", "k2": "v2"},
        "my key": "spaced",
        "日本": "語",
        "html": "<b>&amp;</b>",
        "people": [{"name": "A", "tags": ["t1", "t2"]}, {"name": "B", "tags": []}],
    },
    "steps": {"my-id": {"output": "out"}, "fetch": {"output": {"sha": "abc"}}},
}


def r(source: str, context: dict[str, Any] | None = None) -> str:
    return render(source, CONTEXT if context is None else context)


def render_error(source: str, context: dict[str, Any] | None = None) -> TemplateRenderError:
    with pytest.raises(TemplateRenderError) as info:
        render(source, CONTEXT if context is None else context)
    return info.value


def syntax_error(source: str) -> TemplateSyntaxError:
    error = check_syntax(source)
    assert error is not None, f"expected a syntax error in {source!r}"
    with pytest.raises(TemplateSyntaxError) as info:
        parse(source)
    assert info.value == error
    return error


# -- text form ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain", "plain"),
        ("", ""),
        ('with "quotes"', 'with "quotes"'),
        (1, "1"),
        (-2, "-2"),
        (1.5, "1.5"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        ({"a": 1, "b": [1, 2]}, '{"a":1,"b":[1,2]}'),
        ([1, "two", None], '[1,"two",null]'),
        ({"日本": "語"}, '{"日本":"語"}'),
        ([], "[]"),
        ({}, "{}"),
    ],
)
def test_text_form(value: Any, expected: str) -> None:
    assert text_form(value) == expected


# -- plain output ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("Hello {{ inputs.name }}!", "Hello Ada!"),
        ("{{inputs.count}}", "3"),
        ("{{ inputs.ratio }}", "1.5"),
        ("{{ inputs.flag }} {{ inputs.off }}", "true false"),
        ("{{ inputs.nothing }}", "null"),
        ("{{ inputs.obj }}", '{"a":1,"b":[1,2]}'),
        ("{{ inputs.items }}", '["x","y","z"]'),
        ("{{ inputs.html }}", "<b>&amp;</b>"),  # never HTML-escaped
        ("{{{ inputs.html }}}", "<b>&amp;</b>"),
        ("{{{ inputs.obj }}}", '{"a":1,"b":[1,2]}'),
        ("{{ inputs.items.1 }}", "y"),
        ("{{ inputs.items.[2] }}", "z"),
        ("{{ inputs.[my key] }}", "spaced"),
        ("{{ inputs.[日本] }} {{ inputs.日本 }}", "語 語"),
        ("{{ inputs.obj.b.0 }}", "1"),
        ("{{ inputs/obj/a }}", "1"),
        ("{{ steps.my-id.output }}", "out"),
        ("{{ steps.fetch.output.sha }}", "abc"),
        ("{{ this.inputs.name }} {{ ./inputs.name }} {{ @root.inputs.name }}", "Ada Ada Ada"),
        ("日本語{{ inputs.name }}です", "日本語Adaです"),
        ("no tags at all", "no tags at all"),
        ("", ""),
        ("{{ 12 }} {{ true }} {{ null }} {{ 'lit' }}", "12 true null lit"),
        ("}} stray closers {", "}} stray closers {"),
    ],
)
def test_plain_output(source: str, expected: str) -> None:
    assert r(source) == expected


def test_this_renders_the_whole_context_as_json() -> None:
    assert r("{{ this }}", {"a": [1]}) == '{"a":[1]}'
    assert r("{{ . }}", {"a": 1}) == '{"a":1}'


# -- helpers -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("{{ json inputs.name }}", '"Ada"'),
        ("{{json inputs.obj}}", '{"a":1,"b":[1,2]}'),
        ("{{ json inputs.count }}", "3"),
        ("{{ json inputs.nothing }}", "null"),
        ("{{ json inputs.日本 }}", '"語"'),
        ('{{ json "x" }}', '"x"'),
        ("{{ json 'it''s' }}".replace("''", "\\'"), '"it\'s"'),
        ('{{ json "a\\"b" }}', '"a\\"b"'),
        ("{{ json 12 }} {{ json -1.5 }} {{ json true }} {{ json null }}", "12 -1.5 true null"),
        ("{{ text inputs.name }}", "Ada"),
        ("{{ text inputs.obj }}", '{"a":1,"b":[1,2]}'),
        ("{{ json (text inputs.obj) }}", '"{\\"a\\":1,\\"b\\":[1,2]}"'),
        ("{{ (json inputs.name) }}", '"Ada"'),
        ("{{{ json inputs.name }}}", '"Ada"'),
    ],
)
def test_helpers(source: str, expected: str) -> None:
    assert r(source) == expected


def test_helper_names_without_arguments_are_variables() -> None:
    assert r("{{ json }}-{{ text }}", {"json": "J", "text": "T"}) == "J-T"


def test_unknown_helper_is_a_render_error_at_its_name() -> None:
    source = "日本 {{ shout inputs.name }}"
    assert check_syntax(source) is None  # the grammar accepts any helper name
    error = render_error(source)
    assert "unknown helper 'shout'" in error.message
    assert source[error.start : error.end] == "shout"
    assert (error.start, error.end) == (6, 11)


def test_helper_arity_is_a_render_error() -> None:
    source = "{{ json inputs.name inputs.count }}"
    error = render_error(source)
    assert "takes exactly one argument" in error.message
    assert source[error.start : error.end] == "json inputs.name inputs.count"


# -- strict mode -------------------------------------------------------------------------------
def test_missing_variable_is_an_error_pointing_at_the_path() -> None:
    source = "日本語 {{ inputs.missing }} text"
    error = render_error(source)
    assert (error.start, error.end) == (7, 21)
    assert source[error.start : error.end] == "inputs.missing"
    assert "'inputs' has no field 'missing'" in error.message


@pytest.mark.parametrize(
    ("source", "path", "fragment"),
    [
        ("{{ nope }}", "nope", "'nope' is not defined"),
        ("{{ inputs.obj.c }}", "inputs.obj.c", "'inputs.obj' has no field 'c'"),
        ("{{ inputs.items.7 }}", "inputs.items.7", "'inputs.items' has 3 item(s), no index 7"),
        ("{{ inputs.items.first }}", "inputs.items.first", "is an array"),
        ("{{ inputs.name.first }}", "inputs.name.first", "'inputs.name' is a string, not an object"),
        ("{{ inputs.nothing.x }}", "inputs.nothing.x", "'inputs.nothing' is null"),
        ("{{ json inputs.gone }}", "inputs.gone", "has no field 'gone'"),
        ("{{ text inputs.gone }}", "inputs.gone", "has no field 'gone'"),
        ("{{{ inputs.gone }}}", "inputs.gone", "has no field 'gone'"),
        ("{{ @index }}", "@index", "'@index' is not defined here"),
        ("{{ ../inputs }}", "../inputs", "goes above the top-level context"),
        ("{{ this.gone }}", "this.gone", "'this' has no field 'gone'"),
        ("{{ @root.gone }}", "@root.gone", "'@root' has no field 'gone'"),
        ("{{#each inputs.items}}{{ name }}{{/each}}", "name", "not defined in the current context"),
        ("{{#if inputs.flag}}{{ inputs.gone }}{{/if}}", "inputs.gone", "has no field 'gone'"),
    ],
)
def test_strict_missing_values(source: str, path: str, fragment: str) -> None:
    error = render_error(source)
    assert source[error.start : error.end] == path
    assert fragment in error.message


def test_null_is_a_value_not_missing() -> None:
    assert r("{{ inputs.nothing }}") == "null"
    assert r("{{#with inputs}}{{ nothing }}{{/with}}") == "null"


# -- #if / #unless -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "truthy"),
    [
        ("inputs.flag", True),
        ("inputs.off", False),
        ("inputs.nothing", False),
        ("inputs.missing", False),  # lenient: no error
        ("inputs.missing.deeper", False),
        ("inputs.blank", False),
        ("inputs.zero", False),
        ("inputs.empty_list", False),
        ("inputs.empty_obj", False),
        ("inputs.name", True),
        ("inputs.count", True),
        ("inputs.items", True),
        ("inputs.obj", True),
        ("true", True),
        ("0", False),
    ],
)
def test_if_truthiness(path: str, truthy: bool) -> None:
    assert r(f"{{{{#if {path}}}}}yes{{{{else}}}}no{{{{/if}}}}") == ("yes" if truthy else "no")
    assert r(f"{{{{#unless {path}}}}}yes{{{{else}}}}no{{{{/unless}}}}") == ("no" if truthy else "yes")
    assert r(f"[{{{{#if {path}}}}}yes{{{{/if}}}}]") == ("[yes]" if truthy else "[]")


def test_is_truthy() -> None:
    falsy: list[Any] = [0, 0.0, "", [], {}, None, False]
    truthy: list[Any] = [1, -0.5, "0", [0], {"a": None}, True]
    assert [is_truthy(v) for v in falsy] == [False] * 7
    assert [is_truthy(v) for v in truthy] == [True] * 6
    assert is_truthy(0, include_zero=True)


def test_if_include_zero() -> None:
    assert r("{{#if inputs.zero includeZero=true}}zero{{else}}none{{/if}}") == "zero"
    assert r("{{#if inputs.zero includeZero=false}}zero{{else}}none{{/if}}") == "none"


def test_else_if_chain() -> None:
    source = "{{#if a}}A{{else if b}}B{{else unless c}}notC{{else}}C{{/if}}"
    assert r(source, {"a": 1, "b": 1, "c": 1}) == "A"
    assert r(source, {"a": 0, "b": 1, "c": 1}) == "B"
    assert r(source, {"a": 0, "b": 0, "c": 0}) == "notC"
    assert r(source, {"a": 0, "b": 0, "c": 1}) == "C"
    assert r("{{#if a}}A{{^}}not A{{/if}}", {"a": False}) == "not A"


def test_if_does_not_change_the_context() -> None:
    assert r("{{#if inputs.obj}}{{ inputs.name }}{{/if}}") == "Ada"


# -- #each -------------------------------------------------------------------------------------
def test_each_over_an_array() -> None:
    source = (
        "{{#each inputs.items}}[{{ this }}:{{@index}}{{#if @first}}F{{/if}}{{#if @last}}L{{/if}}]{{/each}}"
    )
    assert r(source) == "[x:0F][y:1][z:2L]"


def test_each_over_an_object() -> None:
    assert r("{{#each inputs.dict}}{{@key}}={{this}}@{{@index}};{{/each}}") == "k1=v1@0;k2=v2@1;"


def test_each_fields_of_items_and_nested_each() -> None:
    source = "{{#each inputs.people}}{{ name }}({{#each tags}}{{ this }}{{/each}}) {{/each}}"
    assert r(source) == "A(t1t2) B() "


def test_each_else_and_lenient_missing() -> None:
    assert r("{{#each inputs.empty_list}}x{{else}}empty{{/each}}") == "empty"
    assert r("{{#each inputs.empty_obj}}x{{else}}empty{{/each}}") == "empty"
    assert r("{{#each inputs.missing}}x{{else}}missing{{/each}}") == "missing"
    assert r("[{{#each inputs.missing}}x{{/each}}]") == "[]"
    assert r("[{{#each inputs.nothing}}x{{/each}}]") == "[]"


def test_each_block_params() -> None:
    assert r("{{#each inputs.items as |item i|}}{{ item }}/{{ i }} {{/each}}") == "x/0 y/1 z/2 "
    assert r("{{#each inputs.dict as |value key|}}{{ key }}={{ value }};{{/each}}") == "k1=v1;k2=v2;"
    source = (
        "{{#each inputs.people as |person|}}{{#each person.tags}}"
        "{{ person.name }}:{{ this }} {{/each}}{{/each}}"
    )
    assert r(source) == "A:t1 A:t2 "


def test_each_over_a_scalar_is_an_error() -> None:
    source = "{{#each inputs.name}}x{{/each}}"
    error = render_error(source)
    assert source[error.start : error.end] == "inputs.name"
    assert "needs an array or an object" in error.message and "a string" in error.message


def test_parent_access() -> None:
    source = (
        "{{#each inputs.people}}{{#each tags}}"
        "{{ ../name }}-{{ this }}-{{ ../../inputs.name }} {{/each}}{{/each}}"
    )
    assert r(source) == "A-t1-Ada A-t2-Ada "
    assert r("{{#each inputs.items}}{{ @root.inputs.count }}{{/each}}") == "333"
    # #if pushes no context: ../ still refers to the parent of the #each item
    assert r("{{#each inputs.people}}{{#if name}}{{ ../inputs.name }}{{/if}}{{/each}}") == "AdaAda"


# -- #with -------------------------------------------------------------------------------------
def test_with() -> None:
    source = "{{#with inputs.obj}}{{ a }}-{{ b.1 }}-{{ this.a }}-{{ ../inputs.name }}{{/with}}"
    assert r(source) == "1-2-1-Ada"
    assert r("{{#with inputs.obj}}{{ this }}{{/with}}") == '{"a":1,"b":[1,2]}'
    assert r("{{#with inputs.missing}}x{{else}}no{{/with}}") == "no"
    assert r("{{#with inputs.obj as |o|}}{{ o.a }}{{/with}}") == "1"


# -- whitespace, comments, escapes -------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a  {{~ inputs.name ~}}  b", "aAdab"),
        ("a \n {{~ inputs.name }} b", "aAda b"),
        ("a {{ inputs.name ~}} \n b", "a Adab"),
        ("{{#if inputs.flag~}}   yes   {{~/if}}", "yes"),
        ("{{#if inputs.off}}1{{~ else ~}}  2  {{~/if}}", "2"),
        ("x {{~! comment ~}} y", "xy"),
        # standalone block lines disappear with their newline
        ("{{#each inputs.items}}\n- {{this}}\n{{/each}}\n", "- x\n- y\n- z\n"),
        ("  {{#if inputs.flag}}\n  yes\n  {{else}}\n  no\n  {{/if}}\n", "  yes\n"),
        ("{{! note }}\nHello", "Hello"),
        ("Hello {{! not standalone }}\nWorld", "Hello \nWorld"),
        ("{{#if inputs.flag}}X{{/if}}\n", "X\n"),
        ("a\r\n{{#if inputs.flag}}\r\nX\r\n{{/if}}\r\nb", "a\r\nX\r\nb"),
        ("x\n  {{#if inputs.flag}}  \ny\n  {{/if}}", "x\ny\n"),
        ("start\n  {{ inputs.name }}\nend", "start\n  Ada\nend"),  # output tags are never standalone
    ],
)
def test_whitespace(source: str, expected: str) -> None:
    assert r(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x{{! comment }}y", "xy"),
        ("x{{!-- has }} and {{ inputs.gone }} --}}y", "xy"),
        ("x{{!-- --}}y", "xy"),
        ("\\{{ inputs.name }} is {{ inputs.name }}", "{{ inputs.name }} is Ada"),
        ("\\{{{{ raw }}}}", "{{{{ raw }}}}"),
        ("\\\\{{ inputs.name }}", "\\Ada"),
        ("a\\b {{ inputs.name }}", "a\\b Ada"),
        ("{{{{raw}}}}{{ inputs.gone }} {{#if}}{{{{/raw}}}}!", "{{ inputs.gone }} {{#if}}!"),
    ],
)
def test_comments_escapes_and_raw(source: str, expected: str) -> None:
    assert r(source) == expected


# -- AST and offsets ---------------------------------------------------------------------------
def test_ast_offsets_are_code_points() -> None:
    source = "日本{{ inputs.x }}語"
    template = parse(source)
    assert isinstance(template, Template)
    text, output, tail = template.nodes
    assert text == Text("日本", 0, 2)
    assert isinstance(output, Output)
    assert (output.start, output.end) == (2, 16)
    assert isinstance(output.expr, PathExpr)
    assert output.expr == PathExpr("inputs.x", PathKind.CONTEXT, 0, ("inputs", "x"), 5, 13)
    assert source[output.expr.start : output.expr.end] == "inputs.x"
    assert tail == Text("語", 16, 17)


def test_ast_block_offsets() -> None:
    source = "a{{#if x}}b{{else}}c{{/if}}d"
    template = parse(source)
    block = template.nodes[1]
    assert isinstance(block, Block)
    assert block.helper == "if"
    assert source[block.start : block.open_end] == "{{#if x}}"
    assert source[block.close_start : block.end] == "{{/if}}"
    assert source[block.name_start : block.name_end] == "if"
    assert block.body == (Text("b", 10, 11),)
    assert block.inverse == (Text("c", 19, 20),)
    assert [type(node).__name__ for node in walk(template.nodes)] == ["Text", "Block", "Text", "Text", "Text"]


def test_ast_helper_call_and_literals() -> None:
    source = '{{ json "x" }}{{! c }}'
    output, comment = parse(source).nodes
    assert isinstance(output, Output) and isinstance(output.expr, Call)
    assert output.expr.name == "json"
    assert output.expr.params == (LiteralExpr("x", 8, 11),)
    assert comment == Comment(" c ", 14, 22)


def test_trimmed_text_offsets_follow_the_kept_text() -> None:
    template = parse("ab  {{~ x }}")
    assert template.nodes[0] == Text("ab", 0, 2)
    template = parse("{{ x ~}}  cd")
    assert template.nodes[1] == Text("cd", 10, 12)


def test_nodes_of_different_types_are_never_equal() -> None:
    text: object = Text("a", 0, 1)
    assert text != Comment("a", 0, 1)
    assert Text("a", 0, 1) == Text("a", 0, 1)
    assert hash(Text("a", 0, 1)) == hash(Text("a", 0, 1))


def test_parse_is_cached_and_immutable() -> None:
    source = "cached {{ inputs.name }} " + "x" * 7
    assert parse(source) is parse(source)
    with pytest.raises(AttributeError):
        parse(source).nodes[0].start = 3  # type: ignore[misc]


def test_render_accepts_a_parsed_template() -> None:
    assert render(parse("{{ a }}"), {"a": 1}) == "1"


def test_fast_paths_match_the_general_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [
        "{{ inputs.x }}",
        "{{~a.b-c.d~}}",
        "{{ this.x }}",
        "{{@index}}",
        "{{ @root.x }}",
        "{{ this }}",
        "{{ true }}",
        "{{ json inputs.x }}",
        "{{#if a.b}}x{{else}}y{{/if}}",
        "{{#each xs}}{{@key}}{{/ each }}",
        "{{#with this.x}}{{/with}}",
        "{{ text @index }}",
        "{{~#if a~}} x {{~^~}} y {{~/if~}}",
        "{{ x_1.日本 }}",
        "{{ a.0.b }}",
    ]
    fast = [template_parser._Parser(source).parse() for source in sources]
    never = re.compile(r"(?!)")
    for name in ("_SIMPLE_OUTPUT", "_SIMPLE_CALL", "_SIMPLE"):
        monkeypatch.setattr(template_parser, name, never)
    slow = [template_parser._Parser(source).parse() for source in sources]
    assert fast == slow


# -- syntax errors -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "span", "fragment"),
    [
        ("abc {{ inputs.x", "{{", "unclosed '{{'"),
        ("{{", "{{", "unclosed '{{'"),
        ("日本 {{ a {{ b }}", "{{", "unclosed '{{'"),
        ("{{{ inputs.x }}", "{{{", "unclosed '{{{'"),
        ("a {{#if inputs.x}} b", "{{#if inputs.x}}", "unclosed '{{#if}}' block; add '{{/if}}'"),
        ("{{#each xs}}{{#if y}}{{/if}}", "{{#each xs}}", "unclosed '{{#each}}'"),
        ("{{#if a}}x{{else if b}}y", "{{#if a}}", "unclosed '{{#if}}'"),
        ("{{#if x}}..{{/each}}", "{{/each}}", "does not match the open '{{#if}}' block; expected '{{/if}}'"),
        ("{{#if a}}{{else each b}}{{/each}}", "{{/each}}", "expected '{{/if}}'"),
        ("text {{/if}}", "{{/if}}", "has no matching '{{#if}}'"),
        ("{{}}", "{{}}", "empty expression"),
        ("x {{   }}", "{{   }}", "empty expression"),
        ("{{~}}", "{{~}}", "empty expression"),
        ("{{ inputs.x+1 }}", "+", "invalid character '+'"),
        ("{{ inputs.x$ }}", "$", "invalid character '$'"),
        ("{{ json inputs.a,b }}", ",", "invalid character ','"),
        ("{{ a..b }}", ".", "empty segment"),
        ("{{ a. }}", ".", "ends with '.'"),
        ("{{ inputs.x] }}", "]", "unexpected ']'"),
        ("{{ a } }}", "}", "unexpected '}'"),
        ("{{else}}", "{{else}}", "outside of a block"),
        ("x {{^}} y", "{{^}}", "outside of a block"),
        ("{{#if a}}1{{else}}2{{else}}3{{/if}}", "{{else}}", "only one '{{else}}'"),
        ("{{#if}}x{{/if}}", "{{#if}}", "'{{#if}}' needs one argument"),
        ("{{#each   }}x{{/each}}", "{{#each   }}", "'{{#each}}' needs one argument"),
        ("{{#if a b}}x{{/if}}", "b", "takes one argument"),
        ("{{#foo x}}y{{/foo}}", "foo", "unknown block helper '#foo'"),
        ("{{else foo x}}", "foo", "unknown block helper '#foo'"),  # the tag itself is checked first
        ("{{else if x}}", "{{else if x}}", "outside of a block"),
        ("{{#if a}}{{else foo x}}{{/if}}", "foo", "unknown block helper '#foo'"),
        ("{{#}}", "{{#}}", "missing block helper name"),
        ("{{/}}", "{{/}}", "missing block name"),
        ("{{#if a}}{{/if b}}", "b", "in a closing tag"),
        ('{{ json "abc }}', '"', "unterminated string literal"),
        ("{{ inputs.[a }}", "[", "unclosed '['"),
        ("{{! no end", "{{!", "unclosed comment"),
        ("{{!-- no end", "{{!--", "unclosed comment '{{!--'"),
        ("{{ inputs.x y }}", "inputs.x", "expected a helper name"),
        ("{{ json (text x }}", "(", "unclosed '('"),
        ("{{ json x ) }}", ")", "unexpected ')'"),
        ("{{> partial }}", ">", "partials"),
        ("{{^x}}y{{/x}}", "{{^x}}", "inverted sections"),
        ("{{#if a as |b|}}{{/if}}", "{{#if a as |b|}}", "block parameters"),
        ("{{{{other}}}}x{{{{/other}}}}", "{{{{", "raw blocks"),
        ("{{{{raw}}}}x", "{{{{raw}}}}", "unclosed '{{{{raw}}}}'"),
    ],
)
def test_syntax_errors(source: str, span: str, fragment: str) -> None:
    error = syntax_error(source)
    assert fragment in error.message, error.message
    assert source[error.start : error.end] == span, (error.start, error.end)


def test_syntax_error_offsets_are_code_points() -> None:
    source = "日本語テキスト {{#if inputs.x}} 続き"
    error = syntax_error(source)
    assert (error.start, error.end) == (8, 24)
    error = syntax_error("日本 {{ a+b }}")
    assert (error.start, error.end) == (7, 8)


def test_mismatched_close_points_at_the_close_tag_not_the_opener() -> None:
    source = "{{#if a}}\n{{#each b}}\n{{/if}}"
    error = syntax_error(source)
    assert (error.start, error.end) == (22, 29)
    assert "'{{#each}}'" in error.message


def test_check_syntax_accepts_valid_templates() -> None:
    for source in [
        "",
        "plain",
        "{{ inputs.x }}",
        "{{#if a}}{{else}}{{/if}}",
        "{{#each xs as |x i|}}{{ x }}{{/each}}",
        "{{ shout x }}",
        "{{ json (text x) }}",
        "{{ json '}}' }}",
        "{{#if a}}{{else if b}}{{else}}{{/if}}",
        "{{ # if a }}x{{ / if }}",
    ]:
        assert check_syntax(source) is None, source


def test_syntax_error_is_an_exception_with_a_range() -> None:
    error = TemplateSyntaxError("boom", 1, 3)
    assert str(error) == "boom"
    assert (error.message, error.start, error.end) == ("boom", 1, 3)
    assert error == TemplateSyntaxError("boom", 1, 3)
    assert error != TemplateRenderError("boom", 1, 3)
    with pytest.raises(TemplateSyntaxError):
        render("{{#if}}{{/if}}", {})


# -- references --------------------------------------------------------------------------------
def test_references_offsets_and_names() -> None:
    source = "日本 {{ inputs.topic.title }} and {{#if steps.fetch-1.output}}{{ json inputs.lang }}{{/if}}"
    refs = references(source)
    assert refs == [
        Reference("inputs", "topic", 13, 18),
        Reference("steps", "fetch-1", 44, 51),
        Reference("inputs", "lang", 75, 79),
    ]
    for ref in refs:
        assert source[ref.start : ref.end] == ref.name


def test_references_once_per_name_at_first_occurrence() -> None:
    source = "{{ inputs.a }} {{ inputs.a.b }} {{ steps.a }} {{ inputs.b }}"
    assert [(ref.root, ref.name, ref.start) for ref in references(source)] == [
        ("inputs", "a", 10),
        ("steps", "a", 41),
        ("inputs", "b", 56),
    ]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("{{ ../inputs.x }}", []),
        ("{{ this.inputs.x }}", []),
        ("{{ ./inputs.x }}", []),
        ("{{ myinputs.x }}", []),
        ("{{ inputs }}", []),
        ("no tags inputs.x", []),
        ("{{! inputs.commented }}{{!-- steps.too --}}", []),
        ("\\{{ inputs.escaped }}", []),
        ('{{ json "inputs.in_string" }}', []),
        ("{{{{raw}}}}{{ inputs.raw }}{{{{/raw}}}}", []),
        ("{{ inputs.[my key] }}", [("inputs", "my key")]),
        ("{{~inputs.t~}}", [("inputs", "t")]),
        ("{{{ inputs.triple }}}", [("inputs", "triple")]),
        ("{{#each steps.list.output}}{{/each}}", [("steps", "list")]),
        ("{{ json (text inputs.sub) }}", [("inputs", "sub")]),
        ("{{#if x includeZero=inputs.h}}{{/if}}", [("inputs", "h")]),
        ('{{ f "s" inputs.after_string }}', [("inputs", "after_string")]),
        ("{{ input.a }}{{ vars.b }}{{ loop.c }}", [("input", "a"), ("vars", "b"), ("loop", "c")]),
        ("\\\\{{ inputs.live }}", [("inputs", "live")]),
    ],
)
def test_references_rule(source: str, expected: list[tuple[str, str]]) -> None:
    refs = references(source)
    assert [(ref.root, ref.name) for ref in refs] == expected
    for ref in refs:
        assert source[ref.start : ref.end] == ref.name


def test_references_survive_syntax_errors() -> None:
    source = "{{#if inputs.a}} {{ inputs.b+ }} {{ steps.c"
    assert check_syntax(source) is not None
    refs = references(source)
    assert [(ref.root, ref.name) for ref in refs] == [("inputs", "a"), ("inputs", "b"), ("steps", "c")]
    for ref in refs:
        assert source[ref.start : ref.end] == ref.name


def test_references_skip_comments_and_raw_blocks_and_survive_unclosed_tags() -> None:
    from lait_core.syntax.template.mentions import references

    def names(source: str) -> list[str]:
        return [f"{r.root}.{r.name}" for r in references(source)]

    assert names("{{!-- {{ inputs.hidden }} --}}{{ inputs.shown }}") == ["inputs.shown"]
    assert names("{{!-- never closed long }} {{ inputs.after }}") == ["inputs.after"]
    assert names("{{! short }}{{!-- no end") == []
    assert names("{{{{raw}}}}{{ inputs.raw }}{{{{/raw}}}}{{ steps.s }}") == ["steps.s"]
    assert names("{{{{raw}}}} never closed {{ inputs.x }}") == ["inputs.x"]
    hostile = "{{ x " * 100_000 + "{{!-- " * 50_000 + "}} {{ inputs.late }}"
    assert names(hostile) == ["inputs.late"]
