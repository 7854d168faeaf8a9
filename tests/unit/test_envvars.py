"""lait_core.documents.envvars: the ``${VAR}`` placeholder grammar and its expansion."""

from __future__ import annotations

import pytest

from lait_core.documents.envvars import EnvVarError, Placeholder, check, expand, placeholders


def test_no_placeholder() -> None:
    assert placeholders("plain text") == []
    assert check("plain text") is None
    assert expand("plain text", {}) == "plain text"


@pytest.mark.parametrize("value", ["$HOME", "$", "cost: 5$", "{HOME}", "$ {HOME}", "}{", "$$"])
def test_text_without_a_placeholder_passes_through(value: str) -> None:
    assert placeholders(value) == []
    assert expand(value, {}) == value


def test_placeholder_offsets() -> None:
    value = "http://${HOST}:${PORT}/v1"
    assert placeholders(value) == [Placeholder("HOST", 7, 14), Placeholder("PORT", 15, 22)]
    for p in placeholders(value):
        assert value[p.start : p.end] == "${" + p.name + "}"


def test_offsets_count_code_points() -> None:
    assert placeholders("日本語 ${KEY}") == [Placeholder("KEY", 4, 10)]


@pytest.mark.parametrize("name", ["A", "a", "_", "1", "9LIVES", "API_KEY_2", "lower_case"])
def test_valid_names(name: str) -> None:
    assert placeholders("${" + name + "}") == [Placeholder(name, 0, len(name) + 3)]


@pytest.mark.parametrize("name", ["", "A-B", "A B", "A:-default", "A.B", "É", "Ａ", "$A", "A{B"])
def test_invalid_names(name: str) -> None:
    value = "x ${" + name + "} y"
    with pytest.raises(EnvVarError) as info:
        placeholders(value)
    error = info.value
    assert error.message == (
        f"invalid environment variable placeholder '${{{name}}}' in \"{value}\""
        " (must be alphanumeric/underscore)"
    )
    assert str(error) == error.message
    assert (error.start, error.end) == (2, 2 + len(name) + 3)
    assert check(value) is not None


def test_nested_placeholder_is_an_invalid_name() -> None:
    error = check("${A${B}}")
    assert error is not None
    assert error.message.startswith("invalid environment variable placeholder '${A${B}'")
    assert (error.start, error.end) == (0, 7)


def test_unterminated_placeholder() -> None:
    value = "prefix ${HOME"
    error = check(value)
    assert error is not None
    assert error.message == "unterminated '${' placeholder in \"prefix ${HOME\""
    assert (error.start, error.end) == (7, len(value))


def test_unterminated_after_a_valid_placeholder() -> None:
    error = check("${A} ${B")
    assert error is not None
    assert error.message.startswith("unterminated")
    assert error.start == 5


def test_message_quotes_the_value_as_a_json_string() -> None:
    error = check('say "hi"\n${')
    assert error is not None
    assert error.message == 'unterminated \'${\' placeholder in "say \\"hi\\"\\n${"'


def test_check_never_looks_at_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LAIT_TEST_SURELY_UNSET", raising=False)
    assert check("${LAIT_TEST_SURELY_UNSET}") is None


def test_expand() -> None:
    env = {"HOST": "localhost", "PORT": "1234"}
    assert expand("http://${HOST}:${PORT}/v1", env) == "http://localhost:1234/v1"
    assert expand("${HOST}${HOST}", env) == "localhostlocalhost"


def test_expand_empty_value() -> None:
    assert expand("a${EMPTY}b", {"EMPTY": ""}) == "ab"


def test_expand_does_not_rescan_substituted_values() -> None:
    assert expand("${A}", {"A": "${B}", "B": "no"}) == "${B}"
    assert expand("${A}", {"A": "${"}) == "${"


def test_expand_unset_variable() -> None:
    with pytest.raises(EnvVarError) as info:
        expand("key=${API_KEY}", {})
    assert info.value.message == "environment variable 'API_KEY' referenced by '${API_KEY}' is not set"
    assert (info.value.start, info.value.end) == (4, 14)


def test_expand_reports_the_leftmost_problem() -> None:
    with pytest.raises(EnvVarError, match="'UNSET' referenced"):
        expand("${UNSET} ${bad-name}", {})
    with pytest.raises(EnvVarError, match="invalid environment variable placeholder"):
        expand("${bad-name} ${UNSET}", {})


def test_expand_uses_os_environ_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAIT_TEST_VAR", "from-env")
    monkeypatch.delenv("LAIT_TEST_SURELY_UNSET", raising=False)
    assert expand("${LAIT_TEST_VAR}") == "from-env"
    with pytest.raises(EnvVarError, match="is not set"):
        expand("${LAIT_TEST_SURELY_UNSET}")


def test_expand_grammar_error_even_when_set() -> None:
    with pytest.raises(EnvVarError, match="invalid environment variable placeholder"):
        expand("${A:-x}", {"A": "1", "A:-x": "2"})


def test_lait_python_is_the_python_that_runs_lait_unless_the_environment_sets_it() -> None:
    import sys

    from lait_core.documents.envvars import expand

    assert expand("${LAIT_PYTHON}", {}) == sys.executable
    assert expand("${LAIT_PYTHON} -u", {"LAIT_PYTHON": "/opt/py/bin/python"}) == "/opt/py/bin/python -u"
    assert expand("${LAIT_PYTHON}", {"LAIT_PYTHON": ""}) == ""  # set (even empty) wins, as for any variable
