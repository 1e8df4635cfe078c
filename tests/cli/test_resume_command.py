"""`agui resume` end to end against a scripted local server: bodies, refusals, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from replay.wire.canonical import hash_schema_input
from tests.resume_http import Route, free_port, scripted_server

NATIVE = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
APPROVAL_RUN1 = str(NATIVE / "tool-approval.approve.run1.sse")
APPROVAL_RUN2 = (NATIVE / "tool-approval.approve.run2.sse").read_bytes()
TWO_RUN1 = (NATIVE / "two-approvals.approve-both.run1.sse").read_bytes()
RUN_ERROR = (
    b'data: {"type":"RUN_ERROR","timestamp":1,"message":"Interrupt x has expired.",'
    b'"code":"expired","metadata":{"tanstack":{"runId":"run-2","threadId":"t",'
    b'"interruptErrors":[{"scope":"item","threadId":"t","interruptedRunId":"run-1",'
    b'"generation":0,"interruptId":"x","code":"expired","message":"Interrupt x has expired.",'
    b'"source":"server","retryable":false}]}}}\n\n'
)

runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None) -> object:
    return runner.invoke(app, ["resume", *args], env=env or {})


def test_dry_run_prints_the_exact_body() -> None:
    result = invoke(
        "--from", APPROVAL_RUN1, "--approve", "transfer", "--dry-run", "--new-run-id", "run-2"
    )
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    expected = json.loads((NATIVE / "tool-approval.approve.resume.json").read_text())
    assert body["runId"] == "run-2"
    assert body["resume"] == expected["resume"]
    assert body["messages"][2] == expected["messages"][2]
    assert result.stdout.count("\n") == 1
    assert result.stdout.startswith('{"threadId":')


def test_posts_and_streams_the_answer_live(tmp_path: Path) -> None:
    with scripted_server({"/chat": Route([APPROVAL_RUN2[:100], APPROVAL_RUN2[100:]])}) as server:
        result = invoke(
            "--from",
            APPROVAL_RUN1,
            "--approve",
            "transfer",
            "--url",
            server.url("/chat"),
            "--new-run-id",
            "run-2",
            "-H",
            "X-Api-Key: k3y",
            "--header-env",
            "X-Other=OTHER",
            env={"AGUI_TOKEN": "t0ken", "OTHER": "0ther"},
        )
    assert result.exit_code == 0, result.stderr
    (received,) = server.received
    body = json.loads(received.body)
    assert body["runId"] == "run-2"
    assert received.headers["x-run-id"] == "run-2"
    assert received.headers["authorization"] == "Bearer t0ken"
    assert received.headers["x-api-key"] == "k3y"
    assert received.headers["x-other"] == "0ther"
    assert "Done with the transfer." in result.stdout
    for secret in ("t0ken", "k3y", "0ther"):
        assert secret not in result.stdout
        assert secret not in result.stderr
    assert "finished" in result.stderr


def test_json_output_is_ndjson_of_the_events() -> None:
    with scripted_server({"/chat": Route(APPROVAL_RUN2)}) as server:
        result = invoke(
            "--from", APPROVAL_RUN1, "--approve", "transfer", "--url", server.url("/chat"), "--json"
        )
    assert result.exit_code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["type"] for e in events][:2] == ["TOOL_CALL_RESULT", "RUN_STARTED"]
    assert events[-1]["type"] == "RUN_FINISHED"


def test_paused_again_exits_3_and_records_a_resumable_file(tmp_path: Path) -> None:
    out = tmp_path / "next.sse"
    with scripted_server({"/chat": Route(TWO_RUN1)}) as server:
        result = invoke(
            "--from",
            APPROVAL_RUN1,
            "--approve",
            "transfer",
            "--url",
            server.url("/chat"),
            "--record",
            str(out),
        )
    assert result.exit_code == 3, result.stderr
    assert out.read_bytes() == TWO_RUN1
    assert json.loads(out.with_name("next.request.json").read_text()) == json.loads(
        server.received[0].body
    )
    assert f"agui resume --from {out}" in result.stderr
    # The recorded pause resumes again, without writing any JSON by hand.
    again = invoke("--from", str(out), "--approve-all", "--dry-run")
    assert again.exit_code == 0, again.stderr
    body = json.loads(again.stdout)
    assert [e["interruptId"] for e in body["resume"]] == [
        "approval_call_delete_1",
        "approval_call_transfer_1",
    ]
    assert body["tools"] == json.loads(server.received[0].body)["tools"]


def test_run_error_exits_1_with_each_interrupt_error() -> None:
    with scripted_server({"/chat": Route(RUN_ERROR)}) as server:
        result = invoke(
            "--from", APPROVAL_RUN1, "--approve", "transfer", "--url", server.url("/chat")
        )
    assert result.exit_code == 1
    assert "RUN_ERROR [expired]: Interrupt x has expired." in result.stderr
    assert "item x: expired: Interrupt x has expired. [server]" in result.stderr


def test_cancelling_everything_exits_4() -> None:
    with scripted_server({"/chat": Route(APPROVAL_RUN2)}) as server:
        result = invoke("--from", APPROVAL_RUN1, "--cancel-all", "--url", server.url("/chat"))
    assert result.exit_code == 4, result.stderr
    assert json.loads(server.received[0].body)["resume"] == [
        {"interruptId": "approval_call_transfer_1", "status": "cancelled"}
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "is unanswered"),
        (
            ("--edit", 'transfer={"amount":"x","recipient":"Ada"}'),
            "(at amount) [invalid-edited-args]",
        ),
        (("--reject", "transfer", "--payload", "{}"), "takes no payload"),
        (("--approve", "nope"), "no pending interrupt matches 'nope'"),
        (("--approve", "transfer", "--run-id", "run-x"), "no such run"),
        (("--approve", "transfer", "-H", "bad header"), "expected 'Name: value'"),
    ],
)
def test_refusals_exit_2_and_send_nothing(args: tuple[str, ...], message: str) -> None:
    with scripted_server({"/chat": Route(APPROVAL_RUN2)}) as server:
        result = invoke("--from", APPROVAL_RUN1, "--no-input", "--url", server.url("/chat"), *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert server.received == []


def test_expired_items_need_force(tmp_path: Path) -> None:
    items = tmp_path / "items.json"
    items.write_text(
        json.dumps(
            [
                {
                    "id": "g1",
                    "definitionId": "d",
                    "key": "k",
                    "batchIndex": 0,
                    "reason": "r",
                    "message": "m",
                    "responseSchemaHash": "sha256:" + "2" * 64,
                    "expiresAt": "2000-01-01T00:00:00Z",
                }
            ]
        )
    )
    base = ("--thread-id", "t", "--run-id", "run-1", "--items", str(items), "--answer", "g1=1")
    refused = invoke(*base, "--dry-run")
    assert refused.exit_code == 2
    assert "refused g1: Interrupt g1 has expired. [expired]" in refused.stderr
    assert "--force" in refused.stderr
    forced = invoke(*base, "--dry-run", "--force")
    assert forced.exit_code == 0, forced.stderr
    assert (
        json.loads(forced.stdout)["resume"][0]["metadata"]["tanstack:interruptContinuation"][
            "expiresAt"
        ]
        == "2000-01-01T00:00:00Z"
    )


def test_no_validate_sends_an_incomplete_batch() -> None:
    with scripted_server({"/chat": Route(RUN_ERROR)}) as server:
        result = invoke(
            "--from", APPROVAL_RUN1, "--no-input", "--no-validate", "--url", server.url("/chat")
        )
    assert result.exit_code == 1
    assert json.loads(server.received[0].body)["resume"] == []


def test_transport_failures_are_one_line_exit_2() -> None:
    url = f"http://127.0.0.1:{free_port()}/chat"
    result = invoke("--from", APPROVAL_RUN1, "--approve", "transfer", "--url", url)
    assert result.exit_code == 2
    assert result.stderr.count("agui:") == 2  # "posting …" then the failure
    assert "cannot connect" in result.stderr
    with scripted_server(
        {"/chat": Route(b"nope", status=500, content_type="text/plain")}
    ) as server:
        result = invoke(
            "--from", APPROVAL_RUN1, "--approve", "transfer", "--url", server.url("/chat")
        )
    assert result.exit_code == 2
    assert "HTTP 500" in result.stderr


def test_curl_masks_header_values() -> None:
    result = invoke(
        "--from",
        APPROVAL_RUN1,
        "--approve",
        "transfer",
        "--curl",
        "-H",
        "X-Key: s3cret",
        env={"AGUI_TOKEN": "t0ken"},
    )
    assert result.exit_code == 0
    assert "s3cret" not in result.stdout
    assert "t0ken" not in result.stdout
    assert "'X-Key: ***'" in result.stdout
    assert '"Authorization: Bearer ${AGUI_TOKEN}"' in result.stdout  # runnable as printed


def test_hand_built_without_items_uses_plain_entries(tmp_path: Path) -> None:
    messages = tmp_path / "messages.json"
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages.write_text(json.dumps([{"id": "a1", "role": "assistant", "toolCalls": [call]}]))
    result = invoke(
        "--thread-id", "t", "--run-id", "run-1", "--approve", "approval_call_1", "--dry-run",
        "--messages", str(messages),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["parentRunId"] == "run-1"
    assert body["resume"] == [
        {"interruptId": "approval_call_1", "payload": {"approved": True}, "status": "resolved"}
    ]
    missing = invoke("--approve", "x", "--dry-run")
    assert missing.exit_code == 2
    assert "--from RECORDING, or --run-id R --thread-id T" in missing.stderr


def test_a_run_with_its_continuation_in_the_timeline_is_not_answered_again() -> None:
    with scripted_server({"/chat": Route(APPROVAL_RUN2)}) as server:
        result = invoke(
            "--from", APPROVAL_RUN1, "--from", str(NATIVE / "tool-approval.approve.run2.sse"),
            "--approve-all", "--url", server.url("/chat"),
        )  # fmt: skip
    assert result.exit_code == 2
    assert "nothing left to resume: run run-1796038961558-eiv1s8 was already resumed" in (
        result.stderr
    )
    assert "tool-approval.approve.run2.sse" in result.stderr
    assert result.stderr.count("\n") == 1
    assert server.received == []


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ([{"role": 7}], "message 0: role must be one of developer, system, assistant"),
        ([{"id": "u1"}], "message 0: role is missing"),
        ([{"id": "u1", "role": "user"}], "message 0 (user): content: field required"),
        (
            [{"id": "u1", "role": "user", "content": "hi"},
             {"id": "a1", "role": "assistant", "toolCalls": [{"id": "c1"}]}],
            "message 1 (assistant): toolCalls.0.function: field required",
        ),
    ],
)  # fmt: skip
def test_hand_built_messages_must_have_the_message_shape(
    messages: list[object], message: str, tmp_path: Path
) -> None:
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(messages))
    result = invoke(
        "--thread-id", "t", "--run-id", "run-1", "--messages", str(path),
        "--answer", "i1=1", "--dry-run",
    )  # fmt: skip
    assert result.exit_code == 2
    assert f"--messages {path}: {message}" in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_pending_call_no_answer_names_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "messages.json"
    call = {"id": "call_9", "type": "function", "function": {"name": "wipe", "arguments": "{}"}}
    path.write_text(json.dumps([{"id": "a1", "role": "assistant", "toolCalls": [call]}]))
    result = invoke(
        "--thread-id", "t", "--run-id", "run-1", "--messages", str(path),
        "--approve", "approval_call_1", "--dry-run",
    )  # fmt: skip
    assert result.exit_code == 2
    assert "refused approval_call_1: the history has no assistant tool call `call_1`" in (
        result.stderr
    )
    assert "pending tool call `call_9` (wipe) that no answer names" in result.stderr
    assert invoke(
        "--thread-id", "t", "--run-id", "run-1", "--messages", str(path),
        "--approve", "approval_call_9", "--dry-run",
    ).exit_code == 0  # fmt: skip


def test_a_har_with_the_continuation_names_the_entry_that_answered() -> None:
    har = Path(__file__).resolve().parents[2] / "examples" / "session.har"
    refused = invoke("--from", str(har), "--approve-all", "--dry-run")
    assert refused.exit_code == 2
    assert (
        "run run-1796035060821-bckiun was already resumed by run run-1796035061100-0d5olp "
        "at " in refused.stderr
    )
    assert "session.har#entry2" in refused.stderr
    forced = invoke("--from", str(har), "--approve-all", "--dry-run", "--force")
    assert forced.exit_code == 0, forced.stderr
    assert json.loads(forced.stdout)["parentRunId"] == "run-1796035060821-bckiun"


def test_a_run_error_with_control_characters_is_shown_not_obeyed() -> None:
    # the server's RUN_ERROR code and message went to the terminal raw (ESC sequences)
    hostile = (
        b'data: {"type":"RUN_ERROR","message":"bad \\u001b]0;PWNED\\u0007 \\u001b[2J",'
        b'"code":"x\\u001b[31m"}\n\n'
    )
    with scripted_server({"/chat": Route(hostile)}) as server:
        result = invoke(
            "--from", APPROVAL_RUN1, "--approve", "transfer", "--url", server.url("/chat")
        )
    assert result.exit_code == 1
    assert "\x1b" not in result.stderr
    assert "\x07" not in result.stderr
    assert (
        "agui: the server answered RUN_ERROR [x\\x1b[31m]: bad \\x1b]0;PWNED\\x07 \\x1b[2J\n"
        in result.stderr
    )


def test_a_datetime_inside_a_union_is_refused_in_zods_words(tmp_path: Path) -> None:
    """zod reports the datetime of the one union option that failed only its format, so
    the local refusal names it too (not the union's `Invalid input`)."""
    datetime = {
        "type": "string",
        "format": "date-time",
        "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$",
    }
    schema = {
        "type": "object",
        "properties": {
            "window": {
                "anyOf": [
                    {"type": "object", "properties": {"at": datetime}, "required": ["at"]},
                    {"type": "string", "const": "now"},
                ]
            }
        },
        "required": ["window"],
    }
    item = {
        "id": "g1",
        "definitionId": "d",
        "key": "k",
        "batchIndex": 0,
        "reason": "r",
        "message": "m",
        "responseSchema": schema,
        "responseSchemaHash": hash_schema_input(schema),
    }
    items = tmp_path / "items.json"
    items.write_text(json.dumps([item]))
    base = ("--thread-id", "t", "--run-id", "run-1", "--items", str(items), "--dry-run")
    refused = invoke(*base, "--answer", 'g1={"window":{"at":"yesterday"}}')
    assert refused.exit_code == 2
    assert (
        "refused g1: Interrupt g1 payload is invalid: Invalid ISO datetime (at window/at)"
        " [invalid-payload]"
    ) in refused.stderr
    accepted = invoke(*base, "--answer", 'g1={"window":{"at":"2026-12-02T10:00:00Z"}}')
    assert accepted.exit_code == 0, accepted.stderr
