"""Resume-batch validation against real TanStack recordings and the server's own errors."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from replay.interrupts.batch import missing_parent_errors, validate_batch
from replay.interrupts.interrupt_errors import run_error_event

REFERENCE = Path(__file__).parent.parent.parent / "fixtures" / "reference"
NOW = datetime(2026, 11, 30, tzinfo=UTC)


def sse_events(name: str) -> list[dict[str, Any]]:
    text = (REFERENCE / name).read_text("utf-8")
    return [json.loads(block[len("data: ") :]) for block in text.split("\n\n") if block.strip()]


def pending_of(name: str) -> tuple[list[dict[str, Any]], str, str]:
    terminal = sse_events(name)[-1]
    assert terminal["type"] == "RUN_FINISHED"
    return terminal["outcome"]["interrupts"], terminal["threadId"], terminal["runId"]


def errors_for(run1: str, resume: list[dict[str, Any]], **kw: Any) -> list[dict[str, Any]]:
    pending, thread_id, run_id = pending_of(run1)
    errors = validate_batch(
        pending, resume, thread_id=thread_id, interrupted_run_id=run_id, now=NOW, **kw
    )
    return [error.to_wire(thread_id=thread_id, interrupted_run_id=run_id) for error in errors]


CASES = [
    "tool-approval.approve",
    "tool-approval.approve-edited",
    "tool-approval.reject",
    "tool-approval.cancel",
    "generic-before-model.resolved",
    "generic-before-model.rejected",
    "generic-before-model.cancelled",
    "two-approvals.approve-both",
    "client-tool.add-tool-result",
]


@pytest.mark.parametrize("case", CASES)
def test_what_the_real_client_posted_is_accepted(case: str) -> None:
    body = json.loads((REFERENCE / f"{case}.resume.json").read_text("utf-8"))
    pending, thread_id, run_id = pending_of(f"{case}.run1.sse")
    assert body["parentRunId"] == run_id
    assert (
        validate_batch(
            pending,
            body["resume"],
            thread_id=thread_id,
            interrupted_run_id=run_id,
            now=NOW,
            client_rules=True,
        )
        == []
    )


def test_unknown_and_missing_entries_match_the_servers_run_error() -> None:
    expected = sse_events("run-error-incomplete-and-unknown.sse")[0]
    pending, thread_id, run_id = pending_of("native-terminal-approval-and-client-tool.sse")
    resume = [
        {"interruptId": "approval_call_1", "status": "resolved", "payload": {"approved": True}},
        {"interruptId": "bogus", "status": "resolved", "payload": True},
    ]
    errors = validate_batch(
        pending, resume, thread_id=thread_id, interrupted_run_id=run_id, now=NOW
    )
    event = run_error_event(
        errors,
        run_id="run-2",
        thread_id=thread_id,
        interrupted_run_id=run_id,
        timestamp=expected["timestamp"],
    )
    assert event == expected


def test_missing_parent_run_id_is_one_stale_error() -> None:
    expected = sse_events("run-error-missing-parentRunId.sse")[0]
    errors = missing_parent_errors([{"interruptId": "approval_call_1", "status": "resolved"}])
    event = run_error_event(
        errors,
        run_id="run-2",
        thread_id="thread-1",
        interrupted_run_id="run-2",
        timestamp=expected["timestamp"],
    )
    assert event["code"] == expected["code"] == "stale"
    assert event["message"] == expected["message"]
    assert (
        event["metadata"]["tanstack"]["interruptErrors"]
        == expected["metadata"]["tanstack"]["interruptErrors"]
    )


def approve(payload: Any, interrupt_id: str = "approval_call_transfer_1") -> list[dict[str, Any]]:
    return [{"interruptId": interrupt_id, "status": "resolved", "payload": payload}]


def codes(errors: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(error["scope"], error["code"]) for error in errors]


def test_cancelled_with_payload_is_invalid_payload() -> None:
    resume = [{"interruptId": "approval_call_transfer_1", "status": "cancelled", "payload": None}]
    errors = errors_for("tool-approval.approve.run1.sse", resume)
    assert codes(errors) == [("item", "invalid-payload"), ("batch", "item-validation-failed")]
    assert (
        errors[0]["message"]
        == "Cancelled interrupt approval_call_transfer_1 must not include a payload."
    )


def test_a_string_is_not_an_approval() -> None:
    errors = errors_for("tool-approval.approve.run1.sse", approve("yes"))
    assert errors[0]["message"] == (
        "Approval approval_call_transfer_1 must be a boolean or decision envelope."
    )


def test_edited_args_are_checked_against_the_input_schema_one_error_per_path() -> None:
    payload = {"approved": True, "editedArgs": {"amount": "lots", "recipient": 5}}
    errors = errors_for("tool-approval.approve.run1.sse", approve(payload))
    assert codes(errors) == [
        ("item", "invalid-edited-args"),
        ("item", "invalid-edited-args"),
        ("batch", "item-validation-failed"),
    ]
    assert [error["path"] for error in errors[:2]] == [["amount"], ["recipient"]]


def test_duplicate_entries_conflict() -> None:
    errors = errors_for("tool-approval.approve.run1.sse", approve(True) * 2)
    assert codes(errors) == [("item", "conflict"), ("batch", "item-validation-failed")]


def test_the_server_accepts_a_rejection_with_edits_but_the_client_does_not() -> None:
    payload = {"approved": False, "editedArgs": {"amount": 1, "recipient": "Bob"}}
    assert errors_for("tool-approval.approve.run1.sse", approve(payload)) == []
    strict = errors_for("tool-approval.approve.run1.sse", approve(payload), client_rules=True)
    assert codes(strict)[0] == ("item", "invalid-payload")


def generic_resume(**changes: Any) -> list[dict[str, Any]]:
    body = json.loads((REFERENCE / "generic-before-model.resolved.resume.json").read_text("utf-8"))
    resume = copy.deepcopy(body["resume"])
    resume[0]["metadata"]["tanstack:interruptContinuation"].update(changes)
    return resume


def test_a_generic_payload_is_validated_against_the_response_schema() -> None:
    resume = generic_resume()
    resume[0]["payload"] = {"approved": "maybe"}
    errors = errors_for("generic-before-model.resolved.run1.sse", resume)
    assert codes(errors) == [("item", "invalid-payload"), ("batch", "item-validation-failed")]
    assert errors[0]["path"] == ["approved"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"responseSchemaHash": "sha256:00"}, "does not match its definition."),
        ({"definitionId": "other"}, "Generic interrupt definition other is unavailable."),
        ({"v": 2}, "Generic interrupt continuation contains invalid fields."),
        ({"key": "  "}, "Interrupt key must be a non-empty string."),
    ],
)
def test_a_bad_generic_continuation_is_one_stale_batch_error(
    changes: dict[str, Any], message: str
) -> None:
    errors = errors_for("generic-before-model.resolved.run1.sse", generic_resume(**changes))
    assert codes(errors) == [("batch", "stale")]
    assert errors[0]["message"].endswith(message)
    assert errors[0]["interruptIds"] == []


def test_an_expired_interrupt_is_refused() -> None:
    pending, thread_id, run_id = pending_of("native-terminal-generic-with-state.sse")
    later = datetime(2100, 1, 1, tzinfo=UTC)
    resume = [
        {
            "interruptId": pending[0]["id"],
            "status": "cancelled",
            "metadata": {
                "tanstack:interruptContinuation": {
                    "v": 1,
                    "definitionId": "review-plan",
                    "key": "initial-plan",
                    "batchIndex": 0,
                    "reason": "review-required",
                    "message": "Review the proposed plan.",
                    "expiresAt": "2099-01-01T00:00:00.000Z",
                    "responseSchemaHash": pending[0]["metadata"]["tanstack:interruptBinding"][
                        "responseSchemaHash"
                    ],
                    "payloadSchemaHash": pending[0]["metadata"]["tanstack:interruptBinding"][
                        "payloadSchemaHash"
                    ],
                }
            },
        }
    ]
    assert (
        validate_batch(pending, resume, thread_id=thread_id, interrupted_run_id=run_id, now=NOW)
        == []
    )
    errors = validate_batch(
        pending, resume, thread_id=thread_id, interrupted_run_id=run_id, now=later
    )
    assert [(e.code, e.source) for e in errors] == [
        ("expired", "server"),
        ("item-validation-failed", "client"),
    ]


def test_a_binding_for_another_run_is_stale() -> None:
    pending, thread_id, _ = pending_of("tool-approval.approve.run1.sse")
    errors = validate_batch(
        pending, approve(True), thread_id=thread_id, interrupted_run_id="other", now=NOW
    )
    assert errors[0].code == "stale"


def _without_schemas(descriptor: dict[str, Any]) -> dict[str, Any]:
    """The approval as `agui translate` writes it without --tools: no responseSchema."""
    bare = copy.deepcopy(descriptor)
    bare.pop("responseSchema")
    bare["metadata"].pop("tanstack:interruptBinding")
    return bare


@pytest.mark.parametrize(
    ("payload", "refused_with_the_schema"),
    [
        ({"approved": True, "editedArgs": {"amount": 7, "recipient": "Bo"}}, False),
        ({"approved": True, "editedArgs": {"amount": "x", "recipient": "Bo"}}, True),
        ({"approved": True, "payload": {"note": "ok"}}, True),
    ],
    ids=["edited-args", "edited-args-the-schema-refuses", "payload"],
)
def test_an_approval_without_a_response_schema_leaves_edits_and_payloads_to_the_server(
    payload: dict[str, Any], refused_with_the_schema: bool
) -> None:
    """Its tool's schemas are unknown here; the server judges them by its own tool (and
    runs an edit), so neither the server's rules nor the client's refuse them."""
    pending, thread_id, run_id = pending_of("tool-approval.approve.run1.sse")
    bare = [_without_schemas(descriptor) for descriptor in pending]
    for client_rules in (False, True):
        errors = validate_batch(
            bare,
            approve(payload),
            thread_id=thread_id,
            interrupted_run_id=run_id,
            now=NOW,
            client_rules=client_rules,
        )
        assert errors == []
    known = errors_for("tool-approval.approve.run1.sse", approve(payload), client_rules=True)
    assert bool(known) is refused_with_the_schema
