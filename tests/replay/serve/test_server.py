"""The replay server: request-body checks, id rewriting, continuation validation, HTTP edge."""

from __future__ import annotations

import copy
import itertools
import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from replay.interrupts.chat_params import INVALID_BODY_TEXT, InvalidBody, check_request_body
from replay.serve.request_log import JsonLinesLog, RequestLog, Result
from replay.serve.run_ids import RunIds, rewrite_event
from replay.serve.serve_options import FAST, LineEnding, Pace, ServeOptions
from replay.serve.served_runs import load_recording
from replay.serve.server import ReplayServer, parse_address
from replay.serve.service import ReplayService
from replay.wire.errors import AguiError, UnreadableInput

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures"
NATIVE = FIXTURES / "recordings" / "native"
LEGACY = FIXTURES / "recordings" / "legacy"
REFERENCE = FIXTURES / "reference"
APPROVAL = "tool-approval.approve"
TRANSFER = "approval_call_transfer_1"
BINDING = "tanstack:interruptBinding"


def events(text: str) -> list[dict[str, Any]]:
    blocks = text.replace("\r\n", "\n").split("\n\n")
    return [json.loads(b.removeprefix("data: ")) for b in blocks if b.startswith("data: ")]


def case_files(case: str, base: Path = NATIVE) -> list[str]:
    return [str(base / f"{case}.run1.sse"), str(base / f"{case}.run2.sse")]


def body(case: str, kind: str, base: Path = NATIVE, **ids: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((base / f"{case}.{kind}.json").read_text())
    data.update(ids)
    return data


def service(
    case: str = APPROVAL, *, clock: float = 1_800_000_000.0, **options: Any
) -> ReplayService:
    opts = ServeOptions(**{"pace": FAST, **options})
    return ReplayService(
        load_recording(case_files(case), opts), opts, clock=lambda: clock, new_id=lambda: "msg-x"
    )


def stream_text(reply: Any) -> str:
    return b"".join(frame.data for frame in reply.frames).decode()


# --------------------------------------------------------------------------- chatParams


def valid_body() -> dict[str, Any]:
    return {
        "threadId": "t",
        "runId": "r",
        "messages": [{"id": "m1", "role": "user", "content": "hi"}],
        "tools": [],
        "context": [],
    }


def with_(changes: dict[str, Any], *, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    data = {**valid_body(), **changes}
    for key in drop:
        del data[key]
    return data


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ([], "body must be a JSON object"),
        (with_({}, drop=("threadId",)), "threadId must be a string"),
        (with_({"runId": 5}), "runId must be a string"),
        (with_({"parentRunId": None}), "parentRunId must be a string"),
        (with_({}, drop=("messages",)), "messages must be an array"),
        (with_({"messages": ["x"]}), "messages[0] must be an object"),
        (
            with_({"messages": [{"role": "user", "content": "x"}]}),
            "messages[0].id must be a string",
        ),
        (
            with_({"messages": [{"id": "a", "role": "robot"}]}),
            "messages[0].role must be one of developer | system | assistant | user | tool"
            " | activity | reasoning",
        ),
        (
            with_({"messages": [{"id": "a", "role": "assistant", "content": None}]}),
            "messages[0].content must be a string",
        ),
        (
            with_({"messages": [{"id": "a", "role": "tool", "content": "x"}]}),
            "messages[0].toolCallId must be a string",
        ),
        (
            with_({"messages": [{"id": "a", "role": "user", "content": "x", "metadata": 1}]}),
            "messages[0].metadata must be an object",
        ),
        (with_({}, drop=("tools",)), "tools must be an array"),
        (with_({"tools": [{"name": "x"}]}), "tools[0].description must be a string"),
        (with_({}, drop=("context",)), "context must be an array"),
        (with_({"context": [{"description": "d"}]}), "context[0].value must be a string"),
        (with_({"resume": {}}), "resume must be an array"),
        (
            with_({"resume": [{"interruptId": 1, "status": "nope"}]}),
            'resume[0].status must be "resolved" or "cancelled"',
        ),
        (
            with_({"resume": [{"status": "resolved"}]}),
            "resume[0].interruptId must be a string",
        ),
        (
            with_({"resume": [{"status": "cancelled", "interruptId": "a", "metadata": []}]}),
            "resume[0].metadata must be an object",
        ),
        (with_({"forwardedProps": []}), "forwardedProps must be an object"),
    ],
)
def test_invalid_bodies_give_tanstacks_reason(payload: Any, reason: str) -> None:
    with pytest.raises(InvalidBody) as caught:
        check_request_body(payload)
    assert str(caught.value) == reason


def test_a_valid_body_passes_with_unknown_keys_and_parts() -> None:
    check_request_body(with_({"data": {}, "state": None, "forwardedProps": {}, "resume": []}))
    check_request_body(body(APPROVAL, "resume"))


def test_the_first_failing_check_wins() -> None:
    with pytest.raises(InvalidBody, match=r"^runId must be a string$"):
        check_request_body(with_({"runId": None}, drop=("messages", "tools")))


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    ("text", "factor"), [("fast", None), ("real", 1.0), ("2", 2.0), ("0.5", 0.5), ("REAL", 1.0)]
)
def test_pace_parses(text: str, factor: float | None) -> None:
    assert Pace.parse(text).factor == factor


@pytest.mark.parametrize("text", ["0", "-1", "soon", "inf", "nan"])
def test_bad_pace_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="pace"):
        Pace.parse(text)


def test_pace_scales_recorded_gaps() -> None:
    assert Pace.parse("real").delay(1000, 1250) == 0.25
    assert Pace.parse("2").delay(1000, 1250) == 0.125
    assert FAST.delay(1000, 9000) == 0
    assert Pace.parse("real").delay(2000, 1000) == 0
    assert Pace.parse("real").delay(None, 1000) == 0


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("8000", ("127.0.0.1", 8000)),
        ("0.0.0.0:9", ("0.0.0.0", 9)),
        (":7", ("127.0.0.1", 7)),
        ("[::1]:80", ("::1", 80)),
        ("localhost:0", ("localhost", 0)),
    ],
)
def test_addresses(text: str, address: tuple[str, int]) -> None:
    assert parse_address(text) == address


@pytest.mark.parametrize("text", ["http", "1:2:3", "70000", "[::1]80", "host:"])
def test_bad_addresses(text: str) -> None:
    with pytest.raises(ValueError, match=r"port|address"):
        parse_address(text)


# --------------------------------------------------------------------------- loading


def test_recorded_runs_are_paired_through_the_resume_sidecar() -> None:
    recording = load_recording(case_files(APPROVAL))
    first, second = recording.runs
    assert first.transcript.outcome == "interrupt"
    assert second.transcript.parent_run_id == first.run_id
    assert recording.continuation_of(first) is second
    assert recording.continuation_of(second) is None
    # Run 2's TOOL_CALL_RESULT precedes its RUN_STARTED and belongs to it.
    assert second.events[0].data["type"] == "TOOL_CALL_RESULT"


def test_a_file_without_events_cannot_be_served(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sse"
    empty.write_text(": just a comment\n\n")
    with pytest.raises(UnreadableInput, match="no run to serve"):
        load_recording([str(empty)])


# --------------------------------------------------------------------------- rewriting


def test_rewrite_rebinds_run_thread_and_interrupted_run() -> None:
    event = {
        "type": "RUN_FINISHED",
        "runId": "old",
        "threadId": "old-t",
        "outcome": {
            "type": "interrupt",
            "interrupts": [{"id": "i", "metadata": {BINDING: {"interruptedRunId": "old", "v": 1}}}],
        },
        "metadata": {"tanstack": {"runId": "old", "finishReason": "tool_calls"}},
    }
    original = copy.deepcopy(event)
    new = rewrite_event(event, RunIds("r", "t"))
    assert event == original  # never mutates its input
    assert new is not None
    assert list(new) == list(event)
    assert new["runId"] == "r"
    assert new["threadId"] == "t"
    assert new["metadata"]["tanstack"]["runId"] == "r"
    binding = new["outcome"]["interrupts"][0]["metadata"][BINDING]
    assert binding == {"interruptedRunId": "r", "v": 1}
    assert rewrite_event({"type": "TEXT_MESSAGE_END", "messageId": "m"}, RunIds("r", "t")) is None


def test_first_request_streams_run_one_under_the_requests_ids() -> None:
    reply = service().post(
        "/chat", json.dumps(body(APPROVAL, "request", runId="R1", threadId="T")).encode()
    )
    assert reply.status == 200
    assert reply.content_type == "text/event-stream"
    assert reply.log.result is Result.SERVED
    served = events(stream_text(reply))
    recorded = events((NATIVE / f"{APPROVAL}.run1.sse").read_text())
    assert [e["type"] for e in served] == [e["type"] for e in recorded]
    assert all(e.get("runId", "R1") == "R1" and e.get("threadId", "T") == "T" for e in served)
    binding = served[-1]["outcome"]["interrupts"][0]["metadata"][BINDING]
    assert binding["interruptedRunId"] == "R1"
    # Events that name no run are passed through byte for byte.
    recorded_text = (NATIVE / f"{APPROVAL}.run1.sse").read_text()
    for frame in reply.frames:
        text = frame.data.decode()
        if '"runId"' not in text and '"threadId"' not in text:
            assert text in recorded_text


def test_verbatim_serves_the_recorded_bytes() -> None:
    reply = service(verbatim=True).post(
        "/", json.dumps(body(APPROVAL, "request", runId="R1")).encode()
    )
    assert b"".join(f.data for f in reply.frames) == (NATIVE / f"{APPROVAL}.run1.sse").read_bytes()


def test_crlf_line_endings() -> None:
    reply = service(line_ending=LineEnding.CRLF).post(
        "/", json.dumps(body(APPROVAL, "request")).encode()
    )
    assert all(f.data.endswith(b"\r\n\r\n") and b"\n\n" not in f.data for f in reply.frames)


def test_pacing_follows_recorded_timestamps() -> None:
    reply = service(pace=Pace.parse("real")).post(
        "/", json.dumps(body(APPROVAL, "request")).encode()
    )
    recorded = events((NATIVE / f"{APPROVAL}.run1.sse").read_text())
    stamps = [e["timestamp"] for e in recorded]
    expected = [0.0] + [max(0, b - a) / 1000 for a, b in itertools.pairwise(stamps)]
    assert [f.delay for f in reply.frames] == pytest.approx(expected)


# --------------------------------------------------------------------------- continuations


def first_then(svc: ReplayService, resume: list[dict[str, Any]], **ids: Any) -> Any:
    svc.post("/", json.dumps(body(APPROVAL, "request", runId="R1", threadId="T")).encode())
    payload = body(APPROVAL, "resume", runId="R2", threadId="T", parentRunId="R1")
    payload["resume"] = resume
    payload.update(ids)
    return svc.post("/", json.dumps(payload).encode())


def test_a_valid_continuation_streams_recorded_run_two() -> None:
    svc = service()
    reply = first_then(svc, body(APPROVAL, "resume")["resume"])
    assert reply.log.result is Result.ACCEPTED
    assert reply.log.detail is not None
    assert reply.log.detail.startswith("run 2")
    served = events(stream_text(reply))
    assert served[0]["type"] == "TOOL_CALL_RESULT"
    assert [e["runId"] for e in served if "runId" in e] == ["R2", "R2"]
    assert served[-1]["type"] == "RUN_FINISHED"


def test_posting_the_recorded_resume_body_works_without_a_first_request() -> None:
    reply = service().post("/", json.dumps(body(APPROVAL, "resume")).encode())
    assert reply.log.result is Result.ACCEPTED


@pytest.mark.parametrize(
    ("resume", "code"),
    [
        ([{"interruptId": "bogus", "status": "resolved", "payload": True}], "unknown-interrupt"),
        ([{"interruptId": TRANSFER, "status": "cancelled", "payload": None}], "invalid-payload"),
        ([{"interruptId": TRANSFER, "status": "resolved", "payload": "yes"}], "invalid-payload"),
        (
            [
                {"interruptId": TRANSFER, "status": "resolved", "payload": True},
                {"interruptId": TRANSFER, "status": "resolved", "payload": True},
            ],
            "conflict",
        ),
        (
            [
                {
                    "interruptId": TRANSFER,
                    "status": "resolved",
                    "payload": {"approved": True, "editedArgs": {"amount": "x"}},
                }
            ],
            "invalid-edited-args",
        ),
    ],
)
def test_invalid_continuations_stream_one_run_error(
    resume: list[dict[str, Any]], code: str
) -> None:
    reply = first_then(service(), resume)
    assert reply.status == 200
    assert reply.log.result is Result.REJECTED
    assert reply.log.code == code
    (event,) = events(stream_text(reply))
    assert event["type"] == "RUN_ERROR"
    assert event["code"] == code
    tanstack = event["metadata"]["tanstack"]
    assert tanstack["runId"] == "R2"
    assert all(e["interruptedRunId"] == "R1" for e in tanstack["interruptErrors"])


def test_unknown_parent_run_is_rejected_with_a_reason_in_the_log() -> None:
    reply = first_then(service(), body(APPROVAL, "resume")["resume"], parentRunId="nope")
    assert reply.log.code == "unknown-interrupt"
    assert reply.log.detail == "run nope was never served"


def test_resume_without_parent_run_id_is_byte_identical_to_the_real_server() -> None:
    expected = (REFERENCE / "run-error-missing-parentRunId.sse").read_bytes()
    stamp = events(expected.decode())[0]["timestamp"]
    svc = service(clock=stamp / 1000)
    payload = with_(
        {
            "runId": "run-2",
            "threadId": "thread-1",
            "resume": [{"interruptId": "approval_call_1", "status": "resolved"}],
        }
    )
    reply = svc.post("/", json.dumps(payload).encode())
    assert reply.status == 200
    assert b"".join(f.data for f in reply.frames) == expected


def test_incomplete_batch_is_byte_identical_to_the_real_server() -> None:
    expected = (REFERENCE / "run-error-incomplete-and-unknown.sse").read_bytes()
    stamp = events(expected.decode())[0]["timestamp"]
    opts = ServeOptions(pace=FAST)
    recording = load_recording([str(REFERENCE / "native-terminal-approval-and-client-tool.sse")])
    svc = ReplayService(recording, opts, clock=lambda: stamp / 1000)
    payload = with_(
        {
            "runId": "run-2",
            "threadId": "thread-1",
            "parentRunId": "run-1",
            "resume": [
                {
                    "interruptId": "approval_call_1",
                    "status": "resolved",
                    "payload": {"approved": True},
                },
                {"interruptId": "bogus", "status": "resolved", "payload": True},
            ],
        }
    )
    reply = svc.post("/", json.dumps(payload).encode())
    assert b"".join(f.data for f in reply.frames) == expected


def test_without_a_recorded_continuation_a_synthetic_run_reports_the_answers() -> None:
    opts = ServeOptions(pace=FAST)
    recording = load_recording([str(NATIVE / f"{APPROVAL}.run1.sse")])
    svc = ReplayService(recording, opts, clock=lambda: 1.0, new_id=lambda: "msg-x")
    reply = first_then(
        svc, [{"interruptId": TRANSFER, "status": "resolved", "payload": {"approved": True}}]
    )
    assert reply.log.result is Result.ACCEPTED
    served = events(stream_text(reply))
    assert [e["type"] for e in served] == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert served[0]["runId"] == served[-1]["runId"] == "R2"
    assert f'{TRANSFER}: resolved {{"approved":true}}' in served[2]["delta"]
    assert "outcome" not in served[-1]


def test_a_follow_up_turn_on_a_known_thread_gets_the_next_run() -> None:
    # Legacy clients continue with a plain request (no resume): it gets recorded run 2.
    opts = ServeOptions(pace=FAST)
    svc = ReplayService(load_recording(case_files(APPROVAL, LEGACY), opts), opts)
    first = svc.post("/", json.dumps(body(APPROVAL, "request", LEGACY, runId="a")).encode())
    second = svc.post("/", json.dumps(body(APPROVAL, "resume", LEGACY, runId="b")).encode())
    other = svc.post("/", json.dumps(body(APPROVAL, "request", LEGACY, threadId="new")).encode())
    assert first.log.detail is not None
    assert first.log.detail.startswith("run 1")
    assert second.log.detail is not None
    assert second.log.detail.startswith("run 2")
    assert other.log.detail is not None
    assert other.log.detail.startswith("run 1")


def test_native_translation_serves_legacy_interrupts_bound_to_the_request() -> None:
    tools = [
        {
            "name": "transfer",
            "description": "Transfer funds to a recipient",
            "inputSchema": {
                "type": "object",
                "properties": {"amount": {"type": "number"}, "recipient": {"type": "string"}},
                "required": ["amount", "recipient"],
            },
            "needsApproval": True,
        }
    ]
    svc = service(native=True, tools=tools)
    svc = ReplayService(load_recording(case_files(APPROVAL, LEGACY), svc.options), svc.options)
    reply = svc.post("/", json.dumps(body(APPROVAL, "request", LEGACY, runId="R1")).encode())
    served = events(stream_text(reply))
    assert not any(e["type"] == "CUSTOM" for e in served)
    outcome = served[-1]["outcome"]
    assert outcome["type"] == "interrupt"
    (descriptor,) = outcome["interrupts"]
    assert descriptor["id"] == TRANSFER
    assert descriptor["metadata"][BINDING]["interruptedRunId"] == "R1"
    resume = body(APPROVAL, "resume", NATIVE, runId="R2", parentRunId="R1")
    resume["threadId"] = served[-1]["threadId"]
    answer = svc.post("/", json.dumps(resume).encode())
    assert answer.log.result is Result.ACCEPTED, answer.log


# --------------------------------------------------------------------------- HTTP


@pytest.fixture
def live() -> Any:
    logs: list[RequestLog] = []
    opts = ServeOptions(pace=FAST)
    server = ReplayServer(
        load_recording(case_files(APPROVAL), opts), options=opts, logger=logs.append
    )
    with server:
        yield server, logs


def test_http_headers_health_and_errors(live: Any) -> None:
    server, logs = live
    assert server.url.startswith("http://127.0.0.1:")
    with httpx.Client(base_url=server.url, timeout=5) as client:
        health = client.get("/health")
        assert (health.status_code, health.text) == (200, "ok")
        assert client.get("/elsewhere").status_code == 404
        assert client.put("/chat").status_code == 405
        bad = client.post("/chat", content=b"{not json")
        assert (bad.status_code, bad.text) == (400, INVALID_BODY_TEXT)
        missing = client.post("/chat", json=with_({}, drop=("tools",)))
        assert (missing.status_code, missing.text) == (400, INVALID_BODY_TEXT)
        ok = client.post("/any/path", json=body(APPROVAL, "request", runId="R1"))
        assert ok.status_code == 200
        assert ok.headers["content-type"] == "text/event-stream"
        assert ok.headers["cache-control"] == "no-cache"
        assert events(ok.text)[-1]["runId"] == "R1"
    assert [entry.result for entry in logs] == [
        Result.HEALTH,
        Result.NOT_FOUND,
        Result.NOT_ALLOWED,
        Result.INVALID,
        Result.INVALID,
        Result.SERVED,
    ]
    assert logs[4].detail == "tools must be an array"
    assert logs[5].run_id == "R1"


def test_frames_are_flushed_one_by_one() -> None:
    gate = threading.Event()
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        gate.wait(5)

    opts = ServeOptions(pace=Pace.parse("real"))
    server = ReplayServer(load_recording(case_files(APPROVAL), opts), options=opts, sleep=sleep)
    with server, httpx.Client(timeout=5) as client:
        with client.stream("POST", server.url, json=body(APPROVAL, "request")) as response:
            lines = response.iter_lines()
            first = next(lines)
            # The first event arrived while the server waits before the next one.
            assert json.loads(first.removeprefix("data: "))["type"] == "RUN_STARTED"
            assert not gate.is_set()
            gate.set()
            rest = [line for line in lines if line]
        assert len(rest) == 9
        assert waits
        assert all(w >= 0 for w in waits)


def test_shutdown_cuts_a_paced_stream_short() -> None:
    opts = ServeOptions(pace=Pace.parse("0.0001"))  # 10 000 times slower: minutes per event
    server = ReplayServer(load_recording(case_files(APPROVAL), opts), options=opts).start()
    received: list[str] = []

    errors: list[Exception] = []

    def read() -> None:
        try:
            with (
                httpx.Client(timeout=10) as client,
                client.stream("POST", server.url, json=body(APPROVAL, "request")) as response,
            ):
                received.extend(line for line in response.iter_lines() if line)
        except httpx.RemoteProtocolError as error:  # the chunked body ends unfinished
            errors.append(error)

    reader = threading.Thread(target=read)
    reader.start()
    deadline = time.monotonic() + 5
    while not received and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    server.shutdown()
    reader.join(5)
    assert not reader.is_alive()
    assert time.monotonic() - started < 3
    assert len(received) < 10
    assert errors, "a cut stream must not look complete"
    server.shutdown()  # idempotent


def test_log_file_has_json_lines_with_the_body_and_no_headers(tmp_path: Path) -> None:
    log_path = tmp_path / "requests.jsonl"
    log = JsonLinesLog(log_path)
    opts = ServeOptions(pace=FAST)
    server = ReplayServer(load_recording(case_files(APPROVAL), opts), options=opts, logger=log)
    payload = body(APPROVAL, "request", runId="R1")
    with server, httpx.Client(timeout=5) as client:
        client.post(server.url + "/chat", json=payload, headers={"Authorization": "Bearer secret"})
    log.close()
    (line,) = log_path.read_text().splitlines()
    record = json.loads(line)
    assert record["body"] == payload
    assert record["runId"] == "R1"
    assert record["result"] == "served"
    assert "secret" not in line
    assert "headers" not in record


def test_a_busy_port_is_a_clear_error() -> None:
    opts = ServeOptions(pace=FAST)
    recording = load_recording(case_files(APPROVAL), opts)
    with (
        ReplayServer(recording, options=opts) as first,
        pytest.raises(AguiError, match="cannot listen"),
    ):
        ReplayServer(recording, port=first.port, options=opts)
