"""The translator on real and faithfully reconstructed legacy streams, and on native ones."""

from __future__ import annotations

import functools
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.translate.notices import NOTICE_RULES
from replay.translate.translation import translate_items, translate_stream
from replay.wire.events import EndOfStream, RawEvent, RecordedEvent, decode_events, parse_messages
from replay.wire.legacy import legacy_name
from replay.wire.problems import Problem, Severity
from replay.wire.recording import load_request, sidecar_request_path
from replay.wire.sse import decode_bytes

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "legacy"
TOOLS: list[dict[str, Any]] = json.loads((EXAMPLES / "tools.json").read_text("utf-8"))["tools"]
NATIVE = sorted((ROOT / "tests" / "fixtures" / "recordings" / "native").glob("*.sse"))
LEGACY_FIXTURES = sorted((ROOT / "tests" / "fixtures" / "recordings" / "legacy").glob("*.sse"))
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.sse"))


def run(
    data: bytes,
    *,
    tools: list[dict[str, Any]] | None = None,
    request: dict[str, Any] | None = None,
    chunk: int = 0,
) -> tuple[bytes, list[Problem]]:
    chunks = [data[i : i + chunk] for i in range(0, len(data), chunk)] if chunk else [data]
    out = bytearray()
    notices: list[Problem] = []
    for piece in translate_stream(chunks, source="s", tools=tools, request=request):
        if isinstance(piece, Problem):
            notices.append(piece)
        else:
            out += piece
    return bytes(out), notices


def events(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(m.data) for m in decode_bytes(data) if m.data != "[DONE]"]


def request_for(path: Path) -> dict[str, Any] | None:
    sidecar = sidecar_request_path(path)
    return load_request(sidecar) if sidecar else None


def terminal(data: bytes) -> dict[str, Any]:
    last = events(data)[-1]
    assert last["type"] == "RUN_FINISHED"
    assert last["outcome"]["type"] == "interrupt"
    return last


# Legacy-server streams without a pause (plain runs, follow-ups) carry nothing to translate.
UNPAUSED = [
    *NATIVE,
    *(
        p
        for p in LEGACY_FIXTURES
        if b'"name":"approval-requested"' not in p.read_bytes()
        and b'"name":"tool-input-available"' not in p.read_bytes()
    ),
]


@pytest.mark.parametrize("path", UNPAUSED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_unpaused_streams_come_out_byte_identical(path: Path) -> None:
    data = path.read_bytes()
    out, notices = run(data, tools=TOOLS)
    assert out == data
    assert notices == []


@pytest.mark.parametrize("path", EXAMPLE_FILES + LEGACY_FIXTURES, ids=lambda p: p.name)
def test_translation_is_valid_native_and_idempotent(path: Path) -> None:
    data = path.read_bytes()
    once, notices = run(data, tools=TOOLS, request=request_for(path))
    twice, again = run(once, tools=TOOLS, request=request_for(path))
    assert twice == once
    assert again == []
    assert all(n.severity is Severity.NOTICE and n.rule in NOTICE_RULES for n in notices)
    for item in decode_events("out", decode_bytes(once)):
        # 0.2.x content/tool_call/done chunks are not AG-UI at all; only their
        # approval chunks are translated.
        if isinstance(item, Problem) and item.rule == "unknown-event" and "0.2.2" in path.name:
            continue
        assert not isinstance(item, Problem), item
        if isinstance(item, RecordedEvent):
            assert legacy_name(item.data) is None
    for chunk in (1, 7, 64):
        assert run(data, tools=TOOLS, request=request_for(path), chunk=chunk)[0] == once


def test_tool_approval_recording_becomes_the_native_terminal() -> None:
    path = EXAMPLES / "tool-approval.0.42.0.sse"
    out, notices = run(path.read_bytes(), tools=TOOLS, request=request_for(path))
    types = [e["type"] for e in events(out)]
    assert types[-2:] == ["MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert "CUSTOM" not in types
    assert types.count("RUN_FINISHED") == 1
    snapshot = events(out)[-2]["messages"]
    assert snapshot[0]["role"] == "user"
    request = request_for(path)
    assert request is not None
    created = request["messages"][0]["createdAt"]
    assert snapshot[0]["metadata"] == {"tanstack": {"createdAt": created}}
    assert "parts" not in snapshot[0]
    # 0.58.0 stamps the assistant message with its clock when the message began.
    (start,) = [e for e in events(out) if e["type"] == "TEXT_MESSAGE_START"]
    began = datetime.fromtimestamp(start["timestamp"] / 1000, UTC).isoformat(
        timespec="milliseconds"
    )
    assert snapshot[1] == {
        "id": "msg_scripted_0",
        "metadata": {"tanstack": {"createdAt": began.replace("+00:00", "Z")}},
        "role": "assistant",
        "content": "I will transfer the money.",
        "toolCalls": [
            {
                "id": "call_transfer_1",
                "type": "function",
                "function": {"name": "transfer", "arguments": '{"amount":42,"recipient":"Ada"}'},
            }
        ],
    }
    finish = terminal(out)
    assert "finishReason" not in finish
    assert finish["metadata"] == {"tanstack": {"model": "scripted-1", "finishReason": "tool_calls"}}
    (descriptor,) = finish["outcome"]["interrupts"]
    binding = descriptor["metadata"]["tanstack:interruptBinding"]
    assert binding["interruptedRunId"] == request["runId"] == finish["runId"]
    rules = {n.rule for n in notices}
    assert rules == {"translated", "invented", "lost"}
    assert any("needsApproval" in n.message for n in notices if n.rule == "lost")
    # Everything before the legacy RUN_FINISHED is untouched, byte for byte.
    prefix = path.read_bytes().split(b'data: {"type":"RUN_FINISHED"')[0]
    assert out.startswith(prefix)


def test_without_tools_descriptors_have_no_binding() -> None:
    out, _ = run((EXAMPLES / "two-approvals.0.42.0.sse").read_bytes())
    interrupts = terminal(out)["outcome"]["interrupts"]
    assert [i["id"] for i in interrupts] == ["approval_call_transfer_1", "approval_call_delete_1"]
    for item in interrupts:
        assert "responseSchema" not in item
        assert "tanstack:interruptBinding" not in item["metadata"]


def test_mixed_turn_gets_the_client_tool_the_native_server_would_add() -> None:
    out, notices = run((EXAMPLES / "mixed.0.42.0.sse").read_bytes(), tools=TOOLS)
    interrupts = terminal(out)["outcome"]["interrupts"]
    assert [i["id"] for i in interrupts] == ["approval_call_1", "client_tool_call_2"]
    assert interrupts[1]["metadata"]["input"] == {"hint": "warm"}
    assert any(n.rule == "invented" and "client_tool_call_2" in n.message for n in notices)
    server = [dict(t, client=False) if t["name"] == "pick_color" else t for t in TOOLS]
    out, notices = run((EXAMPLES / "mixed.0.42.0.sse").read_bytes(), tools=server)
    assert [i["id"] for i in terminal(out)["outcome"]["interrupts"]] == ["approval_call_1"]
    assert any(n.rule == "lost" and "server tool" in n.message for n in notices)


def test_batch_order_is_approvals_then_client_tools() -> None:
    out, _ = run((EXAMPLES / "approval.0.5.1-data.sse").read_bytes())
    interrupts = terminal(out)["outcome"]["interrupts"]
    assert [(i["id"], i["reason"]) for i in interrupts] == [
        ("approval_call_1", "tool_call"),
        ("client_tool_call_2", "tanstack:client_tool_execution"),
    ]
    assert interrupts[1]["message"] == "Client tool pick_color is ready to run"


def test_pending_only_continuation_gets_a_whole_native_pause() -> None:
    path = EXAMPLES / "pending-only.0.42.0.sse"
    out, notices = run(path.read_bytes(), tools=TOOLS, request=request_for(path))
    started, snapshot, finish = events(out)
    assert started == {
        "type": "RUN_STARTED",
        "runId": "run-2",
        "threadId": "thread-pending",
        "timestamp": 1700000000005,
    }
    assert [m["id"] for m in snapshot["messages"]] == [
        "msg-1",
        "msg_scripted_0",
        "tool-call_transfer_1",
    ]
    (descriptor,) = finish["outcome"]["interrupts"]
    assert descriptor["id"] == "approval_call_delete_1"
    assert descriptor["metadata"]["tanstack:interruptBinding"]["interruptedRunId"] == "run-2"
    assert any(n.rule == "invented" and "RUN_STARTED" in n.message for n in notices)


def test_pending_only_without_a_request_mints_deterministic_ids() -> None:
    data = (EXAMPLES / "pending-only.0.42.0.sse").read_bytes()
    out, notices = run(data)
    assert events(out)[0]["runId"] == "agui-translated-run-0"
    assert events(out)[0]["threadId"] == "agui-translated-thread"
    assert run(data)[0] == out
    assert any("minted" in n.message for n in notices)


def test_python_package_stream() -> None:
    out, notices = run((EXAMPLES / "approval.python-package.sse").read_bytes(), tools=TOOLS)
    assert b"[DONE]" not in out
    finish = terminal(out)
    assert finish["threadId"] == "thread-py"
    assert finish["outcome"]["interrupts"][0]["id"] == "approval_call_1"
    assert any(n.rule == "translated" and "[DONE]" in n.message for n in notices)


def test_python_plain_finish_gets_its_thread_id_and_keeps_done() -> None:
    data = (
        b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
        b'data: {"type":"RUN_FINISHED","runId":"r"}\n\n'
        b"data: [DONE]\n\n"
    )
    out, notices = run(data)
    assert out.endswith(
        b'data: {"type":"RUN_FINISHED","runId":"r","threadId":"t"}\n\ndata: [DONE]\n\n'
    )
    assert [n.rule for n in notices] == ["invented"]


def test_top_level_chunks_of_0_2() -> None:
    out, notices = run((EXAMPLES / "approval.0.2.2-chunks.sse").read_bytes(), tools=TOOLS)
    assert events(out)[-3]["type"] == "RUN_STARTED"
    assert terminal(out)["outcome"]["interrupts"][0]["id"] == "approval_call_1"
    assert any("top-level" in n.message for n in notices)


def test_retired_ag_ui_shapes() -> None:
    out, notices = run((EXAMPLES / "thinking.ag-ui-0.x.sse").read_bytes())
    types = [e["type"] for e in events(out)]
    assert types[1:6] == [
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
    ]
    evs = events(out)
    assert evs[1]["messageId"] == evs[5]["messageId"] == "reasoning_1"
    assert evs[2]["messageId"] == evs[3]["messageId"] == evs[4]["messageId"]
    assert evs[2]["role"] == "reasoning"
    assert "title" not in evs[1]
    assert "rawEvent" not in evs[0]
    assert "parentMessageId" not in evs[6]
    assert evs[-1] == {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}
    assert {n.rule for n in notices} == {"translated", "invented", "lost"}


def test_gaps_comments_and_crlf_survive() -> None:
    legacy = (EXAMPLES / "client-tool.0.42.0.sse").read_bytes().replace(b"\n", b"\r\n")
    data = b": comment\r\n\r\n" + legacy + b": trailing\r\n"
    out, _ = run(data, tools=TOOLS)
    assert out.startswith(b': comment\r\n\r\ndata: {"type":"RUN_STARTED"')
    assert out.endswith(b"\r\n\r\n: trailing\r\n")
    assert b"\n\n" not in out.replace(b"\r\n", b"")
    assert terminal(out)["outcome"]["interrupts"][0]["id"] == "client_tool_call_2"


def test_unparsable_messages_pass_through_verbatim() -> None:
    data = b"data: {nope\n\n" + (EXAMPLES / "client-tool.0.42.0.sse").read_bytes()
    out, _ = run(data)
    assert out.startswith(b"data: {nope\n\n")


def test_translate_items_contract() -> None:
    path = EXAMPLES / "tool-approval.0.42.0.sse"
    raws = list(parse_messages("x", decode_bytes(path.read_bytes())))
    finish = next(r for r in raws if isinstance(r, RawEvent) and r.data["type"] == "RUN_FINISHED")
    out = list(translate_items(raws, tools=TOOLS, request=request_for(path)))
    events_out = [o for o in out if isinstance(o, RawEvent)]
    # Untouched events are the very same objects.
    assert events_out[:8] == raws[:8]
    assert all(a is b for a, b in zip(events_out[:8], raws[:8], strict=True))
    synthesised = events_out[8:]
    assert [e.data["type"] for e in synthesised] == ["MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert all(e.location == finish.location for e in synthesised)
    assert all(json.loads(e.text) == e.data for e in synthesised)
    assert all(
        isinstance(o, Problem) and o.rule in NOTICE_RULES
        for o in out
        if not isinstance(o, RawEvent)
    )
    # It plugs into decode_events as the transform stage.
    stage = functools.partial(translate_items, tools=TOOLS, request=request_for(path))
    decoded = list(decode_events("x", decode_bytes(path.read_bytes()), transform=stage))
    recorded = [d for d in decoded if isinstance(d, RecordedEvent)]
    assert all(r.event is not None for r in recorded)
    assert recorded[-1].type == "RUN_FINISHED"


def test_done_passes_through_when_nothing_was_translated() -> None:
    items: list[Any] = list(parse_messages("x", decode_bytes(b"data: [DONE]\n\n")))
    out = list(translate_items(items))
    assert len(out) == 1
    assert isinstance(out[0], EndOfStream)


EVENT = st.one_of(
    st.builds(
        lambda i: {"type": "RUN_STARTED", "runId": f"r{i}", "threadId": "t"}, st.integers(0, 3)
    ),
    st.builds(
        lambda: {
            "type": "RUN_FINISHED",
            "runId": "r",
            "threadId": "t",
            "finishReason": "tool_calls",
        }
    ),
    st.builds(
        lambda i: {"type": "TOOL_CALL_START", "toolCallId": f"c{i}", "toolCallName": "transfer"},
        st.integers(0, 3),
    ),
    st.builds(
        lambda i: {"type": "TOOL_CALL_ARGS", "toolCallId": f"c{i}", "delta": "{}"},
        st.integers(0, 3),
    ),
    st.builds(
        lambda i: {
            "type": "TOOL_CALL_RESULT",
            "toolCallId": f"c{i}",
            "messageId": "m",
            "content": "x",
        },
        st.integers(0, 3),
    ),
    st.builds(lambda: {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
    st.builds(
        lambda s: {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": s},
        st.text(max_size=5),
    ),
    st.builds(
        lambda i, name, value: {
            "type": "CUSTOM",
            "name": name,
            value: {"toolCallId": f"c{i}", "toolName": "transfer", "input": {"a": i}},
        },
        st.integers(0, 3),
        st.sampled_from(["approval-requested", "tool-input-available"]),
        st.sampled_from(["value", "data"]),
    ),
    st.builds(lambda: {"type": "THINKING_START", "title": "x"}),
    st.builds(lambda: {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "x"}),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(EVENT, max_size=14), st.booleans(), st.integers(1, 40))
def test_never_raises_never_loses_and_is_idempotent(
    evs: list[dict[str, Any]], done: bool, chunk: int
) -> None:
    data = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in evs)
    if done:
        data += b"data: [DONE]\n\n"
    once, _ = run(data, tools=TOOLS, chunk=chunk)
    assert run(once, tools=TOOLS)[0] == once
    kept = [
        json.dumps(e)
        for e in evs
        if legacy_name(e) is None
        and e["type"] not in ("RUN_FINISHED",)
        and not e["type"].startswith("THINKING")
    ]
    text = once.decode()
    for line in kept:
        assert f"data: {line}\n\n" in text


def test_a_second_repeated_run_start_before_the_round_says_anything_is_dropped_too() -> None:
    """Found by the idempotence property: the round's finish and a kept start side by side
    in the output would read, translated again, as the first repeat and be dropped."""
    starts = {"type": "RUN_STARTED", "runId": "r0", "threadId": "t"}
    finish = {"type": "RUN_FINISHED", "runId": "r", "threadId": "t", "finishReason": "tool_calls"}
    data = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in [starts, finish, starts, starts])
    once, _ = run(data, tools=TOOLS)
    assert once.count(b'"RUN_STARTED"') == 1
    assert run(once, tools=TOOLS)[0] == once
