"""The config defaults made without validation (lait_core.documents.document_models.defaults_of and
Config.model_construct() in lait_core.documents.config_file, for start-up time) are exactly what
validating an empty mapping gives: the same values and no field counted as set (the merge of the
global and project configs goes by the fields set). A validator added to one of these models later
would make the two differ: this test then fails instead of the defaults silently skipping it."""

from __future__ import annotations

from pydantic import BaseModel

from lait_core.documents import document_models as m


def test_constructed_defaults_equal_validated_ones() -> None:
    assert m.Config.model_construct() == m.Config.model_validate({})
    nested = 0
    for name, field in m.Config.model_fields.items():
        kind = field.annotation
        if field.default_factory is None or not (isinstance(kind, type) and issubclass(kind, BaseModel)):
            continue
        made = field.default_factory()  # type: ignore[call-arg]
        validated = kind.model_validate({})
        assert made == validated, name
        assert made.model_fields_set == validated.model_fields_set == set(), name
        assert made.model_dump() == validated.model_dump(), name
        nested += 1
    assert nested >= 4  # default, tool_policy, jev, serve
