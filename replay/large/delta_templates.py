"""Recognise a stream's frames by templates learned from validated exemplars.

Most of a recording is text messages and tool calls (a start event, deltas, an end
event), all written by one serialiser:
`{"type":"TEXT_MESSAGE_CONTENT","messageId":"…","delta":"…","timestamp":…}` again and
again. Once one such event has been parsed, validated by ag_ui.core and found to be its
own compact JSON, its text becomes a template: the same bytes, except that the values of
fields whose schema accepts every string (or every integer in a wide range) become
patterns. A frame matching the template therefore parses to an object with the same keys
in the same order, the same values where the template is literal and a string (or such an
integer) elsewhere, so it is valid for the same reason the exemplar was; and since the
patterns only match the forms the compact serialiser writes (no `\\/`, no `\\u00e9`, no
leading zeros, no `-0`), it is its own compact JSON too. Which fields are free is read
from `replay.wire.event_schema_table` (ag_ui.core's core schema, as generated from it),
never written here, so learning templates imports neither ag_ui nor pydantic.

One regular expression then matches a whole stretch of one stream — its start event or
a delta, more deltas, maybe its end event; a back-reference ties their ids — and its
deltas are collected only when someone reads them (`replay.wire.delta_run`). A frame that
matches no template is simply parsed and validated the ordinary way, and may become the
exemplar of a new template: templates only save work, they never change a result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from pydantic_core import to_json

from replay.wire.delta_run import string_content
from replay.wire.event_schema_table import TABLE


@dataclass(frozen=True, slots=True)
class Family:
    """A streamed kind: its start, delta and end events and the key naming the stream."""

    start: str
    delta: str
    end: str
    id_key: str


FAMILIES: Final = (
    Family("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "messageId"),
    Family("TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "toolCallId"),
)
DELTA_ID_KEYS: Final = {family.delta: family.id_key for family in FAMILIES}
"""The delta events folded in bulk, and the key naming the stream each one extends."""
_FAMILY_OF: Final = {
    kind: family for family in FAMILIES for kind in (family.start, family.delta, family.end)
}
MAX_TRIES: Final = 8
"""Exemplars tried per event type before giving up on it (a template is kept per type,
so hostile input cannot grow the pattern)."""
WIDE_INT: Final = 10**15 - 1
"""The largest magnitude the integer pattern matches (at most 15 digits)."""

_PLAIN = rb'[^"\\\x00-\x1f]*+'
_ESCAPE = rb'\\(?:["\\bfnrt]|u00(?:0[0-7bef]|1[0-9a-f]))'
STRING: Final = b'"' + _PLAIN + b"(?:" + _ESCAPE + _PLAIN + b')*+"'
"""A JSON string exactly as the compact serialiser writes it (raw UTF-8 otherwise);
runs of plain characters are taken whole (one character set, no alternation).

Every repetition in these patterns is possessive (`*+`): what follows it can never be
what it stops at (a plain run stops at a quote or a backslash, a stretch's deltas at a
frame of another type), so giving characters back could never lead to a match, and the
engine keeps no state to give them back (a fifth of the matching time)."""
INTEGER: Final = rb"(?:0|-?[1-9][0-9]{0,14}+)"
_FREE_STR: Final = "str"
_FREE_INT: Final = "int"


class DeltaTemplates:
    """The templates one process has learned, compiled into one stretch pattern.

    Each event type of a family gets the template of the first exemplar that makes
    one. A stretch is a start event or a delta, then deltas, then maybe an end event,
    all of one stream: the start's template (or the first delta's) captures the
    stream id and the others must repeat it.
    """

    def __init__(self) -> None:
        self._exemplars: dict[str, dict[str, Any]] = {}
        self._tried: dict[str, int] = {}
        self._groups: dict[str | None, tuple[str, bool, int, int]] = {}
        """Alternative name → (delta kind, whether it opens with the start event, the
        numbers of its stream id's group and its end event's group)."""
        self._pattern: re.Pattern[bytes] | None = None
        self._heads: tuple[bytes, ...] = ()

    @property
    def complete(self) -> bool:
        """Whether every event type of every family has its template (or was given up)."""
        return all(
            kind in self._exemplars or self._tried.get(kind, 0) >= MAX_TRIES for kind in _FAMILY_OF
        )

    @property
    def heads(self) -> tuple[bytes, ...]:
        """What every stretch `match` finds starts with, literally (a cheap first test:
        a frame that starts with none of these starts no stretch)."""
        return self._heads

    @property
    def active(self) -> bool:
        """Whether any template has been learned yet."""
        return self._pattern is not None

    def match(self, piece: bytes, at: int) -> Stretch | None:
        """The stretch of one stream starting at byte `at` of `piece` (one-line `data:`
        frames); None when the frame there starts no stretch. Its deltas are not read
        (`replay.wire.delta_run.stretch_deltas` reads them from `piece[at:end]`): a
        checker never needs them."""
        pattern = self._pattern
        if pattern is None or not piece.startswith(self._heads, at):
            return None  # (the cheap test: what every alternative starts with, literally)
        match = pattern.match(piece, at)
        if match is None:
            return None
        kind, opened, id_group, end_group = self._groups[match.lastgroup]
        end = match.end()
        stream_id = match.group(id_group)
        return (
            end,
            piece.count(b"\n", at, end) >> 1,  # a frame: a text with no LF, and two LFs
            kind,
            string_content(stream_id),
            opened,
            match.start(end_group) >= 0,
        )

    def learn(self, data: dict[str, Any], text: bytes) -> None:
        """Take a start, delta or end event found valid and exactly its own compact JSON
        as the exemplar of its type, when its type has none yet."""
        kind = data.get("type")
        if not isinstance(kind, str):
            return
        family = _FAMILY_OF.get(kind)
        if family is None or kind in self._exemplars or self._tried.get(kind, 0) >= MAX_TRIES:
            return
        self._tried[kind] = self._tried.get(kind, 0) + 1
        probe = _frame_pattern(family, data, "probe", first=True)
        if probe is None or re.fullmatch(probe, text) is None:
            return
        self._exemplars[kind] = data
        self._compile()

    def _compile(self) -> None:
        alternatives: dict[str, tuple[str, bool]] = {}
        patterns: list[bytes] = []
        heads: list[bytes] = []
        for family in FAMILIES:
            delta = self._exemplars.get(family.delta)
            end = self._exemplars.get(family.end)
            for opened in (True, False):
                head = self._exemplars.get(family.start if opened else family.delta)
                if head is None:
                    continue
                name = f"{family.id_key}_{'start' if opened else 'delta'}"
                body = b"data: " + _frame_pattern_of(family, head, name, first=True) + b"\n\n"
                if delta is not None:
                    again = _frame_pattern_of(family, delta, name, first=False)
                    body += b"(?:data: " + again + b"\n\n)*+"
                closing = b"(?!)"  # matches nothing: no end event known yet
                if end is not None:
                    closing = (
                        b"data: " + _frame_pattern_of(family, end, name, first=False) + b"\n\n"
                    )
                body += b"(?P<" + name.encode() + b"_end>" + closing + b")?"
                patterns.append(b"(?P<" + name.encode() + b">" + body + b")")
                alternatives[name] = (family.delta, opened)
                heads.append(_literal_head(head))
        self._heads = tuple(heads)
        self._pattern = re.compile(b"|".join(patterns)) if patterns else None
        if self._pattern is not None:
            number = self._pattern.groupindex
            self._groups = {
                name: (kind, opened, number[name + "_id"], number[name + "_end"])
                for name, (kind, opened) in alternatives.items()
            }


Stretch = tuple[int, int, str, str, bool, bool]
"""(end byte, frame count, delta kind, stream id, opens with the start event, closes
with the end event)."""


def _frame_pattern(family: Family, data: dict[str, Any], name: str, *, first: bool) -> bytes | None:
    """The pattern of one frame's JSON: literal but for free values; the stream id is
    captured (`first`) or must repeat what was captured. None when not possible: the
    id (and a delta's `delta`) must be free strings, and no literal part may hold a
    `"delta":` key (the deltas are collected by that key)."""
    kind = data.get("type")
    assert isinstance(kind, str)
    parts: list[bytes] = []
    for key, value in data.items():
        free = _free(kind, key)
        head = re.escape(to_json(key)) + b":"
        if key == family.id_key:
            if free != _FREE_STR or type(value) is not str:
                return None
            if first:
                parts.append(head + b'"(?P<' + name.encode() + b"_id>" + STRING[1:-1] + b')"')
            else:
                parts.append(head + b'"(?P=' + name.encode() + b'_id)"')
        elif key == "delta" and kind == family.delta:
            if free != _FREE_STR or type(value) is not str:
                return None
            parts.append(head + STRING)
        elif free == _FREE_STR and type(value) is str and key != "delta":
            parts.append(head + STRING)
        elif free == _FREE_INT and type(value) is int:
            parts.append(head + INTEGER)
        else:
            literal = to_json(key) + b":" + to_json(value)
            if b'"delta":' in literal:
                return None
            parts.append(re.escape(literal))
    if family.id_key not in data or (kind == family.delta and "delta" not in data):
        return None
    return b"\\{" + b",".join(parts) + b"\\}"


def _literal_head(data: dict[str, Any]) -> bytes:
    """The bytes every frame an exemplar's template matches starts with: `data: {`, its
    first key, and that key's value when the template keeps it literal."""
    key, value = next(iter(data.items()))
    kind = data["type"]
    head = b"data: {" + to_json(key) + b":"
    family = _FAMILY_OF[kind]
    if key in (family.id_key, "delta") or _free(kind, key) is not None:
        return head
    return head + to_json(value)


def _frame_pattern_of(family: Family, data: dict[str, Any], name: str, *, first: bool) -> bytes:
    pattern = _frame_pattern(family, data, name, first=first)
    assert pattern is not None  # the exemplar was accepted with this very pattern
    return pattern


_FREE_CACHE: dict[tuple[str, str], str | None] = {}


def _free(kind: str, key: str) -> str | None:
    """Whether the schema of event `kind`'s field aliased `key` accepts every string
    (`str`), every integer of at most 15 digits (`int`), or neither (None)."""
    found = _FREE_CACHE.get((kind, key), "")
    if found == "":
        found = _FREE_CACHE[(kind, key)] = _schema_freedom(kind, key)
    return found


def _schema_freedom(kind: str, key: str) -> str | None:
    """Read from the table: a model the generator could decide (plain config, no
    validators), its field aliased `key`, a plain or nullable str without bounds or an
    int whose bounds are at most `WIDE_INT` away from zero."""
    union = TABLE["event"]
    if union is None or union[0] != "tagged" or union[1] != "type":
        return None
    model = union[2].get(kind)
    if model is None or model[0] != "model":
        return None
    field = TABLE["models"][model[1]]["fields"].get(key)
    node = None if field is None else field[0]
    if node is not None and node[0] == "nullable":
        node = node[1]
    if node is None:
        return None
    if node == ["str", None, None]:
        return _FREE_STR
    if node[0] == "int":
        ge, le, gt, lt = node[1:5]
        if gt is None and lt is None and (ge is None or ge <= -WIDE_INT):
            return _FREE_INT if le is None or le >= WIDE_INT else None
    return None
