"""A JSON Schema as a short indented outline a reviewer can read at a glance.

`responseSchema`s are deep JSON (an approval's is a `oneOf` of two objects, one of them
carrying the tool's whole input schema); the outline keeps what decides whether an
answer is accepted — alternatives, property names, which are optional, types,
constants and enums — and leaves the rest to the full descriptor below it.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 8
"""Deeper levels are summarised as `…`: a hostile schema cannot make the page explode."""
MAX_LINES = 200
"""Lines kept per schema; the whole schema is still in the folded descriptor."""
ALTERNATIVES = {"oneOf": "one of:", "anyOf": "any of:", "allOf": "all of:"}


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _type(schema: dict[str, Any]) -> str:
    """The head of one schema: its type and the constraints worth showing inline."""
    if "const" in schema:
        return f"= {_literal(schema['const'])}"
    enum = schema.get("enum")
    if isinstance(enum, list):
        return "one of " + ", ".join(_literal(value) for value in enum)
    kind = schema.get("type")
    if isinstance(kind, list):
        head = " | ".join(str(k) for k in kind)
    elif isinstance(kind, str):
        head = kind
    elif isinstance(schema.get("properties"), dict):
        head = "object"
    else:
        head = "any value"
    fmt = schema.get("format")
    if isinstance(fmt, str):
        head += f" ({fmt})"
    return head


def outline(schema: Any) -> list[str]:
    """The outline's lines, indented two spaces per level."""
    lines: list[str] = []
    _walk(schema, 0, "", lines)
    if len(lines) > MAX_LINES:
        lines = [*lines[: MAX_LINES - 1], "…"]
    return lines


def _walk(schema: Any, depth: int, label: str, lines: list[str]) -> None:
    pad = "  " * depth
    if len(lines) > MAX_LINES:
        return
    if schema is True or (isinstance(schema, dict) and not schema):
        lines.append(f"{pad}{label}any value")
        return
    if schema is False:
        lines.append(f"{pad}{label}nothing is accepted")
        return
    if not isinstance(schema, dict):
        lines.append(f"{pad}{label}{_literal(schema)}")
        return
    if depth >= MAX_DEPTH:
        lines.append(f"{pad}{label}…")
        return
    for key, title in ALTERNATIVES.items():
        options = schema.get(key)
        if isinstance(options, list) and options:
            lines.append(f"{pad}{label}{title}")
            for option in options:
                _walk(option, depth + 1, "- ", lines)
            return
    lines.append(f"{pad}{label}{_type(schema)}")
    properties = schema.get("properties")
    if isinstance(properties, dict):
        required = schema.get("required")
        # A hostile schema may list objects as required names: only strings count.
        needed = (
            {n for n in required if isinstance(n, str)} if isinstance(required, list) else set()
        )
        for name, value in properties.items():
            mark = "" if name in needed else "?"
            _walk(value, depth + 1, f"{name}{mark}: ", lines)
        if schema.get("additionalProperties") is False:
            lines.append(f"{pad}  (no other properties)")
    items = schema.get("items")
    if isinstance(items, dict):
        _walk(items, depth + 1, "items: ", lines)
