"""Interactive answers: questions built from the responseSchema, driven by scripted replies."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from rich.console import Console

from cli.prompts import Prompter, prompt_text
from replay.resume.answers import Action

APPROVAL: dict[str, Any] = {
    "id": "approval_call_1",
    "reason": "tool_call",
    "message": "Approval required to run transfer",
    "responseSchema": {
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "approved": {"const": True},
                    "editedArgs": {
                        "type": "object",
                        "properties": {
                            "amount": {"type": "number"},
                            "recipient": {"type": "string"},
                        },
                        "required": ["amount", "recipient"],
                    },
                },
            },
            {
                "type": "object",
                "properties": {
                    "approved": {"const": False},
                    "payload": {"type": "object", "properties": {"reason": {"type": "string"}}},
                },
            },
        ]
    },
    "metadata": {
        "tanstack:interruptBinding": {
            "kind": "tool-approval",
            "toolName": "transfer",
            "originalArgs": {"amount": 42, "recipient": "Ada"},
        }
    },
}
GENERIC: dict[str, Any] = {
    "id": "interrupt-1",
    "reason": "review-required",
    "responseSchema": {
        "type": "object",
        "properties": {
            "approved": {"type": "boolean"},
            "level": {"enum": ["low", "high"]},
            "count": {"type": "integer"},
            "note": {"type": "string"},
        },
        "required": ["approved", "level"],
    },
    "metadata": {
        "tanstack:interruptBinding": {"kind": "generic", "definitionId": "review-plan"},
        "tanstack:interruptPayload": {"title": "Release plan"},
    },
}


def scripted(*replies: str) -> tuple[Prompter, io.StringIO, Callable[[str], str]]:
    out = io.StringIO()
    queue = list(replies)

    def ask(_question: str) -> str:
        return queue.pop(0)

    return Prompter(Console(file=out, width=100), ask), out, ask


def test_approval_edit_uses_original_args_as_defaults() -> None:
    prompter, out, _ = scripted("e", "12", "")
    spec = prompter.answer(APPROVAL)
    assert (spec.action, spec.value) == (Action.EDIT, {"amount": 12, "recipient": "Ada"})
    shown = out.getvalue()
    assert "Approval required to run transfer" in shown
    assert 'tool transfer {"amount": 42, "recipient": "Ada"}' in shown


def test_the_question_offers_only_what_can_be_typed() -> None:
    # it asked "approve, reject, edit or cancel? [a/r/c/e]" also where "e" was no choice
    asked: list[str] = []

    def ask(question: str) -> str:
        asked.append(question)
        return "a"

    approve_only = {"type": "object", "properties": {"approved": {"const": True}}}
    reject_only = {"type": "object", "properties": {"approved": {"const": False}}}
    no_edit = {**APPROVAL, "responseSchema": {"oneOf": [approve_only, reject_only]}}
    Prompter(Console(file=io.StringIO(), width=100), ask).answer(no_edit)
    Prompter(Console(file=io.StringIO(), width=100), ask).answer(APPROVAL)
    assert asked == [
        "  approve, reject or cancel? [a/r/c] (a=approve, r=reject, c=cancel): ",
        "  approve, reject, edit or cancel? [a/r/e/c] (a=approve, r=reject, e=edit, c=cancel): ",
    ]


def test_an_approval_of_unknown_schemas_may_be_edited_as_json() -> None:
    # A legacy pause translated without --tools has no responseSchema: `--edit` is let
    # through to the server there, and the prompt offered no edit at all.
    unknown = {key: value for key, value in APPROVAL.items() if key != "responseSchema"}
    prompter, _, _ = scripted("e", '{"amount": 7, "recipient": "Bo"}')
    spec = prompter.answer(unknown)
    assert (spec.action, spec.value) == (Action.EDIT, {"amount": 7, "recipient": "Bo"})
    prompter, _, _ = scripted("e", "")
    assert prompter.answer(unknown).value == {"amount": 42, "recipient": "Ada"}


def test_edited_arguments_of_unknown_schemas_are_asked_again_until_an_object() -> None:
    # Any JSON was taken (`7`, `[1]`), which the resume then refused as a whole ("edited
    # arguments must be a JSON object"), the answers given so far lost.
    unknown = {key: value for key, value in APPROVAL.items() if key != "responseSchema"}
    prompter, out, _ = scripted("e", "7", "[1]", '{"amount": 7}')
    assert prompter.answer(unknown).value == {"amount": 7}
    assert out.getvalue().count("not a valid JSON object value") == 2


def test_rejection_asks_for_the_branch_payload() -> None:
    prompter, _, _ = scripted("reject", "over limit")
    spec = prompter.answer(APPROVAL)
    assert (spec.action, spec.value, spec.has_value) == (
        Action.REJECT,
        {"reason": "over limit"},
        True,
    )


def test_generic_questions_follow_the_schema_and_retry_bad_input() -> None:
    prompter, out, _ = scripted("a", "maybe", "y", "medium", "high", "x", "3", "")
    spec = prompter.answer(GENERIC)
    assert (spec.action, spec.value) == (
        Action.ANSWER,
        {"approved": True, "level": "high", "count": 3},
    )
    shown = out.getvalue()
    assert "review-required" in shown  # no message: the reason is the prompt
    assert 'payload {"title": "Release plan"}' in shown
    assert "not a valid" in shown


def test_cancel_and_prompt_text_fallbacks() -> None:
    prompter, _, _ = scripted("c")
    assert prompter.answer(GENERIC).action is Action.CANCEL
    assert prompt_text({"id": "x", "reason": "", "message": " "}) == "(no message)"
