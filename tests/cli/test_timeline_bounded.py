"""The timeline shows tool arguments cut to `MAX_VALUE_WIDTH` without holding them whole."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from cli.timeline import MAX_VALUE_WIDTH, Timeline, _short
from replay.wire.events import RecordedEvent
from replay.wire.problems import Location


def _event(data: dict[str, object]) -> RecordedEvent:
    return RecordedEvent(Location("t.sse"), data, None, "")


def _render(deltas: list[str]) -> str:
    out = io.StringIO()
    timeline = Timeline(Console(file=out, width=10_000), rich=False)
    timeline.event(_event({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}))
    for delta in deltas:
        timeline.event(_event({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": delta}))
    timeline.event(_event({"type": "TOOL_CALL_END", "toolCallId": "c"}))
    return out.getvalue()


@given(st.lists(st.text(alphabet='ab\r\n{}"é', max_size=80), max_size=12))
def test_the_line_equals_the_plain_cut_of_the_whole_arguments(deltas: list[str]) -> None:
    whole = "".join(deltas)
    assert _render(deltas) == f"  * tool f (c) {_short(whole) or '{}'}\n"


def test_an_endless_argument_stream_keeps_only_what_is_shown() -> None:
    out = io.StringIO()
    timeline = Timeline(Console(file=out, width=10_000), rich=False)
    timeline.event(_event({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}))
    for _ in range(10_000):
        timeline.event(_event({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "x" * 100}))
    assert len(timeline._tool_args["c"]) == MAX_VALUE_WIDTH + 1
