"""The synthesised snapshot: legacy UIMessages in wire form, then what the run said."""

from __future__ import annotations

from replay.translate.run_record import RunRecord, track
from replay.translate.snapshot import history_tool_calls, snapshot_messages, wire_message

UI_USER = {
    "id": "u1",
    "role": "user",
    "createdAt": "2026-01-01T00:00:00.000Z",
    "parts": [{"type": "text", "content": "pay "}, {"type": "text", "content": "Ada"}],
}
UI_ASSISTANT = {
    "id": "a1",
    "role": "assistant",
    "parts": [{"type": "tool-call", "id": "call_1", "name": "transfer", "arguments": "{}"}],
}


def test_a_ui_message_becomes_its_wire_form() -> None:
    assert wire_message(UI_USER, "run-1", 0) == {
        "id": "u1",
        "metadata": {"tanstack": {"createdAt": "2026-01-01T00:00:00.000Z"}},
        "role": "user",
        "content": "pay Ada",
    }
    assert wire_message(UI_ASSISTANT, "run-1", 1)["toolCalls"] == [
        {"id": "call_1", "type": "function", "function": {"name": "transfer", "arguments": "{}"}}
    ]
    assert wire_message({"role": "user", "content": "hi"}, None, 3)["id"] == "snapshot_run_3"


def test_the_run_follows_the_request_and_history_calls_are_not_announced_twice() -> None:
    request = {"messages": [UI_USER, UI_ASSISTANT, "not a message"]}
    run = RunRecord(started=True, run_id="run-2")
    for event in (
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Sure."},
        {"type": "TOOL_CALL_START", "toolCallId": "call_1", "toolCallName": "transfer"},
        {"type": "TOOL_CALL_START", "toolCallId": "call_2", "toolCallName": "transfer"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call_2", "delta": '{"amount":1}'},
    ):
        track(event, event["type"], run)
    history = history_tool_calls(request)
    assert history == frozenset({"call_1"})
    messages, source = snapshot_messages(run, request, history)
    assert source == "2 request message(s) and the run's events"
    assert [m["id"] for m in messages] == ["u1", "a1", "m1"]
    assert messages[-1]["content"] == "Sure."
    assert [call["id"] for call in messages[-1]["toolCalls"]] == ["call_2"]
    assert messages[-1]["toolCalls"][0]["function"]["arguments"] == '{"amount":1}'


def test_without_a_request_only_the_run_speaks() -> None:
    run = RunRecord(started=True, run_id="r")
    track({"type": "TOOL_CALL_RESULT", "toolCallId": "c", "content": "ok"}, "TOOL_CALL_RESULT", run)
    messages, source = snapshot_messages(run, None, history_tool_calls(None))
    assert source == "the run's events only (no request known, so no input messages)"
    # Named as 0.58.0 names a tool result: by run and position.
    assert messages == [
        {
            "role": "tool",
            "id": "snapshot_r_0",
            "toolCallId": "c",
            "content": "ok",
            "metadata": {"tanstack": {"toolResult": {"id": "snapshot_r_0"}}},
        }
    ]


def test_a_tool_result_in_wire_form_keeps_the_id_recorded_for_it() -> None:
    """0.33.2 sends a client tool's output as `tool-<callId>` with an empty
    `metadata.tanstack.toolResult`; 0.58.0 names it by run and position (recorded)."""
    sent = {
        "id": "tool-call_1",
        "role": "tool",
        "toolCallId": "call_1",
        "content": '{"color":"teal"}',
        "metadata": {"tanstack": {"toolResult": {}}},
    }
    assert wire_message(sent, "run-2", 5)["id"] == "snapshot_run-2_5"
    kept = sent | {"metadata": {"tanstack": {"toolResult": {"id": "snapshot_run-1_2"}}}}
    assert wire_message(kept, "run-2", 5)["id"] == "snapshot_run-1_2"
    legacy = {k: v for k, v in sent.items() if k != "metadata"}
    assert wire_message(legacy, "run-2", 5)["id"] == "tool-call_1"


def test_request_messages_without_id_are_named_by_the_request_run() -> None:
    """A legacy continuation may stream no RUN_STARTED of its own: the request's run id
    names what has no id, as 0.58.0 names it."""
    run = RunRecord()
    request = {
        "runId": "run-req",
        "messages": [{"role": "tool", "toolCallId": "c", "content": "x"}],
    }
    messages, _ = snapshot_messages(run, request, frozenset())
    assert messages[0]["id"] == "snapshot_run-req_0"


def test_an_approved_call_s_result_takes_its_placeholder_s_place() -> None:
    """0.33.2 holds an approved call's place with a `pendingExecution` tool message; the
    0.58.0 snapshot has the call's result there, and the run's other results after it."""
    placeholder = {
        "id": "tool-c2",
        "role": "tool",
        "toolCallId": "c2",
        "content": '{"approved":true,"pendingExecution":true,"message":"ok"}',
        "metadata": {"tanstack": {"toolResult": {}}},
    }
    request = {"runId": "R", "messages": [{"id": "u", "role": "user", "content": "x"}, placeholder]}
    run = RunRecord(started=True, run_id="R")
    for call_id, content in (("c1", "one"), ("c2", "two")):
        event = {"type": "TOOL_CALL_RESULT", "toolCallId": call_id, "content": content}
        track(event | {"messageId": f"r-{call_id}", "role": "tool"}, event["type"], run)
    messages, _ = snapshot_messages(run, request, frozenset())
    assert [(m["id"], m.get("toolCallId"), m.get("content")) for m in messages] == [
        ("u", None, "x"),
        ("snapshot_R_1", "c2", "two"),
        ("snapshot_R_2", "c1", "one"),
    ]
