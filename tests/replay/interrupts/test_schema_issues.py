"""Schema violations come out worded as the TanStack server's zod words them."""

from __future__ import annotations

from replay.interrupts.schema_issues import schema_errors

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
