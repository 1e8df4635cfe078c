"""Answer specs: id resolution, option parsing, one clear error per mistake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay.resume.answers import (
    Action,
    AnswerOptions,
    answers_file_specs,
    resolve_answers,
    resolve_target,
    specs_from_options,
)
from replay.wire.errors import InvalidRequest

BINDING = "tanstack:interruptBinding"


def approval(call: str, tool: str) -> dict[str, Any]:
    return {
        "id": f"approval_{call}",
        "reason": "tool_call",
        "toolCallId": call,
        "responseSchema": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "approved": {"const": True},
                        "editedArgs": {"type": "object"},
                    },
                },
                {"type": "object", "properties": {"approved": {"const": False}}},
            ]
        },
        "metadata": {
            "kind": "approval",
            "toolName": tool,
            BINDING: {"v": 1, "kind": "tool-approval", "toolName": tool, "toolCallId": call},
        },
    }


CLIENT = {
    "id": "client_tool_call_c",
    "reason": "tanstack:client_tool_execution",
    "metadata": {BINDING: {"kind": "client-tool-execution", "toolName": "pick_color"}},
}
PLAN = {
    "id": "interrupt-1796-abc",
    "reason": "review",
    "responseSchema": {"type": "object", "properties": {"approved": {"type": "boolean"}}},
    "metadata": {BINDING: {"kind": "generic", "definitionId": "review-plan"}},
}
AUDIENCE = {
    "id": "interrupt-1796-abd",
    "reason": "audience",
    "responseSchema": {"type": "object", "properties": {"audience": {"type": "string"}}},
    "metadata": {BINDING: {"kind": "generic", "definitionId": "choose-audience"}},
}
TRANSFER = approval("call_transfer_1", "transfer")
DELETE = approval("call_delete_1", "delete_file")
BATCH = [TRANSFER, DELETE, CLIENT, PLAN, AUDIENCE]


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("approval_call_transfer_1", "approval_call_transfer_1"),
        ("transfer", "approval_call_transfer_1"),
        ("delete_file", "approval_call_delete_1"),
        ("approval_call_d", "approval_call_delete_1"),
        ("review-plan", "interrupt-1796-abc"),
        ("pick_color", "client_tool_call_c"),
        ("interrupt-1796-abd", "interrupt-1796-abd"),
    ],
)
def test_targets_resolve(target: str, expected: str) -> None:
    assert resolve_target(target, BATCH, option="--x") == expected


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("approval_call", "is a prefix of 2 ids"),
        ("nothing", "no pending interrupt matches 'nothing'"),
        ("interrupt-1796-ab", "is a prefix of 2 ids"),
    ],
)
def test_ambiguous_or_unknown_targets_are_refused(target: str, message: str) -> None:
    with pytest.raises(InvalidRequest, match=message):
        resolve_target(target, BATCH, option="--x")


def test_a_name_shared_by_two_items_is_ambiguous() -> None:
    twins = [approval("c1", "transfer"), approval("c2", "transfer")]
    with pytest.raises(InvalidRequest, match="names 2 items"):
        resolve_target("transfer", twins, option="--approve transfer")


def test_options_become_answers_in_batch_order() -> None:
    options = AnswerOptions(
        cancel=("review-plan",),
        approve=("transfer",),
        reject=("delete_file",),
        payload=('delete_file={"reason":"no"}',),
        answer=('pick_color={"color":"red"}', 'choose-audience={"audience":"all"}'),
    )
    answers = resolve_answers(specs_from_options(options), BATCH)
    assert list(answers) == [d["id"] for d in BATCH]
    assert answers["approval_call_transfer_1"].action is Action.APPROVE
    delete = answers["approval_call_delete_1"]
    assert (delete.action, delete.value, delete.has_value) == (
        Action.REJECT,
        {"reason": "no"},
        True,
    )
    assert answers["client_tool_call_c"].value == {"color": "red"}
    assert answers["interrupt-1796-abc"].action is Action.CANCEL


def test_payload_by_id_when_several_decisions() -> None:
    options = AnswerOptions(
        approve=("transfer",), reject=("delete_file",), payload=('delete_file={"r":1}',)
    )
    answers = resolve_answers(specs_from_options(options), BATCH)
    assert answers["approval_call_delete_1"].value == {"r": 1}
    assert not answers["approval_call_transfer_1"].has_value
    with pytest.raises(InvalidRequest, match="exactly one --approve or --reject"):
        specs_from_options(
            AnswerOptions(approve=("transfer",), reject=("delete_file",), payload=("{}",))
        )


@pytest.mark.parametrize(
    ("decision", "named"),
    [
        ("transfer", "approval_call_transfer_1"),  # a tool name, then the item's id
        ("approval_call_transfer_1", "transfer"),  # the id, then the tool name
        ("approval_call_tr", "transfer"),  # a unique id prefix, then the tool name
    ],
)
def test_a_payload_finds_its_decision_however_the_item_is_named(decision: str, named: str) -> None:
    options = AnswerOptions(
        approve=(decision,), reject=("delete_file",), payload=(f'{named}={{"note":"ok"}}',)
    )
    answers = resolve_answers(specs_from_options(options), BATCH)
    transfer = answers["approval_call_transfer_1"]
    assert (transfer.action, transfer.value, transfer.option) == (
        Action.APPROVE,
        {"note": "ok"},
        f"--approve {decision}",
    )
    assert not answers["approval_call_delete_1"].has_value


def test_a_payload_for_an_item_no_decision_answers_is_refused() -> None:
    options = AnswerOptions(cancel=("transfer",), payload=('approval_call_transfer_1={"n":1}',))
    with pytest.raises(InvalidRequest, match="no --approve, --reject or --approve-all answers"):
        resolve_answers(specs_from_options(options), BATCH)
    options = AnswerOptions(approve=("review-plan",), payload=('interrupt-1796-abc={"n":1}',))
    with pytest.raises(InvalidRequest, match="--payload applies to tool approvals"):
        resolve_answers(specs_from_options(options), BATCH)
    options = AnswerOptions(approve=("transfer",), payload=('nothing-like-it={"n":1}',))
    with pytest.raises(InvalidRequest, match="no pending interrupt matches 'nothing-like-it'"):
        resolve_answers(specs_from_options(options), BATCH)


def test_a_named_payload_goes_with_the_approval_of_approve_all() -> None:
    options = AnswerOptions(payload=('transfer={"note":"ok"}',))
    answers = resolve_answers(specs_from_options(options), BATCH, approve_all=True)
    transfer = answers["approval_call_transfer_1"]
    assert (transfer.action, transfer.value, transfer.option) == (
        Action.APPROVE,
        {"note": "ok"},
        "--approve-all",
    )
    assert not answers["approval_call_delete_1"].has_value


def test_a_payload_for_an_edit_points_at_the_whole_envelope() -> None:
    options = AnswerOptions(
        edit=('transfer={"amount":1}',), payload=('approval_call_transfer_1={"n":1}',)
    )
    with pytest.raises(InvalidRequest, match="carries edited arguments, not a payload") as error:
        resolve_answers(specs_from_options(options), BATCH)
    assert "--answer approval_call_transfer_1=" in str(error.value)


def test_two_payloads_for_one_item_named_two_ways_are_refused() -> None:
    options = AnswerOptions(
        approve=("transfer",),
        payload=('transfer={"n":1}', 'approval_call_transfer_1={"n":2}'),
    )
    with pytest.raises(InvalidRequest, match="--approve transfer: given two payloads"):
        resolve_answers(specs_from_options(options), BATCH)


def test_answering_twice_is_refused() -> None:
    options = AnswerOptions(approve=("transfer",), cancel=("approval_call_transfer_1",))
    with pytest.raises(InvalidRequest, match="already answered by --approve transfer"):
        resolve_answers(specs_from_options(options), BATCH)


def test_all_flags_fill_only_the_gaps() -> None:
    specs = specs_from_options(AnswerOptions(reject=("transfer",)))
    answers = resolve_answers(specs, BATCH, approve_all=True)
    assert answers["approval_call_transfer_1"].action is Action.REJECT
    assert answers["approval_call_delete_1"].action is Action.APPROVE
    assert "client_tool_call_c" not in answers
    answers = resolve_answers([], BATCH, cancel_all=True)
    assert {a.action for a in answers.values()} == {Action.CANCEL}
    with pytest.raises(InvalidRequest, match="exclude each other"):
        resolve_answers([], BATCH, approve_all=True, cancel_all=True)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (AnswerOptions(approve=("pick_color",)), "is a client tool"),
        (AnswerOptions(approve=("choose-audience",)), "without a boolean 'approved'"),
        (AnswerOptions(edit=('review-plan={"a":1}',)), "not a tool approval"),
        (AnswerOptions(edit=("transfer=[1]",)), "must be a JSON object"),
        (AnswerOptions(answer=("transfer={bad",)), "not valid JSON"),
        (AnswerOptions(answer=("=1",)), "expected ID=JSON"),
    ],
)
def test_wrong_kind_of_answer_is_one_clear_error(options: AnswerOptions, message: str) -> None:
    with pytest.raises(InvalidRequest, match=message):
        resolve_answers(specs_from_options(options), BATCH)


def test_generic_with_boolean_approved_takes_approve() -> None:
    answers = resolve_answers(specs_from_options(AnswerOptions(reject=("review-plan",))), BATCH)
    assert answers["interrupt-1796-abc"].action is Action.REJECT


def test_answer_from_file(tmp_path: Path) -> None:
    payload = tmp_path / "color.json"
    payload.write_text('{"color": "blue"}', encoding="utf-8")
    options = AnswerOptions(answer=(f"pick_color=@{payload}",))
    answers = resolve_answers(specs_from_options(options), BATCH)
    assert answers["client_tool_call_c"].value == {"color": "blue"}
    with pytest.raises(InvalidRequest, match="cannot read"):
        specs_from_options(AnswerOptions(answer=(f"x=@{tmp_path / 'missing.json'}",)))


def test_answers_file(tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    path.write_text(
        json.dumps(
            {
                "transfer": {"approved": True},
                "review-plan": {"status": "cancelled"},
                "choose-audience": {"status": "resolved", "payload": {"audience": "beta"}},
            }
        ),
        encoding="utf-8",
    )
    answers = resolve_answers(answers_file_specs(str(path)), BATCH)
    assert answers["approval_call_transfer_1"].value == {"approved": True}
    assert answers["interrupt-1796-abc"].action is Action.CANCEL
    assert answers["interrupt-1796-abd"].value == {"audience": "beta"}
    path.write_text('{"review-plan": {"status": "cancelled", "payload": 1}}', encoding="utf-8")
    with pytest.raises(InvalidRequest, match="carries no payload"):
        answers_file_specs(str(path))
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(InvalidRequest, match="must hold a JSON object"):
        answers_file_specs(str(path))
