"""JSON Schema violations worded the way the TanStack server's zod validation words them.

The server answers an invalid resume payload with zod's messages
(`Invalid input: expected string, received undefined`); agui validates with jsonschema
and rewords the common issues to match, so `agui resume` refuses locally with the very
message the server would stream.
"""

from __future__ import annotations

from typing import Any

from replay.wire.canonical import canonical_json


def schema_errors(schema: Any, value: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """Every JSON Schema violation of `value`, as (path, message), worded like zod.

    The server validates with zod, so agui words the common issues the same way
    (`Invalid input: expected string, received undefined`), points a missing property
    at the property itself, and lists issues in the schema's property order.
    """
    if not isinstance(schema, dict) or not schema:
        return []
    import jsonschema
    import referencing.exceptions

    validator_class = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator
    )
    try:
        # A recorded schema is untrusted: prove it a schema before applying it, since
        # jsonschema applies a malformed keyword (`"type": 5`) by raising TypeError.
        try:
            validator_class.check_schema(schema)
        except (jsonschema.exceptions.SchemaError, TypeError, ValueError, RecursionError):
            # TanStack sends a client tool's (and a generic item's) responseSchema as
            # zod's draft-07 export with `$schema` removed: a tuple there (`items: [...]`)
            # is no draft-2020-12 schema, and read as one every answer would be refused.
            if "$schema" in schema or not _valid(jsonschema.Draft7Validator, schema):
                raise
            validator_class = jsonschema.Draft7Validator
        validator = validator_class(schema)
        found = list(validator.iter_errors(value))
    except jsonschema.exceptions.SchemaError as error:
        return [((), f"its schema is invalid ({error.message})")]
    except referencing.exceptions.Unresolvable:
        return [((), "its schema has an unresolvable $ref")]
    except (TypeError, ValueError, RecursionError) as error:
        # What check_schema cannot rule out (a pattern Python's re rejects, say).
        return [((), f"its schema cannot be applied ({type(error).__name__})")]
    issues: list[tuple[tuple[str | int, ...], str]] = []
    for violation in found:
        issues.extend(_zod_issues(violation))
    order = list(schema.get("properties") or {})

    def position(issue: tuple[tuple[str | int, ...], str]) -> int:
        head = issue[0][0] if issue[0] else None
        return order.index(head) if head in order else len(order)

    return sorted(issues, key=position)


def _valid(validator_class: Any, schema: dict[str, Any]) -> bool:
    """Whether `schema` is a schema of `validator_class`'s draft."""
    import jsonschema

    try:
        validator_class.check_schema(schema)
    except (jsonschema.exceptions.SchemaError, TypeError, ValueError, RecursionError):
        return False
    return True


_JS_TYPES = {"integer": "int"}


def _js_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _expected_type(schema: Any) -> str:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(kind, list) and kind:
        kind = kind[0]
    return _JS_TYPES.get(kind, kind) if isinstance(kind, str) else "value"


Issue = tuple[tuple[str | int, ...], str]

CHECK_KEYWORDS = frozenset(
    {
        "pattern",
        "format",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
    }
)
"""Keywords zod exports from a check (`.min(3)`, `z.iso.datetime()`'s pattern): a failed
check lets zod go on (`continue`), unlike a wrong type, value or missing key, and that
decides what a union reports (`_union_issues`)."""

FORMAT_WORDS = {
    "date-time": "ISO datetime",
    "date": "ISO date",
    "email": "email address",
    "uuid": "UUID",
}
"""zod's name for a string format it exports as `format` + `pattern`: a value the
pattern refuses is `Invalid ISO datetime` (zod 4.6.7's words, compared with zod's own in
tests/interop/test_schema_issues_interop.py)."""


def _zod_issues(error: Any) -> list[Issue]:
    return _issues(error)[0]


def _issues(error: Any) -> tuple[list[Issue], bool]:
    """zod's issues for one violation, and whether they stop zod (`aborted`): every one
    does but a failed check, and a union reporting only such (`CHECK_KEYWORDS`)."""
    path = tuple(error.absolute_path)
    if error.validator == "type":
        expected = _expected_type({"type": error.validator_value})
        message = f"Invalid input: expected {expected}, received {_js_type(error.instance)}"
        return [(path, message)], True
    if error.validator == "required" and isinstance(error.instance, dict):
        properties = error.schema.get("properties") or {}
        return [
            ((*path, name), _missing(properties.get(name)))
            for name in error.validator_value
            if name not in error.instance and f"{name!r} is a required property" == error.message
        ], True
    if error.validator == "const":
        return [(path, f"Invalid input: expected {canonical_json(error.validator_value)}")], True
    if error.validator == "enum":
        options = "|".join(canonical_json(option) for option in error.validator_value)
        return [(path, f"Invalid option: expected one of {options}")], True
    if error.validator in ("anyOf", "oneOf") and isinstance(error.validator_value, list):
        return _union_issues(error, path)
    if error.validator == "pattern" and isinstance(error.schema, dict):
        given = error.schema.get("format")
        named = FORMAT_WORDS.get(given) if isinstance(given, str) else None
        if named is not None:
            return [(path, f"Invalid {named}")], False
    return [(path, str(error.message))], error.validator not in CHECK_KEYWORDS


def _missing(schema: Any) -> str:
    """zod's words for a missing key: its schema found `undefined`. A union refuses it as
    a union does (`Invalid input`); `.nullable()` is no union: its inner schema speaks."""
    branches = schema.get("anyOf", schema.get("oneOf")) if isinstance(schema, dict) else None
    if isinstance(branches, list):
        inner = [branch for branch in branches if branch != {"type": "null"}]
        if len(branches) == 2 and len(inner) == 1:
            return _missing(inner[0])
        return "Invalid input"
    return f"Invalid input: expected {_expected_type(schema)}, received undefined"


def _union_issues(error: Any, path: tuple[str | int, ...]) -> tuple[list[Issue], bool]:
    """zod's words for a union: `.nullable()` (exported as `anyOf [X, {type: null}]`) is no
    union in zod, which reports what X found. In any other union, zod reports the issues of
    the one option that failed only its checks (a datetime's format, say) when every other
    option stopped at a wrong type or value; else just `Invalid input`."""
    branches = error.validator_value
    by_branch: dict[int, list[Any]] = {}
    for sub in error.context:
        head = sub.relative_schema_path[0] if sub.relative_schema_path else None
        if isinstance(head, int):
            by_branch.setdefault(head, []).append(sub)
    if len(branches) == 2 and error.instance is not None:
        nulls = [i for i, branch in enumerate(branches) if branch == {"type": "null"}]
        if len(nulls) == 1:
            found, aborted = _branch_issues(by_branch.get(1 - nulls[0], []))
            if found:
                return found, aborted
    # (every option failed, each with an error; a oneOf matching twice has an option
    # without one: zod has no such union, and it stays `Invalid input`)
    if len(by_branch) == len(branches):
        results = [_branch_issues(by_branch[i]) for i in range(len(branches))]
        going_on = [found for found, aborted in results if not aborted]
        if len(going_on) == 1 and going_on[0]:
            return going_on[0], False
    return [(path, "Invalid input")], True


def _branch_issues(errors: list[Any]) -> tuple[list[Issue], bool]:
    """One option's issues, and whether any of them stopped zod."""
    found: list[Issue] = []
    aborted = False
    for sub in errors:
        issues, stops = _issues(sub)
        found.extend(issues)
        aborted = aborted or stops
    return found, aborted
