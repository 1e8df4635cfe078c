"""Copying recognised stretches through unread translates exactly like reading them.

`translate_piece` with templates (`replay.large.translate_stretches`) is compared with its
plain twin (no templates: every frame decoded and fed) on random legacy streams: text
messages and tool calls with awkward ids and deltas (escapes, non-ASCII, a `null`
parent), legacy finishes and approvals around them, retired `THINKING_*` events, runs
left open, invalid UTF-8 and non-compact frames. Output bytes, notices (with their
locations), `changed` and the reasoning state must all be equal.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import replay.large.translate_stretches
from replay.large.delta_templates import MAX_TRIES
from replay.large.translate_pieces import translate_piece
from replay.large.translate_stretches import StretchTemplates, verbatim_chunks
from replay.translate.stream_rewriter import Verbatim
from replay.translate.translation import Translator, translate_stream
from replay.wire.stream_position import Position

IDS = st.sampled_from(["m1", "m2", "c1", "c2", "é", 'q"x', ""])
NOT_JSON = [math.nan, math.inf, -math.inf]
"""Values `json.dumps` writes as `NaN`, `Infinity`, `-Infinity`."""
CHARACTERS = ["a", " ", "é", '"', "\\", "\n", "/", "\u2028"]
TEXT = st.text(alphabet=st.sampled_from(CHARACTERS), max_size=6)


def _frame(event: dict[str, Any], compact: bool = True) -> bytes:
    separators = (",", ":") if compact else (", ", ": ")
    text = json.dumps(event, separators=separators, ensure_ascii=False)
    return b"data: " + text.encode() + b"\n\n"


@st.composite
def _event(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            [
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_END",
                "RUN_STARTED",
                "RUN_FINISHED",
                "APPROVAL",
                "THINKING_START",
                "THINKING_END",
            ]
        )
    )
    if kind.startswith("TEXT_MESSAGE"):
        event: dict[str, Any] = {"type": kind, "messageId": draw(IDS)}
        if kind == "TEXT_MESSAGE_START":
            event["role"] = draw(st.sampled_from(["assistant", "user"]))
        if kind == "TEXT_MESSAGE_CONTENT":
            event["delta"] = draw(TEXT)
    elif kind.startswith("TOOL_CALL"):
        event = {"type": kind, "toolCallId": draw(IDS)}
        if kind == "TOOL_CALL_START":
            event["toolCallName"] = draw(st.sampled_from(["transfer", "pick"]))
            event["parentMessageId"] = draw(st.sampled_from(["m1", None]))
        if kind == "TOOL_CALL_ARGS":
            event["delta"] = draw(st.sampled_from(['{"a":', "1}", "{}", '"é"']))
        if kind == "TOOL_CALL_END" and draw(st.booleans()):
            # 0.42.0's raw chunk: the call's final arguments, which the snapshot keeps.
            event["input"] = draw(st.sampled_from([{"a": 1}, {}, 2.5, [1e-7], {"b": "é"}]))
    elif kind == "RUN_STARTED":
        event = {"type": kind, "runId": draw(st.sampled_from(["r1", "r2"])), "threadId": "t"}
    elif kind == "RUN_FINISHED":
        event = {"type": kind, "runId": "r1", "threadId": "t"}
        if draw(st.booleans()):
            event["finishReason"] = "tool_calls"
    elif kind == "APPROVAL":
        call = draw(IDS)
        event = {
            "type": "CUSTOM",
            "name": "approval-requested",
            "value": {"toolCallId": call, "toolName": "transfer", "input": {}},
        }
    else:
        event = {"type": kind}
    if draw(st.integers(0, 9)) == 0:
        event["timestamp"] = draw(st.integers(0, 10**13))
    if draw(st.integers(0, 7)) == 0:
        # Not JSON (json.dumps writes the literal): refused as `{bad` is, on both paths.
        event["rawEvent"] = draw(st.sampled_from(NOT_JSON))
    return event


def _piece(events: list[dict[str, Any]], loose: list[bool], broken: int | None) -> bytes:
    frames = [_frame(event, not flag) for event, flag in zip(events, loose, strict=False)]
    if broken is not None and frames:
        at = broken % len(frames)
        frames[at] = frames[at].replace(b'"', b'"\xff', 1)  # invalid UTF-8
    return b"".join(frames)


def _both(piece: bytes, templates: StretchTemplates, start: Position) -> None:
    pattern = Translator()
    plain = translate_piece("x.sse", piece, start, pattern, (None, None))
    fast = translate_piece("x.sse", piece, start, pattern, (None, None), templates)
    assert fast == plain


WARM_UP = b"".join(
    _frame(event)
    for event in [
        {"type": "RUN_STARTED", "runId": "w", "threadId": "t"},
        {"type": "TEXT_MESSAGE_START", "messageId": "w", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "w", "delta": "hi"},
        {"type": "TEXT_MESSAGE_END", "messageId": "w"},
        {"type": "TOOL_CALL_START", "toolCallId": "w", "toolCallName": "f", "parentMessageId": "w"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "w", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "w"},
        {"type": "RUN_FINISHED", "runId": "w", "threadId": "t"},
    ]
)
"""Compact, valid, null-free events of every streamed kind: the templates learn them."""


@given(
    events=st.lists(_event(), min_size=1, max_size=40),
    loose=st.lists(st.booleans(), max_size=40),
    broken=st.none() | st.integers(0, 40),
    warm=st.booleans(),
    start=st.sampled_from([Position(), Position(1000, 40, 20)]),
)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_copying_stretches_through_equals_reading_them(
    events: list[dict[str, Any]],
    loose: list[bool],
    broken: int | None,
    warm: bool,
    start: Position,
) -> None:
    templates = StretchTemplates()
    if warm:
        _both(WARM_UP, templates, Position())
    piece = _piece(events, loose + [False] * len(events), broken)
    _both(piece, templates, start)
    _both(piece, templates, start)  # again, with whatever was learned the first time


def test_stretches_are_copied_unread_and_told_to_the_translator() -> None:
    templates = StretchTemplates()
    _both(WARM_UP, templates, Position())
    assert templates.templates.complete
    translator = Translator()
    chunks = list(verbatim_chunks("x.sse", WARM_UP * 3, Position(), translator, templates))
    copied = [chunk for chunk in chunks if isinstance(chunk, Verbatim)]
    # Per run: the text message (3 frames) and the tool call (3 frames).
    assert [chunk.frames for chunk in copied] == [3, 3] * 3
    assert b"".join(c if isinstance(c, bytes) else c.data for c in chunks) == WARM_UP * 3


def test_a_stretch_after_a_held_legacy_finish_is_read_the_ordinary_way() -> None:
    templates = StretchTemplates()
    _both(WARM_UP, templates, Position())
    held = _frame({"type": "RUN_FINISHED", "runId": "w", "threadId": "t"})
    text = _frame({"type": "TEXT_MESSAGE_START", "messageId": "late", "role": "assistant"})
    piece = WARM_UP[: WARM_UP.index(b'data: {"type":"RUN_FINISHED')] + held + text
    seen: list[bytes | Verbatim] = []

    def recorded(translator: Translator) -> Iterator[bytes | Verbatim]:
        for chunk in verbatim_chunks("x.sse", piece, Position(), translator, templates):
            seen.append(chunk)
            yield chunk

    translator = Translator()
    out = list(translate_stream(recorded(translator), source="x.sse", translator=translator))
    assert [chunk.frames for chunk in seen if isinstance(chunk, Verbatim)] == [3, 3]
    assert seen[-2:] == [held, text]  # read: the late message releases the held finish
    assert b"".join(item for item in out if isinstance(item, bytes)) == piece
    _both(piece, templates, Position())


def test_a_pause_without_a_finish_is_anchored_after_a_copied_stretch() -> None:
    # No RUN_FINISHED: the native terminal goes after the run's last event, which is the
    # last frame of a copied stretch, so its notices carry that frame's location.
    templates = StretchTemplates()
    _both(WARM_UP, templates, Position())
    approval = {
        "type": "CUSTOM",
        "name": "approval-requested",
        "value": {"toolCallId": "w", "toolName": "f", "input": {}},
    }
    piece = WARM_UP[: WARM_UP.index(b'data: {"type":"RUN_FINISHED')] + _frame(approval)
    _both(piece, templates, Position(5000, 80, 40))


def test_events_that_never_make_a_template_are_offered_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A `null` parent: never an exemplar (the translator rewrites such events), so the
    # templates never complete; parsing each one to offer it would double its cost.
    offered: list[bytes] = []
    learn = replay.large.translate_stretches._learn

    def counting(templates: Any, text: bytes) -> None:
        offered.append(text)
        learn(templates, text)

    monkeypatch.setattr(replay.large.translate_stretches, "_learn", counting)
    call = {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}
    piece = b"".join(_frame({**call, "parentMessageId": None}) for _ in range(50))
    templates = StretchTemplates()
    _both(piece, templates, Position())
    _both(piece, templates, Position())
    assert len(offered) == MAX_TRIES
    assert not templates.templates.active


def test_a_copied_tool_call_keeps_the_arguments_its_end_event_gives() -> None:
    # 0.42.0's TOOL_CALL_END carries the parsed `input`; the snapshot of a later pause
    # holds `JSON.stringify(input)`, not the streamed text, so a copied stretch must tell
    # the translator its end event too.
    warm = WARM_UP.replace(
        b'{"type":"TOOL_CALL_END","toolCallId":"w"}',
        b'{"type":"TOOL_CALL_END","toolCallId":"w","input":{"n":1e-7}}',
    )
    templates = StretchTemplates()
    _both(warm, templates, Position())
    assert templates.templates.complete
    approval = {
        "type": "CUSTOM",
        "name": "approval-requested",
        "value": {"toolCallId": "w", "toolName": "f", "input": {"n": 1e-7}},
    }
    piece = warm[: warm.index(b'data: {"type":"RUN_FINISHED')] + _frame(approval)
    _both(piece, templates, Position())
    out = translate_piece("x.sse", piece, Position(), Translator(), (None, None), templates)
    assert b'"arguments":"{\\"n\\":1e-7}"' in b"".join(i for i in out.items if isinstance(i, bytes))
