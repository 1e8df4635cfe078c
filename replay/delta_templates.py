"""Recognise stretches of delta frames by templates learned from validated exemplars.

Most of a recording is text-message and tool-call deltas, all written by one serialiser:
`{"type":"TEXT_MESSAGE_CONTENT","messageId":"…","delta":"…","timestamp":…}` again and
again. Once one such event has been parsed, validated by ag_ui.core and found to be its
own compact JSON, its text becomes a template: the same bytes, except that the values of
fields whose schema accepts every string (or every integer in a wide range) become
patterns. A frame matching the template therefore parses to an object with the same keys
in the same order, the same values where the template is literal and a string (or such an
integer) elsewhere, so it is valid for the same reason the exemplar was; and since the
patterns only match the forms the compact serialiser writes (no `\\/`, no `\\u00e9`, no
leading zeros, no `-0`), it is its own compact JSON too. Which fields are free is read
from ag_ui.core's core schema, never written here.

One regular expression then matches a whole stretch of consecutive deltas of one stream
(a back-reference ties their ids), and one `findall` collects their deltas. A frame that
matches no template is simply parsed and validated the ordinary way, and may become the
exemplar of a new template: templates only save work, they never change a result.
"""

from __future__ import annotations

import re
from typing import Any, Final

from pydantic_core import from_json, to_json

from replay.events import EVENT_ADAPTER

DELTA_ID_KEYS: Final = {"TEXT_MESSAGE_CONTENT": "messageId", "TOOL_CALL_ARGS": "toolCallId"}
"""The delta events folded in bulk, and the key naming the stream each one extends."""
MAX_TEMPLATES: Final = 32
"""Templates one process keeps: hostile input cannot grow the pattern past this."""
WIDE_INT: Final = 10**15 - 1
"""The largest magnitude the integer pattern matches (at most 15 digits)."""

_PLAIN = rb'[^"\\\x00-\x1f]*'
_ESCAPE = rb'\\(?:["\\bfnrt]|u00(?:0[0-7bef]|1[0-9a-f]))'
STRING: Final = b'"' + _PLAIN + b"(?:" + _ESCAPE + _PLAIN + b')*"'
"""A JSON string exactly as the compact serialiser writes it (raw UTF-8 otherwise);
runs of plain characters are taken whole (one character set, no alternation)."""
INTEGER: Final = rb"(?:0|-?[1-9][0-9]{0,14})"
_DELTA: Final = re.compile(rb'"delta":"([^"\\]*(?:\\.[^"\\]*)*)"')
_FREE_STR: Final = "str"
_FREE_INT: Final = "int"
_HARMLESS_CONFIG: Final = frozenset(
    {"title", "extra_fields_behavior", "validate_by_alias", "validate_by_name"}
)
"""Model config keys known not to change which values a field accepts."""


class DeltaTemplates:
    """The templates one process has learned, compiled into one stretch pattern."""

    def __init__(self) -> None:
        self._shapes: dict[tuple[str, tuple[str, ...]], str] = {}
        """(event type, keys) → the name of its alternative in the pattern."""
        self._alternatives: list[bytes] = []
        self._kinds: dict[str, str] = {}
        self._pattern: re.Pattern[bytes] | None = None

    @property
    def active(self) -> bool:
        """Whether any template has been learned yet."""
        return self._pattern is not None

    def match(self, piece: bytes, at: int) -> tuple[int, int, str, str, str] | None:
        """The stretch of template-matching deltas of one stream starting at byte `at` of
        `piece` (one-line `data:` frames), as (end byte, frame count, kind, stream id,
        joined deltas); None when the frame there matches no template."""
        pattern = self._pattern
        match = pattern.match(piece, at) if pattern is not None else None
        if match is None:
            return None
        name = match.lastgroup
        assert name is not None
        end = match.end()
        deltas = _DELTA.findall(piece, at, end)  # one per frame
        raw_id = match.group(name + "_id")
        return end, len(deltas), self._kinds[name], _decoded(raw_id), _decoded(b"".join(deltas))

    def learn(self, data: dict[str, Any], text: bytes) -> None:
        """Make a template of a delta event found valid and exactly its own compact JSON."""
        kind = data.get("type")
        if kind not in DELTA_ID_KEYS or len(self._alternatives) >= MAX_TEMPLATES:
            return
        shape = (kind, tuple(data))
        if shape in self._shapes:
            return
        name = f"t{len(self._alternatives)}"
        self._shapes[shape] = name
        first = _frame_pattern(kind, data, name, capture=True)
        again = _frame_pattern(kind, data, name, capture=False)
        if first is None or again is None or re.fullmatch(first, text) is None:
            return  # no template for this shape (remembered: not tried again)
        self._kinds[name] = kind
        self._alternatives.append(
            b"(?P<" + name.encode() + b">data: " + first + b"\n\n(?:data: " + again + b"\n\n)*)"
        )
        self._pattern = re.compile(b"|".join(self._alternatives))


def _decoded(raw: bytes) -> str:
    """The value of JSON string content (escapes resolved)."""
    if b"\\" in raw:
        value = from_json(b'"' + raw + b'"')
        assert isinstance(value, str)
        return value
    return raw.decode()


def _frame_pattern(kind: str, data: dict[str, Any], name: str, *, capture: bool) -> bytes | None:
    """The pattern of one frame's JSON: literal but for free values; the stream id is
    captured (first frame) or must repeat (later frames). None when not possible."""
    id_key = DELTA_ID_KEYS[kind]
    parts: list[bytes] = []
    for key, value in data.items():
        free = _free(kind, key)
        head = re.escape(to_json(key)) + b":"
        if key == id_key or key == "delta":
            if free != _FREE_STR or type(value) is not str:
                return None
            if key == "delta":
                parts.append(head + STRING)
            elif capture:
                parts.append(head + b'"(?P<' + name.encode() + b"_id>" + STRING[1:-1] + b')"')
            else:
                parts.append(head + b'"(?P=' + name.encode() + b'_id)"')
        elif free == _FREE_STR and type(value) is str:
            parts.append(head + STRING)
        elif free == _FREE_INT and type(value) is int:
            parts.append(head + INTEGER)
        else:
            literal = to_json(key) + b":" + to_json(value)
            if b'"delta":' in literal:
                return None  # `findall` must see exactly one delta per frame
            parts.append(re.escape(literal))
    return b"\\{" + b",".join(parts) + b"\\}"


_FREE_CACHE: dict[tuple[str, str], str | None] = {}


def _free(kind: str, key: str) -> str | None:
    """Whether the schema of event `kind`'s field aliased `key` accepts every string
    (`str`), every integer of at most 15 digits (`int`), or neither (None)."""
    found = _FREE_CACHE.get((kind, key), "")
    if found == "":
        found = _FREE_CACHE[(kind, key)] = _schema_freedom(kind, key)
    return found


def _schema_freedom(kind: str, key: str) -> str | None:
    union = EVENT_ADAPTER.core_schema
    if union.get("type") != "tagged-union" or union.get("discriminator") != "type":
        return None
    if union.get("strict"):
        return None
    model: Any = union["choices"].get(kind)
    if not isinstance(model, dict) or model.get("type") != "model" or "post_init" in model:
        return None
    if not set(model.get("config", {})) <= _HARMLESS_CONFIG or model.get("strict"):
        return None
    fields_schema = model.get("schema", {})
    if fields_schema.get("type") != "model-fields" or fields_schema.get("strict"):
        return None
    for field in fields_schema.get("fields", {}).values():
        if field.get("validation_alias") == key:
            return _leaf_freedom(field.get("schema", {}))
    return None


def _leaf_freedom(schema: dict[str, Any]) -> str | None:
    if schema.get("type") == "default" and set(schema) <= {"type", "schema", "default"}:
        schema = schema["schema"]
    if schema.get("type") == "nullable" and set(schema) <= {"type", "schema"}:
        schema = schema["schema"]
    extra = set(schema) - {"type", "metadata"}
    if schema.get("type") == "str" and not extra:
        return _FREE_STR
    if schema.get("type") == "int" and extra <= {"ge", "le"}:
        low, high = schema.get("ge"), schema.get("le")
        if (low is None or low <= -WIDE_INT) and (high is None or high >= WIDE_INT):
            return _FREE_INT
    return None
