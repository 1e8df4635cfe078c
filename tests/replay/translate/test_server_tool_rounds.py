"""Legacy turns whose server tools the server runs itself, against the real 0.58.0 output.

`captures/` holds what the real `@tanstack/ai` 0.42.0 and 0.58.0 servers of the interop
test bed (`scripted` scenario) streamed for one request each:

* `rounds`: a first model round calls the server tool `ping`, which the server runs; the
  second round pauses on the approval `reboot` (arguments written by the model as
  `{"n": 1e-7, "m": 2.0}`), the server tool `list_changes` and the client tool `ask_user`.
  0.42.0 ends the first round with `RUN_FINISHED` and starts the second with another
  `RUN_STARTED` of the same run; 0.58.0 starts the run once.
* `server-tool-result`: one round with the client tool `pick_color` and the server tool
  `ping`; 0.42.0 runs `ping` after its `RUN_FINISHED` and announces `pick_color` after
  the result, 0.58.0 streams the result before the pause.
* `history`: the request carries a 0.22.1 client's history with a client tool's result
  (`role: "tool"`); the turn pauses on `transfer` and `pick_color`. 0.58.0 writes that
  result with `role` first and its id in `metadata.tanstack.toolResult`.

The translation must carry the conversation 0.58.0 carries (its `MESSAGES_SNAPSHOT`; an
assistant message's `createdAt` is a clock reading, compared by presence) and its event
order, with numbers written as JavaScript writes them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay.translate.translation import translate_stream
from replay.wire.problems import Problem
from replay.wire.recording import load_request

CAPTURES = Path(__file__).resolve().parent / "captures"


def _translated(name: str) -> tuple[bytes, list[Problem]]:
    request = load_request(CAPTURES / f"{name}.0.42.0.request.json")
    out: list[bytes] = []
    notices: list[Problem] = []
    data = (CAPTURES / f"{name}.0.42.0.sse").read_bytes()
    for piece in translate_stream([data], source="s", request=request):
        (notices if isinstance(piece, Problem) else out).append(piece)  # type: ignore[arg-type]
    return b"".join(out), notices


def _events(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in data.splitlines() if line.startswith(b"data: ")]


def _native(name: str) -> list[dict[str, Any]]:
    return _events((CAPTURES / f"{name}.0.58.0.sse").read_bytes())


def _snapshot(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    (snapshot,) = [e for e in events if e["type"] == "MESSAGES_SNAPSHOT"]
    messages: list[dict[str, Any]] = snapshot["messages"]
    for message in messages:
        if message["role"] == "assistant":
            message["metadata"]["tanstack"]["createdAt"] = "<clock>"
    return messages


@pytest.mark.parametrize("name", ["rounds", "server-tool-result", "history"])
def test_the_translation_carries_the_native_conversation_and_order(name: str) -> None:
    out, _ = _translated(name)
    ours, native = _events(out), _native(name)
    assert [e["type"] for e in ours] == [e["type"] for e in native]
    assert _snapshot(ours) == _snapshot(native)


def test_an_earlier_round_stays_in_the_snapshot_and_its_run_is_started_once() -> None:
    out, notices = _translated("rounds")
    events = _events(out)
    assert [e["type"] for e in events].count("RUN_STARTED") == 1
    ids = [m["id"] for m in _snapshot(events)]
    assert ids == ["msg-user-dbg", "msg_scripted_0", "snapshot_run-dbg_2", "msg_scripted_1"]
    assert any("RUN_STARTED 0.42.0 repeats" in n.message for n in notices)


def test_an_assistant_message_carries_when_it_began() -> None:
    out, _ = _translated("rounds")
    (start,) = [e for e in _events(out) if e["type"] == "TEXT_MESSAGE_START"]
    (first,) = [e for e in _events(out) if e["type"] == "MESSAGES_SNAPSHOT"]
    assert start["timestamp"] == 1796209251474
    assert first["messages"][1]["metadata"] == {
        "tanstack": {"createdAt": "2026-12-02T11:00:51.474Z"}
    }


def test_a_request_tool_result_is_written_as_0_58_0_writes_it() -> None:
    out, _ = _translated("history")
    (tool,) = [m for m in _snapshot(_events(out)) if m["role"] == "tool"]
    assert list(tool) == ["role", "id", "toolCallId", "content", "metadata"]
    assert tool["metadata"] == {"tanstack": {"toolResult": {"id": "tool-call_color_1"}}}


def test_a_tool_result_is_named_by_run_and_position() -> None:
    out, _ = _translated("rounds")
    tool = _snapshot(_events(out))[2]
    assert tool == {
        "role": "tool",
        "id": "snapshot_run-dbg_2",
        "toolCallId": "c1",
        "content": '{"pong":{}}',
        "metadata": {"tanstack": {"toolResult": {"id": "snapshot_run-dbg_2"}}},
    }


def test_arguments_are_the_end_events_input_written_as_javascript_does() -> None:
    out, _ = _translated("rounds")
    calls = _snapshot(_events(out))[3]["toolCalls"]
    # The model wrote `{"n": 1e-7, "m": 2.0}`; 0.58.0 keeps `JSON.stringify(input)`.
    assert calls[0]["function"]["arguments"] == '{"n":1e-7,"m":2}'


def test_descriptor_numbers_are_written_as_javascript_writes_them() -> None:
    out, _ = _translated("rounds")
    terminal = out.splitlines()[-2]
    assert b'"input":{"n":1e-7,"m":2}' in terminal
    assert b"1e-07" not in terminal


def test_server_tool_results_before_the_legacy_events_stay_in_the_paused_run() -> None:
    out, notices = _translated("server-tool-result")
    types = [e["type"] for e in _events(out)]
    assert types[-3:] == ["TOOL_CALL_RESULT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert types.count("RUN_STARTED") == 1
    assert not any("synthesised RUN_STARTED" in n.message for n in notices)


def _frames(*events: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


FINISH = {"type": "RUN_FINISHED", "runId": "r", "threadId": "t", "finishReason": "tool_calls"}
APPROVAL = {
    "type": "CUSTOM",
    "name": "approval-requested",
    "value": {"toolCallId": "c0", "toolName": "transfer", "input": {}},
}


@pytest.mark.parametrize(
    "data",
    [
        # No run ever started: the RUN_STARTED the first pass synthesises is no new round.
        _frames(FINISH, FINISH, APPROVAL),
        # Text after the round's finish, then a paused finish: the first pass starts
        # the pause's run; that start follows text, not 0.42.0's next-round shape
        # (finish, tool results, RUN_STARTED), so a second pass drops nothing.
        _frames(
            {"type": "RUN_STARTED", "runId": "r", "threadId": "t"},
            FINISH,
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
            {"type": "TEXT_MESSAGE_END", "messageId": "m"},
            FINISH,
            APPROVAL,
        ),
    ],
)
def test_only_a_real_next_round_start_is_dropped_so_translating_twice_changes_nothing(
    data: bytes,
) -> None:
    def once(data: bytes) -> bytes:
        return b"".join(
            p for p in translate_stream([data], source="s") if not isinstance(p, Problem)
        )

    first = once(data)
    assert once(first) == first
