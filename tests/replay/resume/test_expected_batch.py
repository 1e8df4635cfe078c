"""The tool-call part of the expected batch, rebuilt from the history as the server does."""

from __future__ import annotations

import json
from pathlib import Path

from replay.resume.continuation import APPROVED_CONTENT, DENIED_CONTENT
from replay.resume.expected_batch import history_calls, history_refusals, tool_call_of

NATIVE = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "native"


def _call(call_id: str, name: str = "transfer") -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def _tool(call_id: str, content: object) -> dict[str, object]:
    text = content if isinstance(content, str) else json.dumps(content)
    return {"id": f"tool-{call_id}", "role": "tool", "toolCallId": call_id, "content": text}


def test_the_approval_marker_does_not_complete_a_call_but_a_denial_does() -> None:
    messages = [
        {"id": "a", "role": "assistant", "toolCalls": [_call("c1"), _call("c2"), _call("c3")]},
        _tool("c1", APPROVED_CONTENT),
        _tool("c2", DENIED_CONTENT),
        _tool("c3", '{"receiptId":"r"}'),
    ]
    calls = history_calls(messages)
    assert [(c.id, c.completed) for c in calls.values()] == [
        ("c1", False),
        ("c2", True),
        ("c3", True),
    ]


def test_tool_call_ids_come_from_the_binding_or_the_id() -> None:
    recorded = json.loads((NATIVE / "tool-approval.approve.resume.json").read_text())
    assert tool_call_of({"id": "approval_call_9"}) == "call_9"
    assert tool_call_of({"id": "client_tool_c"}) == "c"
    assert tool_call_of({"id": "interrupt-1"}) is None
    assert recorded["resume"][0]["interruptId"] == "approval_call_transfer_1"


def test_a_recorded_continuation_history_passes() -> None:
    recorded = json.loads((NATIVE / "two-approvals.approve-both.resume.json").read_text())
    answered = [entry["interruptId"] for entry in recorded["resume"]]
    assert history_refusals([], answered, recorded["messages"]) == []
    assert len(history_refusals([], answered[:1], recorded["messages"])) == 1


def test_provider_executed_calls_are_neither_pending_nor_answerable() -> None:
    hosted = {**_call("ws1", "web_search"), "metadata": {"providerExecuted": True}}
    messages = [{"id": "a", "role": "assistant", "toolCalls": [hosted, _call("c1")]}]
    assert list(history_calls(messages)) == ["c1"]
    (line,) = history_refusals([], ["approval_ws1", "approval_c1"], messages)
    assert line.startswith("approval_ws1: the tool call `ws1` ran at the model provider")
