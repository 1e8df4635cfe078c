"""The `--native` bridge's two halves, without sockets: follow-ups up, translation down."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.proxy.answered_calls import as_native
from replay.proxy.bridge import NativeStream, Unbridgeable, legacy_follow_up
from replay.proxy.tanstack_metadata import in_metadata
from replay.translate.translation import translate_items
from replay.wire.events import parse_messages
from replay.wire.sse import decode_bytes

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures" / "recordings"
ROOT = Path(__file__).resolve().parents[3]
TOOLS = json.loads((ROOT / "examples" / "legacy" / "tools.json").read_text())["tools"]
LEGACY_RUN = (FIXTURES / "legacy" / "two-approvals.approve-both.run1.sse").read_bytes()
LEGACY_REQUEST = json.loads(
    (FIXTURES / "legacy" / "two-approvals.approve-both.request.json").read_text()
)


def continuation(case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "native" / f"{case}.resume.json").read_text())
    return data


def parts_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [part for m in body["messages"] for part in m.get("parts", [])]


def test_an_approval_becomes_an_approval_responded_part() -> None:
    body = continuation("tool-approval.approve")
    out = legacy_follow_up(body)
    assert "resume" not in out
    assert "parentRunId" not in out
    assert out["runId"] == body["runId"]
    (call,) = [p for p in parts_of(out) if p["type"] == "tool-call"]
    assert call["state"] == "approval-responded"
    assert call["approval"] == {
        "id": "approval_call_transfer_1",
        "needsApproval": True,
        "approved": True,
    }
    assert call["input"] == {"amount": 42, "recipient": "Ada"}
    # The client's pendingExecution placeholder is not sent as a tool result.
    assert not [m for m in out["messages"] if m["role"] == "tool"]
    assert body["resume"], "the input is never mutated"


def test_mixed_decisions_keep_their_own_answers() -> None:
    out = legacy_follow_up(continuation("two-approvals.approve-one-reject-other"))
    decisions = {p["id"]: p["approval"]["approved"] for p in parts_of(out) if "approval" in p}
    assert decisions == {"call_transfer_1": True, "call_delete_1": False}


def test_a_client_tool_output_becomes_parts_and_a_tool_message() -> None:
    out = legacy_follow_up(continuation("client-tool.add-tool-result"))
    parts = parts_of(out)
    (call,) = [p for p in parts if p["type"] == "tool-call"]
    assert (call["state"], call["output"]) == ("complete", {"color": "green"})
    (result,) = [p for p in parts if p["type"] == "tool-result"]
    assert result == {
        "type": "tool-result",
        "toolCallId": "call_color_1",
        "content": '{"color":"green"}',
        "state": "complete",
    }
    (tool,) = [m for m in out["messages"] if m["role"] == "tool"]
    assert tool["content"] == '{"color":"green"}'


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"status": "cancelled"}, "was cancelled"),
        ({"payload": {"approved": True, "editedArgs": {"amount": 1}}}, "cannot take editedArgs"),
        ({"payload": {"yes": 1}}, "needs `approved`"),
        ({"interruptId": "interrupt-123"}, "not a tool approval or client tool"),
        ({"interruptId": "approval_call_unknown"}, "not a tool approval or client tool"),
        ({"status": "later"}, "has status 'later'"),
    ],
)
def test_what_a_legacy_server_cannot_hear_is_refused(change: dict[str, Any], message: str) -> None:
    body = continuation("tool-approval.approve")
    body["resume"] = [body["resume"][0] | change]
    with pytest.raises(Unbridgeable, match=message):
        legacy_follow_up(body)


def whole(data: bytes) -> bytes:
    stream = NativeStream(LEGACY_REQUEST | {"runId": "R"}, TOOLS)
    return stream.feed(data) + stream.close()


def test_the_legacy_pause_arrives_as_the_native_terminal_bound_to_the_request() -> None:
    events = [json.loads(m.data) for m in decode_bytes(whole(LEGACY_RUN))]
    assert not [e for e in events if e["type"] == "CUSTOM"]
    terminal = events[-1]
    assert terminal["runId"] == "R"
    ids = [d["id"] for d in terminal["outcome"]["interrupts"]]
    assert ids == ["approval_call_transfer_1", "approval_call_delete_1"]
    bindings = [
        d["metadata"]["tanstack:interruptBinding"] for d in terminal["outcome"]["interrupts"]
    ]
    assert {b["interruptedRunId"] for b in bindings} == {"R"}


def test_the_bridge_translates_as_agui_translate_does() -> None:
    """The plain twin: `agui translate`'s item stage over the whole stream, TanStack's
    own fields then filed under `metadata.tanstack` as 0.58.0 files them."""
    source = "x"
    expected = [
        in_metadata(item.data)
        for item in translate_items(
            parse_messages(source, decode_bytes(LEGACY_RUN)), tools=TOOLS, request=LEGACY_REQUEST
        )
        if hasattr(item, "data")
    ]
    got = [json.loads(m.data) for m in decode_bytes(whole(LEGACY_RUN))]
    strip = lambda e: {k: v for k, v in e.items() if k not in ("runId",)}  # noqa: E731
    assert [strip(e) for e in got[:-1]] == [strip(e) for e in expected[:-1]]
    assert (
        got[-1]["outcome"]["interrupts"][0]["id"] == expected[-1]["outcome"]["interrupts"][0]["id"]
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(LEGACY_RUN) - 1), max_size=12))
def test_any_chunking_gives_the_same_native_stream(cuts: list[int]) -> None:
    bounds = [0, *sorted(set(cuts)), len(LEGACY_RUN)]
    stream = NativeStream(LEGACY_REQUEST | {"runId": "R"}, TOOLS)
    out = b"".join(stream.feed(LEGACY_RUN[a:b]) for a, b in itertools.pairwise(bounds))
    assert out + stream.close() == whole(LEGACY_RUN)


def test_done_markers_never_reach_the_native_client() -> None:
    data = (ROOT / "examples" / "legacy" / "approval.python-package.sse").read_bytes()
    out = NativeStream({"runId": "R", "threadId": "T"}, TOOLS)
    text = (out.feed(data) + out.close()).decode()
    assert "[DONE]" not in text
    assert (
        json.loads(text.strip().splitlines()[-1].removeprefix("data: "))["type"] == "RUN_FINISHED"
    )


HOSTILE_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=20,
)
HOSTILE_CALL = st.fixed_dictionaries(
    {}, optional={"id": st.just("call_transfer_1") | HOSTILE_JSON, "function": HOSTILE_JSON}
)
HOSTILE_MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["assistant", "tool"]) | HOSTILE_JSON},
    optional={
        "toolCalls": st.lists(HOSTILE_CALL | HOSTILE_JSON, max_size=2) | HOSTILE_JSON,
        "toolCallId": st.just("call_transfer_1") | HOSTILE_JSON,
        "content": HOSTILE_JSON,
        "parts": HOSTILE_JSON,
    },
)


@settings(max_examples=300)
@given(
    st.lists(HOSTILE_MESSAGE | HOSTILE_JSON, max_size=3) | HOSTILE_JSON,
    st.lists(HOSTILE_JSON, max_size=2) | HOSTILE_JSON,
)
def test_a_hostile_continuation_is_bridged_or_refused_never_raised(
    messages: Any, resume: Any
) -> None:
    """The body is the client's: any shape of history or resume becomes a follow-up or
    an `Unbridgeable` refusal, never another exception."""
    body = continuation("tool-approval.approve")
    # Beside the real history, so the real answer still finds its call and the hostile
    # messages reach the rewriting of the history.
    body["messages"] = [*body["messages"], *messages] if isinstance(messages, list) else messages
    if resume is not None:
        body["resume"] = [*body["resume"], *resume] if isinstance(resume, list) else resume
    try:
        follow_up = legacy_follow_up(body)
    except Unbridgeable:
        return
    assert "resume" not in follow_up
    assert all(isinstance(m, dict) for m in follow_up["messages"])


def _sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in events)


def _events(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in data.decode().split("\n") if line.startswith("data: ")]


ANSWERED = {
    "runId": "R2",
    "threadId": "T",
    "parentRunId": "R1",
    "resume": [{"interruptId": "approval_c1", "status": "resolved", "payload": {"approved": True}}],
    "messages": [
        {"id": "u", "role": "user", "content": "go"},
        {
            "id": "msg_0",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "transfer", "arguments": "{}"},
                }
            ],
        },
    ],
}


def test_a_legacy_continuation_reports_the_answered_call_as_0_58_0_does() -> None:
    """0.42.0 streams the approved call again and its result under a fresh message id;
    0.58.0 only the result, under the message holding the call (bridge differential)."""
    legacy = _sse(
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "transfer", "model": "m"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}", "model": "m"},
        {"type": "TOOL_CALL_END", "toolCallId": "c1", "toolCallName": "transfer", "result": "ok"},
        {
            "type": "TOOL_CALL_RESULT",
            "toolCallId": "c1",
            "messageId": "tool-result-9",
            "content": "ok",
        },
        {"type": "RUN_STARTED", "runId": "R2", "threadId": "T", "model": "m"},
        {"type": "RUN_FINISHED", "runId": "R2", "threadId": "T", "finishReason": "stop"},
    )
    stream = NativeStream(ANSWERED, TOOLS)
    events = _events(stream.feed(legacy) + stream.close())
    assert [e["type"] for e in events] == ["TOOL_CALL_RESULT", "RUN_STARTED", "RUN_FINISHED"]
    assert events[0]["messageId"] == "msg_0"
    # A first request answers nothing: its calls pass through.
    first = NativeStream({"runId": "R1", "threadId": "T"}, TOOLS)
    passed = _events(first.feed(legacy) + first.close())
    assert [e["type"] for e in passed][:4] == [
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
    ]


def test_tanstack_fields_are_filed_under_metadata_as_0_58_0_files_them() -> None:
    legacy = _sse(
        {"type": "RUN_STARTED", "runId": "R", "threadId": "T", "model": "m"},
        {"type": "TEXT_MESSAGE_START", "messageId": "a", "role": "assistant", "model": "m"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": "hi", "model": "m"},
        {"type": "TEXT_MESSAGE_END", "messageId": "a", "model": "m"},
        {
            "type": "RUN_FINISHED",
            "runId": "R",
            "threadId": "T",
            "model": "m",
            "finishReason": "stop",
        },
    )
    stream = NativeStream({"runId": "R", "threadId": "T"}, TOOLS)
    events = _events(stream.feed(legacy) + stream.close())
    assert events[1] == {
        "type": "TEXT_MESSAGE_START",
        "messageId": "a",
        "role": "assistant",
        "metadata": {"tanstack": {"model": "m"}},
    }
    assert events[2]["model"] == "m"  # 0.58.0 names no model on a content delta
    assert events[-1]["metadata"] == {"tanstack": {"model": "m", "finishReason": "stop"}}


def test_a_continuation_s_early_results_reach_its_next_pause_s_snapshot() -> None:
    """0.42.0 streams the answered calls' results before the continuation's RUN_STARTED;
    when the run pauses again, its snapshot must hold them, in place of the client's
    `pendingExecution` placeholder (bridge differential, as 0.58.0's snapshot)."""
    placeholder = {
        "id": "tool-c1",
        "role": "tool",
        "toolCallId": "c1",
        "content": '{"approved":true,"pendingExecution":true,"message":"ok"}',
        "metadata": {"tanstack": {"toolResult": {}}},
    }
    request = ANSWERED | {"messages": [*ANSWERED["messages"], placeholder]}
    legacy = _sse(
        {"type": "TOOL_CALL_RESULT", "toolCallId": "c1", "messageId": "t-9", "content": "done"},
        {"type": "RUN_STARTED", "runId": "R2", "threadId": "T"},
        {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "transfer"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c2", "delta": '{"amount":1}'},
        {"type": "TOOL_CALL_END", "toolCallId": "c2", "toolCallName": "transfer"},
        {"type": "RUN_FINISHED", "runId": "R2", "threadId": "T", "finishReason": "tool_calls"},
        {
            "type": "CUSTOM",
            "name": "approval-requested",
            "value": {"toolCallId": "c2", "toolName": "transfer", "input": {"amount": 1}},
        },
    )
    stream = NativeStream(request, TOOLS)
    events = _events(stream.feed(legacy) + stream.close())
    (snapshot,) = [e for e in events if e["type"] == "MESSAGES_SNAPSHOT"]
    tools = [(m["id"], m["content"]) for m in snapshot["messages"] if m["role"] == "tool"]
    assert tools == [("snapshot_R2_2", "done")]


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=4),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
        ),
        max_leaves=8,
    )
)
def test_an_upstream_event_of_any_type_value_passes_the_native_steps_without_raising(
    kind: Any,
) -> None:
    """The legacy server's events are the upstream's: a `type` that is a list or an object
    (unhashable) must not raise in the steps that file them the native way."""
    data = {"type": kind, "toolCallId": "call_1", "model": "m", "metadata": {}}
    assert as_native(data, {"call_1": "msg_1"}) is data  # (no drawn text names an event)
    assert in_metadata(data) is data
