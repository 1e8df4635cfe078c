"""Hypothesis strategies for hostile recordings: mostly plausible AG-UI runs, with faults.

The fuzz properties and the differential test draw from here, so both see the same
faults the fuzzing campaign of issue 14 found: ids and names of the wrong JSON type,
snake_case ids, duplicate keys, invalid JSON that starts like a `RUN_STARTED` frame,
lone surrogate escapes, deep nesting, legacy approval events, `[DONE]`, comments and
other line endings.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

EVENT_TYPES = [
    "RUN_STARTED",
    "RUN_FINISHED",
    "RUN_ERROR",
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "TOOL_CALL_START",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_END",
    "TOOL_CALL_RESULT",
    "MESSAGES_SNAPSHOT",
    "STATE_SNAPSHOT",
    "STEP_STARTED",
    "CUSTOM",
    "THINKING_START",
    "THINKING_END",
    "approval-requested",
    "tool-input-available",
]

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["r1", "r2", "t", "m", "c", "", "\ud800", "approval-requested"]),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=2), st.dictionaries(st.sampled_from(["a", "type"]), inner)
    ),
    max_leaves=4,
)
"""Any JSON value, small: what a hostile field holds instead of a string."""
IDS = st.sampled_from(["r1", "r2", "t", "m", "c"])
"""Ids drawn from a handful, so that events refer to each other."""

FIELDS = [
    "runId",
    "threadId",
    "parentRunId",
    "messageId",
    "message_id",
    "toolCallId",
    "tool_call_id",
    "toolCallName",
    "tool_call_name",
    "run_id",
    "thread_id",
]


@st.composite
def events(draw: st.DrawFn) -> dict[str, Any]:
    """One event object: a known type with plausible fields, some of them hostile."""
    event_type = draw(st.one_of(st.sampled_from(EVENT_TYPES), JSON_VALUES))
    event: dict[str, Any] = {"type": event_type}
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=4, unique=True)):
        event[field] = draw(st.one_of(IDS, IDS, JSON_VALUES))
    if event_type in ("TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS") or draw(st.booleans()):
        event["delta"] = draw(st.one_of(st.sampled_from(["he", "llo", "{}", ""]), JSON_VALUES))
    if event_type == "TEXT_MESSAGE_START":
        event["role"] = draw(st.sampled_from(["assistant", "user", 5]))
    if event_type in ("CUSTOM", "approval-requested", "tool-input-available"):
        event["name"] = draw(
            st.one_of(st.sampled_from(["approval-requested", "tool-input-available"]), JSON_VALUES)
        )
        body = {"toolCallId": draw(IDS), "toolName": "transfer", "input": {"amount": 1}}
        if draw(st.booleans()):
            body["approval"] = {"id": draw(IDS)}
        event[draw(st.sampled_from(["value", "data"]))] = draw(
            st.one_of(st.just(body), JSON_VALUES)
        )
    if event_type == "RUN_FINISHED" and draw(st.booleans()):
        # A model round that ran its server tools (the next round goes on without a new
        # RUN_STARTED in 0.58.0, with one of the same run id in 0.42.0), or a last one.
        reason = draw(st.sampled_from(["tool_calls", "tool_calls", "stop", None]))
        if draw(st.booleans()):
            event["finishReason"] = reason
        else:
            event["metadata"] = {"tanstack": {"finishReason": reason}}
    if event_type == "TOOL_CALL_END" and draw(st.booleans()):
        event["input"] = draw(st.one_of(st.just({"amount": 1.5e-7}), JSON_VALUES))
    if event_type == "RUN_FINISHED" and draw(st.booleans()):
        event["outcome"] = draw(
            st.one_of(
                st.just({"type": "interrupt", "interrupts": []}),
                st.just({"type": "success"}),
                JSON_VALUES,
            )
        )
    if event_type == "MESSAGES_SNAPSHOT":
        event["messages"] = draw(
            st.one_of(st.just([{"id": "m", "role": "user", "content": "hi"}]), JSON_VALUES)
        )
    return event


def compact(event: dict[str, Any]) -> str:
    """The event as TanStack writes it: compact JSON, non-ASCII escaped."""
    return json.dumps(event, separators=(",", ":"))


FAULTS = [
    b'data: {"type":"RUN_STARTED"\n\n',
    b'data: {"type":"RUN_STARTED",runId:"r1"}\n\n',
    b'data: {"type":"RUN_STARTED","runId":"r9","threadId":"t","type":"RUN_FINISHED"}\n\n',
    b'data: {"type":"RUN_FINISHED","type":"RUN_STARTED","runId":"r9","threadId":"t"}\n\n',
    b'data: {"type":"RUN_STARTED","runId":"r9","threadId":[]}\n\n',
    b'data: {"type":"RUN_FINISHED","runId":"r1","threadId":[]}\n\n',
    b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\\ud800"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","delta":"y"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_CONTENT","message_id":"m","delta":"z"}\n\n',
    b'data: {"type":"TOOL_CALL_ARGS","tool_call_id":"c","delta":"{}"}\n\n',
    b"data: " + b"[" * 1200 + b"]" * 1200 + b"\n\n",
    b'data: {"type":"CUSTOM","name":"x","value":' + b"[" * 1100 + b"]" * 1100 + b"}\n\n",
    b"data: [DONE]\n\n",
    b"data: not json\n\n",
    b": comment\n\n",
    b'data: {"type":[]}\n\n',
    b'data: {"type":"CUSTOM","name":{}}\n\n',
    b"data: \xff\xfe\n\n",
    b"\n",
    b'{"type":"RUN_STARTED","runId":"r5","threadId":"t"}\n',
    b'data: {"type":"RUN_STARTED","runId":"r6","threadId":"t"}\r\n\r\n',
]
"""Bytes the campaign found divergences or crashes with, and their near relatives."""


@st.composite
def recordings(draw: st.DrawFn, max_events: int = 30) -> bytes:
    """A recording: runs of events as one-line `data:` frames, with faults between."""
    parts: list[bytes] = []
    for _ in range(draw(st.integers(0, max_events))):
        choice = draw(st.integers(0, 9))
        if choice < 6:
            parts.append(f"data: {compact(draw(events()))}\n\n".encode())
        elif choice < 8:
            run = draw(IDS)
            parts.append(
                f'data: {{"type":"RUN_STARTED","runId":"{run}","threadId":"t"}}\n\n'.encode()
            )
        else:
            parts.append(draw(st.sampled_from(FAULTS)))
    return b"".join(parts)
