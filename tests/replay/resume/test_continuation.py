"""The continuation body equals what the real ChatClient posted, for every recorded case."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from replay.interrupts.batch import validate_batch
from replay.interrupts.descriptor_reader import CONTINUATION_KEY
from replay.resume.answers import AnswerOptions, resolve_answers, specs_from_options
from replay.resume.continuation import (
    build_resume,
    continuation_body,
    generic_continuation,
    new_run_id,
)
from replay.resume.hand_built_run import hand_built_items, hand_built_run
from replay.resume.paused_run import PausedRun, choose_run, paused_run_from, read_runs
from replay.wire.errors import InvalidRequest
from replay.wire.recording import open_recordings

NATIVE = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "native"
PLAN_OK = '{"approved":true,"note":"Looks good"}'

# case -> the answer options that reproduce the real client's answers (see cases.py).
CASES: dict[str, AnswerOptions] = {
    "tool-approval.approve": AnswerOptions(approve=("transfer",)),
    "tool-approval.approve-edited": AnswerOptions(
        edit=('transfer={"amount":12,"recipient":"Ada"}',)
    ),
    "tool-approval.reject": AnswerOptions(reject=("transfer",)),
    "tool-approval.cancel": AnswerOptions(cancel=("approval_call_transfer_1",)),
    "tool-approval-schema.reject": AnswerOptions(
        reject=("transfer",), payload=('{"reason":"limit"}',)
    ),
    "client-tool.add-tool-result": AnswerOptions(answer=('pick_color={"color":"green"}',)),
    "client-tool.auto": AnswerOptions(answer=('client_tool={"color":"blue"}',)),
    "generic-before-model.resolved": AnswerOptions(answer=(f"review-plan={PLAN_OK}",)),
    "generic-before-model.rejected": AnswerOptions(reject=("review-plan",)),
    "generic-before-model.cancelled": AnswerOptions(cancel=("review-plan",)),
    "generic-after-model.resolved": AnswerOptions(answer=(f"review-plan={PLAN_OK}",)),
    "generic-before-tools.resolved": AnswerOptions(answer=(f"review-plan={PLAN_OK}",)),
    "generic-after-tools.resolved": AnswerOptions(answer=(f"review-plan={PLAN_OK}",)),
    "generic-two-cards.one-cancelled": AnswerOptions(
        answer=(f"review-plan={PLAN_OK}",), cancel=("choose-audience",)
    ),
    "generic-expiring.resolved": AnswerOptions(answer=(f"interrupt-={PLAN_OK}",)),
    "mixed.approve-and-resolve": AnswerOptions(
        approve=("approval",), answer=(f"review-plan={PLAN_OK}",)
    ),
    "two-approvals.approve-both": AnswerOptions(approve_all=True),
    "two-approvals.approve-one-reject-other": AnswerOptions(
        approve=("transfer",), reject=("delete_file",)
    ),
}


def comparable(body: dict[str, Any]) -> dict[str, Any]:
    """A body without what changes on every run: the run id and `createdAt` stamps."""
    body = copy.deepcopy(body)
    body.pop("runId", None)
    for message in body.get("messages", []):
        tanstack = message.get("metadata", {}).get("tanstack", {})
        tanstack.pop("createdAt", None)
    return body


def paused(case: str) -> PausedRun:
    runs = read_runs(open_recordings([str(NATIVE / f"{case}.run1.sse")]))
    run = choose_run(runs.runs, None)
    assert run.terminal is not None
    return paused_run_from(run, tool_call_metadata=runs.tool_call_metadata[run.terminal.location])


def build(case: str, options: AnswerOptions) -> dict[str, Any]:
    run = paused(case)
    answers = resolve_answers(
        specs_from_options(options),
        run.interrupts,
        approve_all=options.approve_all,
        cancel_all=options.cancel_all,
    )
    resume = build_resume(run.interrupts, answers)
    assert (
        validate_batch(
            run.interrupts,
            resume,
            thread_id=run.thread_id,
            interrupted_run_id=run.run_id,
            client_rules=True,
        )
        == []
    )
    return continuation_body(run, resume, run_id="run-test")


@pytest.mark.parametrize("case", sorted(CASES))
def test_body_equals_the_real_clients(case: str) -> None:
    expected = json.loads((NATIVE / f"{case}.resume.json").read_text(encoding="utf-8"))
    body = build(case, CASES[case])
    assert comparable(body) == comparable(expected)
    # Same key order as the client at the top level and in every resume entry.
    assert list(body) == list(expected)
    assert [list(e) for e in body["resume"]] == [list(e) for e in expected["resume"]]
    assert body["runId"] == "run-test"
    assert body["parentRunId"] == expected["parentRunId"]


def test_every_recorded_native_case_is_covered() -> None:
    recorded = {p.name.removesuffix(".resume.json") for p in NATIVE.glob("*.resume.json")}
    assert recorded == set(CASES)


def test_tool_call_metadata_only_for_calls_with_a_streamed_result() -> None:
    body = build("generic-after-tools.resolved", CASES["generic-after-tools.resolved"])
    anchor = body["messages"][1]
    assert anchor["metadata"]["tanstack"]["toolCallMetadata"] == {
        "call_changes_1": {"tanstack": {"model": "scripted-1", "index": 0}}
    }
    body = build("tool-approval.approve", CASES["tool-approval.approve"])
    assert "toolCallMetadata" not in body["messages"][1]["metadata"]["tanstack"]


def test_new_run_id_looks_like_the_clients() -> None:
    digits = iter(range(36))
    run_id = new_run_id(clock=lambda: 1796035061.1005, randbelow=lambda _n: next(digits))
    assert run_id == "run-1796035061100-012345"


def test_generic_continuation_copies_the_descriptor() -> None:
    run = paused("generic-expiring.resolved")
    (descriptor,) = run.interrupts
    continuation = generic_continuation(descriptor)
    assert continuation is not None
    assert continuation["expiresAt"] == "2099-01-01T00:00:00.000Z"
    assert continuation["batchIndex"] == 0
    assert continuation["payload"] == {
        "changes": ["Add search", "Add tests"],
        "title": "Release plan",
    }
    # Inputs are never mutated.
    assert descriptor["metadata"]["tanstack:interruptPayload"]["title"] == "Release plan"


def test_unbound_items_get_plain_entries() -> None:
    descriptor = {
        "id": "strands-1",
        "reason": "tool_approval",
        "metadata": {"toolName": "delete", "input": {"path": "/tmp"}},
    }
    specs = specs_from_options(AnswerOptions(approve=("strands",)))
    answers = resolve_answers(specs, [descriptor])
    assert build_resume([descriptor], answers) == [
        {"interruptId": "strands-1", "payload": {"approved": True}, "status": "resolved"}
    ]


def test_hand_built_generic_item_matches_the_docs() -> None:
    items = [
        {
            "interruptId": "generic-1",
            "status": "resolved",
            "payload": {"approved": True},
            "metadata": {
                CONTINUATION_KEY: {
                    "v": 1,
                    "definitionId": "review-plan",
                    "key": "turn-1",
                    "batchIndex": 0,
                    "reason": "review",
                    "message": "Review the plan",
                    "responseSchemaHash": "sha256:" + "1" * 64,
                }
            },
        }
    ]
    descriptors, specs = hand_built_items(items, run_id="run-1", source="items.json")
    run = hand_built_run(thread_id="t", run_id="run-1", descriptors=descriptors)
    answers = resolve_answers(specs, run.interrupts)
    resume = build_resume(run.interrupts, answers)
    assert resume == [
        {
            "interruptId": "generic-1",
            "metadata": {
                CONTINUATION_KEY: {
                    "batchIndex": 0,
                    "definitionId": "review-plan",
                    "key": "turn-1",
                    "message": "Review the plan",
                    "reason": "review",
                    "responseSchemaHash": "sha256:" + "1" * 64,
                    "v": 1,
                }
            },
            "payload": {"approved": True},
            "status": "resolved",
        }
    ]
    body = continuation_body(run, resume, run_id="run-2")
    assert body["parentRunId"] == "run-1"
    assert (body["tools"], body["context"], body["state"]) == ([], [], {})


def test_short_generic_item_hashes_its_schema() -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    descriptors, specs = hand_built_items(
        [
            {
                "id": "g1",
                "definitionId": "d",
                "key": "k",
                "batchIndex": 0,
                "reason": "r",
                "message": "m",
                "responseSchema": schema,
            }
        ],
        run_id="run-1",
        source="items.json",
    )
    binding = descriptors[0]["metadata"]["tanstack:interruptBinding"]
    assert binding["responseSchemaHash"].startswith("sha256:")
    assert binding["interruptedRunId"] == "run-1"
    assert specs == []


def test_bad_hand_built_items_are_refused() -> None:
    with pytest.raises(InvalidRequest, match="batchIndex"):
        hand_built_items(
            [{"id": "g", "definitionId": "d", "key": "k", "reason": "r", "message": "m"}],
            run_id="r",
            source="items.json",
        )
    with pytest.raises(InvalidRequest, match="JSON array"):
        hand_built_items({"nope": 1}, run_id="r", source="items.json")


def test_choose_run_by_id_and_refuses_finished_runs() -> None:
    runs = read_runs(
        open_recordings(
            [
                str(NATIVE / "tool-approval.approve.run1.sse"),
                str(NATIVE / "tool-approval.approve.run2.sse"),
            ]
        )
    ).runs
    first, second = runs
    assert choose_run([first], None) is first
    assert choose_run([first], first.run_id) is first
    with pytest.raises(InvalidRequest, match="not an interrupt"):
        choose_run(runs, second.run_id)
    with pytest.raises(InvalidRequest, match="no such run"):
        choose_run(runs, "run-nope")
    with pytest.raises(InvalidRequest, match="no paused run") as error:
        choose_run([second], None)
    assert "legacy" not in str(error.value)


def test_a_legacy_recording_is_pointed_at_translate() -> None:
    # it said only "no paused run to resume (run-…: success)"
    legacy = NATIVE.parents[2].parent / "examples" / "legacy" / "tool-approval.0.42.0.sse"
    runs = read_runs(open_recordings([str(legacy)])).runs
    with pytest.raises(InvalidRequest, match="no paused run") as error:
        choose_run(runs, None)
    assert str(error.value).endswith(
        "; it holds legacy approval events: translate it first "
        "(agui translate RECORDING --tools tools.json -o native.sse)"
    )
