"""Prove a parsed event valid without pydantic, from the generated schema table.

`proven(data)` is True only when pydantic's `TypeAdapter(Event)` certainly accepts
`data`; False means "cannot decide" (maybe invalid, maybe valid in a way not proven
here), and the caller asks pydantic (`replay.wire.event_models`). It only ever proves
exact JSON types against `ag_ui.core`'s own schema (`replay.wire.event_schema_table`,
generated from it), so a small recording's check needs neither `ag_ui` nor pydantic
imported, while pydantic stays the authority on every event this cannot prove.
tests/replay/wire/test_event_proof.py holds it to pydantic's answer on random events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from replay.wire.event_json import has_utf8_form
from replay.wire.event_schema_table import TABLE

KNOWN_EVENT_TYPES: Final = frozenset(TABLE["types"])
"""`ag_ui.core.EventType`'s values, as generated from it."""
_MODELS: Final[dict[str, Any]] = TABLE["models"]
_EVENT: Final = TABLE["event"]
_EXTRA_ACCEPTED: Final = ("allow", "ignore")


def proven(data: Any) -> bool:
    """Whether `data` is certainly a valid AG-UI event (False: cannot decide)."""
    return _EVENT is not None and _check(_EVENT, data)


def _check(node: Any, value: Any) -> bool:
    if node is None:
        return False
    check: Callable[[list[Any], Any], bool] = _CHECKS[node[0]]
    return check(node, value)


def _any(node: list[Any], value: Any) -> bool:
    return True


def _bool(node: list[Any], value: Any) -> bool:
    return type(value) is bool


def _str(node: list[Any], value: Any) -> bool:
    return type(value) is str and _within(len(value), node[1], node[2])


def _int(node: list[Any], value: Any) -> bool:
    if type(value) is not int:
        return False
    ge, le, gt, lt = node[1:5]
    return (
        (ge is None or value >= ge)
        and (le is None or value <= le)
        and (gt is None or value > gt)
        and (lt is None or value < lt)
    )


def _literal(node: list[Any], value: Any) -> bool:
    return type(value) is str and value in node[1]


def _nullable(node: list[Any], value: Any) -> bool:
    return value is None or _check(node[1], value)


def _list(node: list[Any], value: Any) -> bool:
    if type(value) is not list or not _within(len(value), node[2], node[3]):
        return False
    items = node[1]
    return items[0] == "any" or all(_check(items, item) for item in value)


def _dict(node: list[Any], value: Any) -> bool:
    if type(value) is not dict or not _within(len(value), node[3], node[4]):
        return False
    keys, values = node[1], node[2]
    return (keys[0] == "any" or all(_check(keys, key) for key in value)) and (
        values[0] == "any" or all(_check(values, item) for item in value.values())
    )


def _union(node: list[Any], value: Any) -> bool:
    # Every kind of pydantic union accepts a value some choice accepts.
    return any(_check(choice, value) for choice in node[1])


def _tagged(node: list[Any], value: Any) -> bool:
    if type(value) is not dict:
        return False
    tag = value.get(node[1])
    return type(tag) is str and _check(node[2].get(tag), value)


def _model(node: list[Any], value: Any) -> bool:
    if type(value) is not dict:
        return False
    model = _MODELS[node[1]]
    fields: dict[str, Any] = model["fields"]
    names: list[str] = model["names"]
    extra_accepted = model["extra"] in _EXTRA_ACCEPTED
    for key, item in value.items():
        field = fields.get(key) if type(key) is str else None
        if field is None:
            # A field's Python name may also be accepted in place of its alias; which
            # one wins when both are given is pydantic's to say. An extra key must be
            # valid Unicode (no lone surrogate): pydantic copies it as a Rust string.
            if not extra_accepted or type(key) is not str or key in names or not has_utf8_form(key):
                return False
        elif not _check(field[0], item):
            return False
    return all(key in value for key, (_node, required) in fields.items() if required)


def _within(length: int, low: int | None, high: int | None) -> bool:
    return (low is None or length >= low) and (high is None or length <= high)


_CHECKS: Final[dict[str, Callable[[list[Any], Any], bool]]] = {
    "any": _any,
    "bool": _bool,
    "str": _str,
    "int": _int,
    "literal": _literal,
    "nullable": _nullable,
    "list": _list,
    "dict": _dict,
    "union": _union,
    "tagged": _tagged,
    "model": _model,
}
