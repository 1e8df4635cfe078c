"""Schema violations come out worded as the TanStack server's zod words them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.interrupts.schema_issues import schema_errors

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

TRANSFER = {
    "type": "object",
    "properties": {"recipient": {"type": "string"}, "amount": {"type": "integer"}},
    "required": ["amount", "recipient"],
}


def test_missing_properties_point_at_themselves_in_the_schemas_property_order() -> None:
    assert schema_errors(TRANSFER, {}) == [
        (("recipient",), "Invalid input: expected string, received undefined"),
        (("amount",), "Invalid input: expected int, received undefined"),
    ]


def test_type_const_and_enum_issues_use_zods_words() -> None:
    assert schema_errors(TRANSFER, {"recipient": 7, "amount": 1}) == [
        (("recipient",), "Invalid input: expected string, received number"),
    ]
    assert schema_errors({"const": True}, False) == [((), "Invalid input: expected true")]
    assert schema_errors({"enum": ["a", "b"]}, "c") == [
        ((), 'Invalid option: expected one of "a"|"b"')
    ]


def test_no_schema_accepts_anything_and_a_broken_one_is_one_issue() -> None:
    assert schema_errors(None, {"anything": 1}) == []
    assert schema_errors({}, 1) == []
    assert schema_errors({"$ref": "#/nowhere"}, 1) == [((), "its schema has an unresolvable $ref")]


def test_a_malformed_keyword_is_an_invalid_schema_not_a_type_error() -> None:
    [(path, message)] = schema_errors({"type": 5}, 1)
    assert path == ()
    assert message.startswith("its schema is invalid")


_KEYWORDS = st.sampled_from(
    ["type", "properties", "required", "items", "enum", "const", "pattern", "minimum", "x"]
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(_KEYWORDS, children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(schema=st.dictionaries(_KEYWORDS, _JSON, max_size=4), value=_JSON)
def test_any_recorded_schema_gives_issues_never_an_exception(schema: Any, value: Any) -> None:
    for path, message in schema_errors(schema, value):
        assert isinstance(path, tuple)
        assert isinstance(message, str)


def test_a_draft07_tuple_without_its_schema_keyword_is_read_as_draft07() -> None:
    """A client tool's responseSchema is zod's draft-07 export without `$schema`; its
    tuples (`items: [...]`) are no draft-2020-12 schema, yet the server accepts answers."""
    cases = json.loads((FIXTURES / "zod-draft-exports.json").read_text("utf-8"))["cases"]
    exported = next(case["draft_07"] for case in cases if case["name"] == "nestedTuple")
    schema = {key: value for key, value in exported.items() if key != "$schema"}
    assert schema_errors(schema, {"pair": [True, "a"]}) == []
    assert schema_errors(schema, {"pair": [True, 1]}) == [
        (("pair", 1), "Invalid input: expected string, received number")
    ]
    assert schema_errors(schema, {"pair": [True, "a", "b"]}) != []


def test_unions_use_zods_words_and_a_nullable_reports_its_inner_schema() -> None:
    """zod 4's own words for these (z.union → `Invalid input`; .nullable() is no union)."""
    schema = {
        "type": "object",
        "properties": {
            "pair": {"anyOf": [{"type": "array", "items": {"type": "number"}}, {"type": "null"}]},
            "window": {
                "anyOf": [
                    {"type": "string", "const": "now"},
                    {
                        "type": "object",
                        "properties": {"at": {"type": "string"}},
                        "required": ["at"],
                    },
                ]
            },
        },
        "required": ["pair", "window"],
    }
    assert schema_errors(schema, {"pair": None, "window": "now"}) == []
    assert schema_errors(schema, {"pair": [1, "b"], "window": {"at": 5}}) == [
        (("pair", 1), "Invalid input: expected number, received string"),
        (("window",), "Invalid input"),
    ]


DATETIME = {
    "type": "string",
    "format": "date-time",
    "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$",
}
"""`z.iso.datetime()`'s export (its pattern shortened): a format zod checks by pattern."""


def test_a_union_whose_only_option_failing_a_check_is_a_datetime_reports_it() -> None:
    """zod 4 reports the one option that failed only its checks, not `Invalid input`
    (tests/interop/test_schema_issues_interop.py holds these against real zod)."""
    schema = {
        "type": "object",
        "properties": {
            "window": {
                "anyOf": [
                    {"type": "object", "properties": {"at": DATETIME}, "required": ["at"]},
                    {"type": "string", "const": "now"},
                ]
            },
            "when": {"anyOf": [DATETIME, {"type": "number"}]},
        },
        "required": ["window"],
    }
    assert schema_errors(schema, {"window": {"at": "yesterday"}, "when": "soon"}) == [
        (("window", "at"), "Invalid ISO datetime"),
        (("when",), "Invalid ISO datetime"),
    ]
    # every option stopped at a wrong type or value, or a missing key: the union speaks
    assert schema_errors(schema, {"window": 5, "when": True}) == [
        (("window",), "Invalid input"),
        (("when",), "Invalid input"),
    ]
    assert schema_errors(schema, {}) == [(("window",), "Invalid input")]


def test_a_union_of_two_options_failing_only_checks_is_invalid_input() -> None:
    schema = {"anyOf": [DATETIME, {"type": "string", "minLength": 3}]}
    assert schema_errors(schema, "x") == [((), "Invalid input")]


def test_a_missing_nullable_key_is_worded_by_its_inner_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"at": {"anyOf": [DATETIME, {"type": "null"}]}},
        "required": ["at"],
    }
    assert schema_errors(schema, {}) == [
        (("at",), "Invalid input: expected string, received undefined")
    ]
    assert schema_errors(schema, {"at": "x"}) == [(("at",), "Invalid ISO datetime")]
