"""Copy a piece's text message and tool call stretches through the translator unread.

Most of a legacy recording needs no translation: text messages and tool calls go out
byte for byte, and the translator only notes what they said (for the snapshot of a
later pause). `verbatim_chunks` cuts a piece into the bytes the translator must read and
the stretches of one stream's events that the delta templates
(`replay.large.delta_templates`) recognise; a stretch met while the translator holds
nothing back is told to it in bulk (`Translator.pass_through`: the start event, the
joined deltas) and copied as a `Verbatim` chunk, never decoded, parsed or re-framed.
A stretch met while it holds a legacy finish goes the ordinary way, and so does every
piece that is not valid UTF-8 (the decoder would replace bytes there).

Templates here learn only from events that are valid, their own compact JSON and free
of `null` fields: an event matching one is then a text message or tool call event that
the translator passes through unchanged (`translate_piece(templates=None)` is the plain
twin, and the tests compare the two on random streams).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pydantic_core import from_json

from replay.large.delta_templates import DELTA_ID_KEYS, FAMILIES, MAX_TRIES, DeltaTemplates
from replay.translate.stream_rewriter import Verbatim
from replay.translate.translation import Translator
from replay.wire.delta_run import stretch_deltas
from replay.wire.events import new_location, validated
from replay.wire.problems import Location
from replay.wire.stream_position import Position

_SEPARATOR = b"\n\ndata: "
_FAMILY_HEADS = tuple(
    b'data: {"type":"' + kind.encode() + b'"'
    for family in FAMILIES
    for kind in (family.start, family.delta, family.end)
)
"""How a frame of a streamed kind starts when written compactly, type first (others are
never exemplars: a template's first key is its type)."""
_NEXT_FAMILY_FRAME = re.compile(b"\n\n(?:" + b"|".join(map(re.escape, _FAMILY_HEADS)) + b")")


class StretchTemplates:
    """The delta templates one process uses to translate, and what it offered them.

    An event is offered only when valid, compact and free of `null` fields, and at most
    `MAX_TRIES` events of a type are parsed to be offered, whether they qualified or not:
    a file whose events never make a template costs nothing more than the plain path.
    """

    __slots__ = ("_offered", "templates")

    def __init__(self) -> None:
        self.templates = DeltaTemplates()
        self._offered: dict[bytes, int] = {}

    def offer(self, text: bytes) -> None:
        """Offer one frame's text, a compact event of a streamed kind (type first)."""
        kind = text[9 : text.find(b'"', 9)]
        tries = self._offered.get(kind, 0)
        if tries >= MAX_TRIES:
            return
        self._offered[kind] = tries + 1
        _learn(self.templates, text)


def verbatim_chunks(
    source: str,
    piece: bytes,
    start: Position,
    translator: Translator,
    learned: StretchTemplates,
) -> Iterator[bytes | Verbatim]:
    """The piece (one-line `data:` frames, LF only, valid UTF-8) as chunks for
    `translate_stream`: plain bytes, and `Verbatim` stretches already told to
    `translator`. Lazily: each stretch is decided when the chunks before it are read."""
    templates = learned.templates
    learning = not templates.complete
    size = len(piece)
    at = plain_from = 0
    frame = 0
    while at < size:
        if not piece.startswith(_FAMILY_HEADS, at):
            # The next frame a stretch can start at (a template's first key is `type`):
            # the frames before it are counted, not visited.
            found_at = _NEXT_FAMILY_FRAME.search(piece, at)
            skip_to = found_at.start() + 2 if found_at is not None else size
            frame += piece.count(b"\n\n", at, skip_to)
            at = skip_to
            continue
        found = templates.match(piece, at)
        if found is None:
            end = piece.index(b"\n\n", at) + 2
            if learning:
                learned.offer(piece[at + 6 : end - 2])
                learning = not templates.complete
            at, frame = end, frame + 1
            continue
        end, count, kind, stream_id, opened, closed = found
        if plain_from < at:
            yield piece[plain_from:at]  # read and fed before this generator goes on
        if translator.holding:
            plain_from = at  # the stretch goes with the bytes after it, the ordinary way
        else:
            translator.pass_through(
                _said(piece, at, end, kind, stream_id, opened, closed, count - opened - closed),
                _last_location(source, piece, start, at, end, frame, count),
            )
            yield Verbatim(piece[at:end], count)
            plain_from = end
        at, frame = end, frame + count
    if plain_from < size:
        yield piece[plain_from:]


def _said(
    piece: bytes,
    at: int,
    end: int,
    kind: str,
    stream_id: str,
    opened: bool,
    closed: bool,
    count: int,
) -> list[dict[str, Any]]:
    """What the stretch `piece[at:end]` says, as `track` reads it: its start event, then
    its `count` deltas joined, then a tool call's end event (its `input` is the call's
    final arguments; a text message's end event says nothing `track` keeps)."""
    said: list[dict[str, Any]] = []
    if opened:
        said.append(from_json(piece[at + 6 : piece.index(b"\n", at)]))
    if count:
        deltas = stretch_deltas(piece, at, end)
        said.append({"type": kind, DELTA_ID_KEYS[kind]: stream_id, "delta": deltas})
    if closed and kind == "TOOL_CALL_ARGS":
        last_at = piece.rfind(_SEPARATOR, at, end - 2) + 2 if opened or count else at
        said.append(from_json(piece[last_at + 6 : end - 2]))
    return said


def _last_location(
    source: str, piece: bytes, start: Position, at: int, end: int, frame: int, count: int
) -> Location:
    """Where the decoder would place the stretch's last event."""
    last_at = piece.rfind(_SEPARATOR, at, end - 2) + 2 if count > 1 else at
    last = frame + count - 1
    return new_location(
        source, start.line + 1 + 2 * last, start.offset + last_at, start.index + last
    )


def _learn(templates: DeltaTemplates, text: bytes) -> None:
    """Offer an event as an exemplar when it is valid, compact and has no `null` field."""
    try:
        # (a `NaN`/`Infinity` literal is no JSON: an exemplar holding one would copy
        # every frame like it through unread, where the plain path reports it)
        data = from_json(text, allow_inf_nan=False)
    except ValueError:
        return
    if type(data) is not dict or None in data.values():
        return
    if validated([data]) is None:  # (proven from the table, or pydantic's answer)
        return
    templates.learn(data, text)  # (it checks the text is the event's compact JSON)
