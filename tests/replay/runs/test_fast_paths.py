"""The hot-path shortcuts give exactly what the general code gives.

`replay --json` reuses recorded text only when it is the compact form, and the
transcript builder's shortcut for deltas produces the same runs and findings as
folding every event the general way.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json

from replay.runs.normalize import compact_json, compact_lines
from replay.runs.transcript import RunTranscript, TranscriptBuilder
from replay.wire.events import EndOfStream, RecordedEvent, decode_events
from replay.wire.problems import Location, Problem
from replay.wire.recording import Exchange
from replay.wire.sse import decode_chunks


def test_ndjson_lines_reuse_only_compact_recorded_text() -> None:
    texts = [
        '{"type":"RUN_STARTED","runId":"r","threadId":"t"}',
        '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a \\u00e9 b"}',
        '{"type": "RUN_FINISHED", "n": 1e2}',
    ]
    events = [RecordedEvent(Location("s"), from_json(text), None, text) for text in texts]
    assert compact_lines(events[:1]) == texts[0] + "\n"
    expected = "".join(compact_json(event.data) + "\n" for event in events)
    assert compact_lines(events) == expected
    assert '"delta":"a é b"' in expected
    assert '"n":100.0' in expected
    assert compact_lines([]) == ""


def _frame(event: dict[str, Any]) -> bytes:
    return b"data: " + compact_json(event).encode() + b"\n\n"


STREAM = b"".join(
    _frame(event)
    for event in [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "early", "delta": "x"},
        {"type": "RUN_STARTED", "runId": "r1", "threadId": "t"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "he"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "llo"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "ghost", "delta": "?"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": ["not", "a", "string"], "delta": "?"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "late"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": '{"a":'},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": 1},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "1}"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "nope", "delta": "1}"},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "more"},
        {"type": "RUN_FINISHED", "runId": "r1", "threadId": "t"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "after"},
    ]
)


class _Slow(TranscriptBuilder):
    """The builder with its shortcut off: every event held up as if a run were held."""

    def add(self, item: RecordedEvent | EndOfStream | Problem) -> list[RunTranscript | Problem]:
        if isinstance(item, RecordedEvent):
            # A copy that is not exactly a RecordedEvent skips the `type(...) is` shortcut.
            item = _Copy(item.location, item.data, item.event, item.text)
        return super().add(item)


class _Copy(RecordedEvent):
    __slots__ = ()


def _fold(builder: TranscriptBuilder) -> list[Any]:
    out: list[Any] = []
    out += builder.begin_exchange(Exchange("s", []))
    for item in decode_events("s", decode_chunks([STREAM])):
        out += builder.add(item)
    out += builder.finish()
    return [(x.rule, x.message, x.location) if isinstance(x, Problem) else _summary(x) for x in out]


def _summary(run: RunTranscript) -> Any:
    return (
        run.run_id,
        run.event_count,
        [(m.id, m.text, m.ended, m.location) for m in run.messages],
        [(c.id, c.arguments, c.ended, c.location) for c in run.tool_calls],
    )


def test_delta_shortcut_folds_like_the_general_path() -> None:
    fast = _fold(TranscriptBuilder())
    assert fast == _fold(_Slow())
    rules = [entry[0] for entry in fast if isinstance(entry[0], str)]
    assert rules.count("event-after-end") == 2
    assert "unknown-message-id" in rules
    assert "unknown-tool-call-id" in rules
    run = next(entry for entry in fast if entry[0] == "r1")
    assert run[2][0][1] == "hello"
    assert run[3][0][1] == '{"a":1}'
