"""Every rule in the catalog fires on a recording made for it, and stays silent on a near miss.

Each case is a small set of files (recordings plus request sidecars) run through
`agui replay --format json`; the test compares rule ids. The native approval pair
comes from the bundled examples (a real TanStack 0.58.0 recording).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import app
from replay.runs.rules import RULES_BY_ID
from replay.wire.canonical import digest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()

Files = dict[str, Any]
"""File name → text (str) or JSON value (written with json.dumps)."""


def sse(*events: dict[str, Any]) -> str:
    return "".join(f"data: {json.dumps(event)}\n\n" for event in events)


def _har_entries() -> list[dict[str, Any]]:
    har = json.loads((EXAMPLES / "session.har").read_text("utf-8"))
    return [
        entry
        for entry in har["log"]["entries"]
        if entry["response"]["content"]["mimeType"] == "text/event-stream"
    ]


RUN1_SSE = (EXAMPLES / "transfer-approval.sse").read_text("utf-8")
RUN1_REQUEST = json.loads((EXAMPLES / "transfer-approval.request.json").read_text("utf-8"))
RUN2_SSE = _har_entries()[1]["response"]["content"]["text"]
RUN2_REQUEST = json.loads(_har_entries()[1]["request"]["postData"]["text"])
APPROVAL = json.loads(RUN1_SSE.strip().split("\n\n")[-1][len("data: ") :])["outcome"]["interrupts"][
    0
]

RS = {"type": "RUN_STARTED", "runId": "r1", "threadId": "t1", "timestamp": 1796035060000}
RF = {"type": "RUN_FINISHED", "runId": "r1", "threadId": "t1", "timestamp": 1796035060001}
TM_START = {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}
TM_CONTENT = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi"}
TM_END = {"type": "TEXT_MESSAGE_END", "messageId": "m1"}
TC_START = {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "pick"}
TC_ARGS = {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"}
TC_END = {"type": "TOOL_CALL_END", "toolCallId": "c1"}
LEGACY = {
    "type": "CUSTOM",
    "name": "approval-requested",
    "value": {
        "toolCallId": "c1",
        "toolName": "pick",
        "input": {},
        "approval": {"id": "approval_c1", "needsApproval": True},
    },
}
CLEAN: Files = {"ok.sse": sse(RS, TM_START, TM_CONTENT, TM_END, RF)}


def paused(*interrupts: Any, run: str = "r1", outcome: Any = None, **extra: Any) -> dict[str, Any]:
    finished = {**RF, "runId": run}
    finished["outcome"] = (
        outcome if outcome is not None else {"type": "interrupt", "interrupts": list(interrupts)}
    )
    return {**finished, **extra}


def descriptor(**changes: Any) -> dict[str, Any]:
    base = {"id": "ask_1", "reason": "input_required", "message": "Pick one", "toolCallId": "c1"}
    base.update(changes)
    return {key: value for key, value in base.items() if value is not None}


def with_binding(**changes: Any) -> dict[str, Any]:
    found = copy.deepcopy(APPROVAL)
    binding = found["metadata"]["tanstack:interruptBinding"]
    binding.update(changes)
    return found


def one_run(*events: dict[str, Any]) -> Files:
    return {"run.sse": sse(*events)}


def pair(resume: list[Any] | None = None, *, run2_sse: str = RUN2_SSE, **request: Any) -> Files:
    """The real approval run and its continuation, with the continuation request edited."""
    body = copy.deepcopy(RUN2_REQUEST)
    if resume is not None:
        body["resume"] = resume
    for key, value in request.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return {
        "run1.sse": RUN1_SSE,
        "run1.request.json": RUN1_REQUEST,
        "run2.sse": run2_sse,
        "run2.request.json": body,
    }


def custom_pair(pending: list[dict[str, Any]], resume: list[Any]) -> Files:
    """A paused run with hand-made descriptors and a continuation answering it."""
    run2 = sse(
        {**RS, "runId": "r2", "parentRunId": "r1", "timestamp": 1796035061000},
        {**RF, "runId": "r2", "timestamp": 1796035061001},
    )
    return {
        "a.sse": sse(RS, TC_START, TC_ARGS, TC_END, paused(*pending)),
        "b.sse": run2,
        "b.request.json": {
            "threadId": "t1",
            "runId": "r2",
            "parentRunId": "r1",
            "resume": resume,
            "messages": [],
            "tools": [],
            "context": [],
        },
    }


CLIENT_SCHEMA = {
    "type": "object",
    "properties": {"color": {"type": "string"}},
    "required": ["color"],
}
CLIENT_TOOL = {
    "id": "client_tool_c1",
    "reason": "tanstack:client_tool_execution",
    "message": "Client tool pick is ready to run",
    "toolCallId": "c1",
    "responseSchema": CLIENT_SCHEMA,
    "metadata": {
        "kind": "client_tool",
        "toolName": "pick",
        "input": {},
        "tanstack:interruptBinding": {
            "v": 1,
            "kind": "client-tool-execution",
            "interruptId": "client_tool_c1",
            "toolName": "pick",
            "toolCallId": "c1",
            "outputSchemaHash": digest(CLIENT_SCHEMA),
            "responseSchemaHash": digest(CLIENT_SCHEMA),
            "interruptedRunId": "r1",
            "generation": 0,
        },
    },
}
GENERIC_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def generic(expires_at: str = "2099-01-01T00:00:00.000Z") -> dict[str, Any]:
    return {
        "id": "interrupt-1796035060000-abc1234",
        "reason": "review",
        "message": "Review it",
        "responseSchema": GENERIC_SCHEMA,
        "expiresAt": expires_at,
        "metadata": {
            "tanstack:interruptBinding": {
                "v": 1,
                "kind": "generic",
                "interruptId": "interrupt-1796035060000-abc1234",
                "responseSchemaHash": digest(GENERIC_SCHEMA),
                "expiresAt": expires_at,
                "interruptedRunId": "r1",
                "generation": 0,
            }
        },
    }


GENERIC_ANSWER = {
    "interruptId": "interrupt-1796035060000-abc1234",
    "status": "resolved",
    "payload": {"ok": True},
}
APPROVE = {"interruptId": "approval_call_transfer_1", "status": "resolved", "payload": True}

# rule id → (files that make it fire, files that keep it silent, extra CLI arguments)
CASES: dict[str, tuple[Files, Files, tuple[str, ...]]] = {
    "unterminated-frame": (
        {"a.sse": sse(RS, RF).rstrip("\n")},
        {"a.sse": sse(RS, RF)},
        (),
    ),
    "bare-json": (
        {"a.ndjson": f"{json.dumps(RS)}\n{json.dumps(RF)}\n"},
        {"a.sse": sse(RS, RF)},
        (),
    ),
    "multiline-data": (
        {
            "a.sse": sse(RS)
            + 'data: {"type":"RUN_FINISHED",\ndata: "runId":"r1","threadId":"t1"}\n\n'
        },
        {"a.sse": sse(RS, RF)},
        (),
    ),
    "event-too-large": (
        {"a.sse": sse(RS, {"type": "CUSTOM", "name": "big", "value": "x" * (16 << 20)}, RF)},
        {"a.sse": sse(RS, {"type": "CUSTOM", "name": "big", "value": "x" * 1000}, RF)},
        (),
    ),
    "invalid-json": ({"a.sse": sse(RS) + "data: {oops\n\n" + sse(RF)}, CLEAN, ()),
    "not-an-object": ({"a.sse": sse(RS) + "data: [1, 2]\n\n" + sse(RF)}, CLEAN, ()),
    "unknown-event": (one_run(RS, {"type": "TOOL_CALL_PROGRESS"}, RF), CLEAN, ()),
    "invalid-event": (one_run({**RS, "runId": 5}, RF), CLEAN, ()),
    "legacy-approval-event": (one_run(RS, TC_START, TC_END, RF, LEGACY), CLEAN, ()),
    "empty-recording": ({"a.sse": ""}, CLEAN, ()),
    "no-run": (
        {"a.sse": ": only a comment\ndata: [DONE]\n\n"},
        {"a.sse": sse(RS, RF) + "data: [DONE]\n\n"},
        (),
    ),
    "missing-run-started": (
        one_run(TM_START, RS, RF),
        # TanStack's quirk: a continuation's TOOL_CALL_RESULT precedes its RUN_STARTED.
        one_run(
            {"type": "TOOL_CALL_RESULT", "messageId": "m0", "toolCallId": "c0", "content": "{}"},
            RS,
            RF,
        ),
        (),
    ),
    "run-not-finished": (
        one_run(RS, {**RS, "runId": "r2"}, {**RF, "runId": "r2"}),
        one_run(RS, RF, {**RS, "runId": "r2"}, {**RF, "runId": "r2"}),
        (),
    ),
    "missing-terminal": (one_run(RS, TM_START, TM_END), CLEAN, ()),
    "duplicate-terminal": (one_run(RS, RF, RF), CLEAN, ()),
    "duplicate-id": (one_run(RS, TM_START, TM_START, TM_END, RF), CLEAN, ()),
    "unknown-message-id": (one_run(RS, TM_CONTENT, RF), CLEAN, ()),
    "unknown-tool-call-id": (
        one_run(RS, TC_ARGS, RF),
        one_run(RS, TC_START, TC_ARGS, TC_END, RF),
        (),
    ),
    "event-after-end": (one_run(RS, TM_START, TM_END, TM_CONTENT, RF), CLEAN, ()),
    "unclosed-message": (one_run(RS, TM_START, TM_CONTENT, RF), CLEAN, ()),
    "unclosed-tool-call": (
        one_run(RS, TC_START, TC_ARGS, RF),
        one_run(RS, TC_START, TC_END, RF),
        (),
    ),
    "empty-interrupts": (
        one_run(RS, paused(outcome={"type": "interrupt", "interrupts": []})),
        one_run(RS, TC_START, TC_END, paused(descriptor())),
        (),
    ),
    "interrupt-missing-id": (
        one_run(RS, TC_START, TC_END, paused(descriptor(id=None))),
        one_run(RS, TC_START, TC_END, paused(descriptor())),
        (),
    ),
    "interrupt-missing-reason": (
        one_run(RS, TC_START, TC_END, paused(descriptor(reason=None))),
        one_run(RS, TC_START, TC_END, paused(descriptor())),
        (),
    ),
    "duplicate-interrupt-id": (
        one_run(RS, TC_START, TC_END, paused(descriptor(), descriptor())),
        one_run(RS, TC_START, TC_END, paused(descriptor(), descriptor(id="ask_2"))),
        (),
    ),
    "unknown-interrupt-tool-call": (
        one_run(RS, TC_START, TC_END, paused(descriptor(toolCallId="c9"))),
        # The tool call belongs to an ancestor run: r2 continues r1 and asks about c1 again.
        {
            "a.sse": sse(RS, TC_START, TC_END, paused(descriptor()))
            + sse(
                {**RS, "runId": "r2", "parentRunId": "r1"},
                paused(descriptor(id="ask_2"), run="r2"),
            )
        },
        (),
    ),
    "success-with-interrupts": (
        one_run(RS, {**RF, "outcome": {"type": "success", "interrupts": [descriptor()]}}),
        one_run(RS, {**RF, "outcome": {"type": "success"}}),
        (),
    ),
    "invalid-expires-at": (
        one_run(RS, TC_START, TC_END, paused(descriptor(expiresAt="next tuesday"))),
        one_run(RS, TC_START, TC_END, paused(descriptor(expiresAt="2099-01-01T00:00:00.000Z"))),
        (),
    ),
    "invalid-binding": (
        {"run1.sse": RUN1_SSE.replace('"v":1,', '"v":2,'), "run1.request.json": RUN1_REQUEST},
        {"run1.sse": RUN1_SSE, "run1.request.json": RUN1_REQUEST},
        (),
    ),
    "binding-run-mismatch": (
        one_run(
            {**RS, "runId": "run-1796035060821-bckiun"},
            {**TC_START, "toolCallId": "call_transfer_1"},
            {**TC_END, "toolCallId": "call_transfer_1"},
            paused(with_binding(interruptedRunId="elsewhere"), run="run-1796035060821-bckiun"),
        ),
        {"run1.sse": RUN1_SSE},
        (),
    ),
    "resume-without-parent": (pair(parentRunId=None), pair(), ()),
    "resume-parent-not-recorded": (
        {"run2.sse": RUN2_SSE, "run2.request.json": RUN2_REQUEST},
        pair(),
        (),
    ),
    "resume-thread-mismatch": (
        pair(
            threadId="thread-other",
            run2_sse=RUN2_SSE.replace('"threadId":"thread-7f3c2a"', '"threadId":"thread-other"'),
        ),
        pair(),
        (),
    ),
    "resume-parent-not-interrupted": (
        {
            "run1.sse": sse(
                {**RS, "runId": RUN2_REQUEST["parentRunId"], "threadId": "thread-7f3c2a"},
                {**RF, "runId": RUN2_REQUEST["parentRunId"], "threadId": "thread-7f3c2a"},
            ),
            "run2.sse": RUN2_SSE,
            "run2.request.json": RUN2_REQUEST,
        },
        pair(),
        (),
    ),
    "resume-unknown-interrupt": (
        pair([APPROVE, {"interruptId": "bogus", "status": "resolved"}]),
        pair([APPROVE]),
        (),
    ),
    "resume-conflict": (pair([APPROVE, APPROVE]), pair([APPROVE]), ()),
    "resume-invalid-payload": (
        pair([{**APPROVE, "status": "cancelled"}]),
        pair([{"interruptId": APPROVE["interruptId"], "status": "cancelled"}]),
        (),
    ),
    "resume-invalid-edited-args": (
        pair([{**APPROVE, "payload": {"approved": True, "editedArgs": {"amount": "12"}}}]),
        pair(
            [
                {
                    **APPROVE,
                    "payload": {"approved": True, "editedArgs": {"amount": 12, "recipient": "Ada"}},
                }
            ]
        ),
        (),
    ),
    "resume-invalid-tool-output": (
        custom_pair(
            [CLIENT_TOOL],
            [{"interruptId": "client_tool_c1", "status": "resolved", "payload": {"color": 5}}],
        ),
        custom_pair(
            [CLIENT_TOOL],
            [{"interruptId": "client_tool_c1", "status": "resolved", "payload": {"color": "red"}}],
        ),
        (),
    ),
    "resume-invalid-response-schema": (
        custom_pair(
            [{**CLIENT_TOOL, "responseSchema": {"type": "object"}}],
            [{"interruptId": "client_tool_c1", "status": "resolved", "payload": {"color": "red"}}],
        ),
        custom_pair(
            [CLIENT_TOOL],
            [{"interruptId": "client_tool_c1", "status": "resolved", "payload": {"color": "red"}}],
        ),
        (),
    ),
    "resume-expired": (
        custom_pair([generic("2020-01-01T00:00:00.000Z")], [GENERIC_ANSWER]),
        custom_pair([generic()], [GENERIC_ANSWER]),
        (),
    ),
    "resume-stale": (
        custom_pair(
            [generic()],
            [{**GENERIC_ANSWER, "metadata": {"tanstack:interruptContinuation": {"v": 2}}}],
        ),
        custom_pair([generic()], [GENERIC_ANSWER]),
        (),
    ),
    "resume-incomplete-batch": (
        custom_pair(
            [generic(), CLIENT_TOOL], [{"interruptId": "client_tool_c1", "status": "cancelled"}]
        ),
        custom_pair(
            [generic(), CLIENT_TOOL],
            [GENERIC_ANSWER, {"interruptId": "client_tool_c1", "status": "cancelled"}],
        ),
        (),
    ),
    "resume-item-validation-failed": (pair([APPROVE, APPROVE]), pair([APPROVE]), ()),
    "translated": (
        one_run(RS, TC_START, TC_END, {**RF, "finishReason": "tool_calls"}, LEGACY),
        one_run(RS, TC_START, TC_END, {**RF, "finishReason": "tool_calls"}, LEGACY),
        ("--native",),
    ),
    "invented": (
        one_run(RS, TC_START, TC_END, {**RF, "finishReason": "tool_calls"}, LEGACY),
        CLEAN,
        ("--native",),
    ),
    "lost": (
        one_run(RS, TC_START, TC_END, {**RF, "finishReason": "tool_calls"}, LEGACY),
        CLEAN,
        ("--native",),
    ),
}
# `translated` stays silent without --native (the legacy event is then reported as such).
SILENT_ARGS: dict[str, tuple[str, ...]] = {"translated": ()}


def write(tmp_path: Path, files: Files) -> list[str]:
    names = []
    for name, content in files.items():
        text = content if isinstance(content, str) else json.dumps(content)
        (tmp_path / name).write_text(text, encoding="utf-8", newline="")
        if not name.endswith(".json"):
            names.append(str(tmp_path / name))
    return names


def rules_found(tmp_path: Path, files: Files, args: tuple[str, ...] = ()) -> set[str]:
    names = write(tmp_path, files)
    result = runner.invoke(app, ["replay", "--format", "json", *args, *names])
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    return {finding["rule"] for finding in report["findings"]}


def test_every_rule_has_a_case() -> None:
    assert set(CASES) == set(RULES_BY_ID)


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_fires(rule_id: str, tmp_path: Path) -> None:
    fire, _, args = CASES[rule_id]
    assert rule_id in rules_found(tmp_path, fire, args)


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_stays_silent(rule_id: str, tmp_path: Path) -> None:
    _, silent, args = CASES[rule_id]
    assert rule_id not in rules_found(tmp_path, silent, SILENT_ARGS.get(rule_id, args))


def test_the_native_pair_is_clean(tmp_path: Path) -> None:
    assert rules_found(tmp_path, pair()) == set()


def fire_exit(rule_id: str) -> int:
    return 1 if RULES_BY_ID[rule_id].severity == "error" else 0


@pytest.mark.parametrize("rule_id", ["invalid-json", "unclosed-message", "bare-json"])
def test_exit_code_follows_severity(rule_id: str, tmp_path: Path) -> None:
    fire, _, args = CASES[rule_id]
    names = write(tmp_path, fire)
    assert runner.invoke(app, ["replay", "--check", *args, *names]).exit_code == fire_exit(rule_id)
    strict = runner.invoke(app, ["replay", "--check", "--strict", *args, *names]).exit_code
    assert strict == (0 if RULES_BY_ID[rule_id].severity == "notice" else 1)


def test_an_event_without_a_string_type_is_named_as_such(tmp_path: Path) -> None:
    """A `type` that is not a string leaves no name to quote: the finding says so."""
    recording = tmp_path / "a.sse"
    recording.write_text(sse({"type": []}, RS, RF))
    result = runner.invoke(app, ["replay", "--check", str(recording)])
    assert result.exit_code == 1
    assert "event 0: error: an event without a type before any RUN_STARTED" in result.output
    assert ":  before" not in result.output


HISTORY_SHAPES = ("toolCalls", "parts", "both")


def _history_message(history_call: str, shape: str) -> dict[str, Any]:
    """The assistant message holding the call: AG-UI `toolCalls`, UIMessage `parts`, or
    both, as `@tanstack/ai-client` 0.22.1 sends it (the legacy approve recording)."""
    message: dict[str, Any] = {"id": "a1", "role": "assistant"}
    if shape in ("toolCalls", "both"):
        message["content"] = ""
        message["toolCalls"] = [
            {
                "id": history_call,
                "type": "function",
                "function": {"name": "pick", "arguments": "{}"},
            }
        ]
    if shape in ("parts", "both"):
        message["parts"] = [
            {"type": "text", "content": "I will pick."},
            {
                "type": "tool-call",
                "id": history_call,
                "name": "pick",
                "arguments": "{}",
                "state": "approval-responded",
                "approval": {
                    "id": f"approval_{history_call}",
                    "needsApproval": True,
                    "approved": True,
                },
            },
        ]
    return message


def _legacy_follow_up(
    history_call: str, *, with_request: bool = True, shape: str = "toolCalls"
) -> Files:
    """A 0.42.0 follow-up: the approved call streamed again, its result, then the run."""
    result = {"type": "TOOL_CALL_RESULT", "messageId": "m0", "toolCallId": "c1", "content": "{}"}
    files: Files = {"run.sse": sse(TC_START, TC_ARGS, TC_END, result, RS, RF)}
    if with_request:
        files["run.request.json"] = {
            "threadId": "t1",
            "runId": "r1",
            "messages": [
                {"id": "u1", "role": "user", "content": "go"},
                _history_message(history_call, shape),
            ],
            "tools": [],
            "context": [],
        }
    return files


@pytest.mark.parametrize("shape", HISTORY_SHAPES)
def test_a_legacy_follow_up_streaming_the_approved_call_first_is_clean(
    shape: str, tmp_path: Path
) -> None:
    """@tanstack/ai 0.42.0 streams the approved call of the request's history again
    before the follow-up's RUN_STARTED; it is the server's own order, not a finding.
    The history may name the call in `toolCalls`, in UIMessage `parts`, or in both."""
    assert rules_found(tmp_path, _legacy_follow_up("c1", shape=shape)) == set()


@pytest.mark.parametrize(
    "files",
    [
        _legacy_follow_up("c9"),
        _legacy_follow_up("c9", shape="parts"),
        _legacy_follow_up("c9", shape="both"),
        _legacy_follow_up("c1", with_request=False),
    ],
    ids=["call-not-in-history", "call-not-in-parts", "call-in-neither", "no-request"],
)
def test_a_call_the_history_does_not_hold_still_needs_run_started(
    files: Files, tmp_path: Path
) -> None:
    assert rules_found(tmp_path, files) == {"missing-run-started"}


def test_a_descriptor_naming_a_call_of_the_request_parts_is_known(tmp_path: Path) -> None:
    """`unknown-interrupt-tool-call` reads the request history the same way: a call the
    history names only in UIMessage `parts` is a call of this conversation."""
    files = one_run(RS, paused(descriptor(toolCallId="c7")))
    files["run.request.json"] = {
        "threadId": "t1",
        "runId": "r1",
        "messages": [_history_message("c7", "parts")],
        "tools": [],
        "context": [],
    }
    assert "unknown-interrupt-tool-call" not in rules_found(tmp_path, files)
    files["run.request.json"]["messages"] = [_history_message("c8", "parts")]
    assert "unknown-interrupt-tool-call" in rules_found(tmp_path, files)
