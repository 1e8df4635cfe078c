"""Folding a stretch whole gives the runs that folding its events one by one gives.

`TranscriptBuilder.add_run` takes a `DeltaRun` in one step and leaves the stream's
start event unread (`replay.runs.streams.opened_later`); a run's messages and tool
calls are assembled only when read (`RunStreams`). Each example draws runs of text
messages and tool calls (starts, deltas, ends, strays and repeats among them, names
and parents of any type), folds them both ways and compares every run and finding.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import to_json

from replay.runs.check_loop import CheckLoop
from replay.runs.checks import Checker
from replay.runs.streams import Stream, opened_later
from replay.runs.transcript import RunStreams, RunTranscript, TranscriptBuilder
from replay.wire.delta_run import FRAME_OVERHEAD, DeltaRun
from replay.wire.events import RecordedEvent
from replay.wire.problems import Location, Problem
from replay.wire.recording import Exchange

FAMILIES = {
    "TEXT_MESSAGE_CONTENT": ("messageId", "TEXT_MESSAGE_START", "TEXT_MESSAGE_END"),
    "TOOL_CALL_ARGS": ("toolCallId", "TOOL_CALL_START", "TOOL_CALL_END"),
}
ANY_VALUE = st.one_of(st.none(), st.integers(), st.text(max_size=4), st.just(["x"]))


class _Frames:
    """Frame texts of one drawn recording (`replay.wire.delta_run.FrameTexts`)."""

    def __init__(self) -> None:
        self.texts: list[bytes] = []
        self.locations: list[Location] = []

    def add(self, data: dict[str, Any]) -> int:
        at = len(self.texts)
        if at:
            before = self.locations[-1]
            where = before.offset + len(self.texts[-1]) + FRAME_OVERHEAD
            location = Location("s", before.line + 2, where, at)
        else:
            location = Location("s", 1, 0, 0)
        self.texts.append(to_json(data))
        self.locations.append(location)
        return at

    def text(self, at: int) -> bytes:
        return self.texts[at]

    def lines(self, start: int, stop: int) -> bytes:
        return b"".join(text + b"\n" for text in self.texts[start:stop])

    def offset(self, at: int) -> int:
        return self.locations[at].offset

    def event(self, data: dict[str, Any]) -> RecordedEvent:
        at = self.add(data)
        return RecordedEvent(self.locations[at], data, None, self.texts[at].decode())


@st.composite
def _start(draw: st.DrawFn, kind: str, stream_id: str) -> dict[str, Any]:
    id_key, start, _ = FAMILIES[kind]
    data: dict[str, Any] = {"type": start, id_key: stream_id}
    name_key = "role" if kind == "TEXT_MESSAGE_CONTENT" else "toolCallName"
    if draw(st.booleans()):
        data[name_key] = draw(ANY_VALUE)
    if kind == "TOOL_CALL_ARGS" and draw(st.booleans()):
        data["parentMessageId"] = draw(ANY_VALUE)
    return data


@st.composite
def _items(draw: st.DrawFn) -> list[RecordedEvent | DeltaRun]:
    """Runs of events, where each stretch of one stream may come as one `DeltaRun`."""
    frames = _Frames()
    items: list[RecordedEvent | DeltaRun] = []
    for number in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 5)):
            items.append(frames.event({"type": "RUN_STARTED", "runId": f"r{number}"}))
        for _ in range(draw(st.integers(0, 6))):
            kind = draw(st.sampled_from(sorted(FAMILIES)))
            id_key, _, end = FAMILIES[kind]
            stream_id = draw(st.sampled_from(["a", "b"]))
            opened, closed = draw(st.booleans()), draw(st.booleans())
            deltas = draw(st.lists(st.text(max_size=3), max_size=3))
            if not (opened or closed or deltas):
                continue
            first = len(frames.texts)
            if opened:
                frames.add(draw(_start(kind, stream_id)))
            for delta in deltas:
                frames.add({"type": kind, id_key: stream_id, "delta": delta})
            if closed:
                frames.add({"type": end, id_key: stream_id})
            count = len(frames.texts) - first
            run = DeltaRun(
                kind,
                stream_id,
                # Given, or left for the run to read from its frames (as templates do).
                "".join(deltas) if draw(st.booleans()) else None,
                count,
                frames,
                first,
                frames.locations[first],
                opened,
                closed,
            )
            if draw(st.integers(0, 3)):
                items.append(run)
            else:  # as the plain decoder gives them
                items.extend(run.events())
        if draw(st.booleans()):
            call = draw(st.sampled_from(["a", "b"]))
            items.append(frames.event({"type": "TOOL_CALL_RESULT", "toolCallId": call}))
        if draw(st.integers(0, 5)):
            items.append(frames.event({"type": "RUN_FINISHED", "runId": f"r{number}"}))
    return items


def _fold(items: list[RecordedEvent | DeltaRun], *, whole: bool) -> list[Any]:
    builder = TranscriptBuilder()
    out: list[RunTranscript | Problem] = builder.begin_exchange(Exchange("s", []))
    for item in items:
        if type(item) is not DeltaRun:
            out += builder.add(item)
        elif not (whole and builder.add_run(item)):
            for event in item.events():
                out += builder.add(event)
    out += builder.finish()
    return out


def _read(run: RunTranscript) -> Any:
    return (
        [(m.id, m.role, m.text, m.location, m.ended) for m in run.messages],
        [(c.id, c.name, c.arguments, c.location, c.ended, c.parent_message_id, c.result)
         for c in run.tool_calls],
    )  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(items=_items(), read_ids_first=st.booleans())
def test_stretches_folded_whole_give_the_runs_of_their_events(
    items: list[RecordedEvent | DeltaRun], read_ids_first: bool
) -> None:
    whole = _fold(items, whole=True)
    plain = _fold(items, whole=False)
    runs = [item for item in whole if isinstance(item, RunTranscript)]
    if read_ids_first:  # what the checks read leaves the rest to assemble
        ids = [run.streams.tool_call_ids for run in runs]
    assert [_read(r) for r in runs] == [_read(r) for r in plain if isinstance(r, RunTranscript)]
    assert whole == plain
    if read_ids_first:
        assert ids == [[call.id for call in run.tool_calls] for run in runs]
    assert all(run.streams.tool_call_ids == [c.id for c in run.tool_calls] for run in runs)


class _Record:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    def line(self, item: RecordedEvent | DeltaRun | bytes) -> None:
        self.seen.append(item.lines if type(item) is DeltaRun else item)

    def problem(self, problem: Problem) -> None:
        self.seen.append(problem)


@settings(max_examples=100, deadline=None)
@given(items=_items(), texts=st.booleans())
def test_the_check_loop_reports_stretches_as_it_reports_their_events(
    items: list[RecordedEvent | DeltaRun], texts: bool
) -> None:
    # Folded without texts (as `agui replay --check` folds), the checks find the same.
    def check(whole: bool) -> list[Any]:
        sink = _Record()
        loop = CheckLoop(TranscriptBuilder(texts=texts or not whole), Checker(), sink)
        loop.report(loop.builder.begin_exchange(Exchange("s", [])))
        for item in items:
            if whole or type(item) is not DeltaRun:
                loop.add(item)
            else:
                for event in item.events():
                    loop.add(event)
        loop.report(loop.builder.finish())
        lines = b"".join(
            x if type(x) is bytes else x.text.encode() + b"\n"
            for x in sink.seen
            if not isinstance(x, Problem)
        )
        return [lines, [x for x in sink.seen if isinstance(x, Problem)]]

    assert check(True) == check(False)


def test_run_streams_compare_by_what_they_assemble() -> None:
    frames = _Frames()
    at = frames.add({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "user"})
    where = frames.locations[at]
    lazy = RunStreams({"m": opened_later(frames.text(at), where)}, {})
    eager = RunStreams({"m": Stream("user", where)}, {})
    other = RunStreams({"m": Stream("assistant", where)}, {})
    assert lazy.tool_call_ids == []
    assert lazy == eager != other
    assert hash(lazy) == hash(eager)
    assert lazy.messages == eager.messages
    assert lazy.messages[0].role == "user"
    assert "role='user'" in repr(lazy)


def test_a_run_folded_without_texts_refuses_to_assemble_them() -> None:
    frames = _Frames()
    items = [
        frames.event({"type": "RUN_STARTED", "runId": "r", "threadId": "t"}),
        frames.event({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}),
        frames.event({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}"}),
        frames.event({"type": "RUN_FINISHED", "runId": "r", "threadId": "t"}),
    ]
    builder = TranscriptBuilder(texts=False)
    builder.begin_exchange(Exchange("s", []))
    for item in items:
        builder.add(item)
    [run] = [x for x in builder.finish() if isinstance(x, RunTranscript)]
    assert run.streams.tool_call_ids == ["c"]
    assert "tool_call_ids=('c',)" in repr(run.streams)
    with pytest.raises(RuntimeError, match="without its texts"):
        _ = run.tool_calls
