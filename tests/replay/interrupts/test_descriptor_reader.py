"""Reading descriptors of real TanStack recordings: kinds, bindings, expiry, approval branches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import replay.interrupts.descriptor_reader as reader
from replay.interrupts.descriptor_reader import InterruptKind, kind_of

REFERENCE = Path(__file__).parent.parent.parent / "fixtures" / "reference"


def interrupts_of(name: str) -> list[dict[str, Any]]:
    text = (REFERENCE / name).read_text("utf-8")
    blocks = [block for block in text.split("\n\n") if block.strip()]
    terminal = json.loads(blocks[-1][len("data: ") :])
    assert terminal["type"] == "RUN_FINISHED"
    interrupts: list[dict[str, Any]] = terminal["outcome"]["interrupts"]
    return interrupts


def test_kinds_come_from_the_binding_then_the_legacy_marker() -> None:
    assert kind_of({"id": "x", "metadata": {"kind": "client_tool"}}) is InterruptKind.CLIENT_TOOL
    assert kind_of({"id": "x", "metadata": {"kind": "approval"}}) is InterruptKind.TOOL_APPROVAL
    assert kind_of({"id": "x", "reason": "tool_call"}) is InterruptKind.UNBOUND
    bound_oddly = {"metadata": {"tanstack:interruptBinding": {"kind": "telepathy"}}}
    assert kind_of(bound_oddly) is InterruptKind.UNBOUND
    assert kind_of(interrupts_of("generic-before-model.resolved.run1.sse")[0]) is (
        InterruptKind.GENERIC
    )


def test_a_binding_is_read_only_when_it_is_an_object() -> None:
    approval = interrupts_of("tool-approval.approve.run1.sse")[0]
    binding = reader.binding_of(approval)
    assert binding is not None
    assert binding["kind"] == "tool-approval"
    assert reader.binding_of({"metadata": {"tanstack:interruptBinding": "approval"}}) is None
    assert reader.binding_of({"metadata": None}) is None


def test_approval_branches_split_the_response_schema_by_decision() -> None:
    approval = interrupts_of("tool-approval.approve.run1.sse")[0]
    branches = reader.approval_branches(approval)
    assert sorted(branches) == [False, True]
    edited = reader.branch_schema(branches[True], "editedArgs")
    assert edited is not None
    assert edited["required"] == ["amount", "recipient"]
    assert reader.branch_schema(branches[False], "editedArgs") is None
    assert reader.branch_schema(None, "payload") is None
    assert reader.approval_branches({"responseSchema": {"oneOf": "no"}}) == {}


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("2099-01-01T00:00:00.000Z", True),
        ("2099-01-01", True),
        ("Fri, 01 Jan 2099 00:00:00 GMT", True),
        ("soon", False),
        ("", False),
    ],
)
def test_expires_at_parsing(text: str, valid: bool) -> None:
    assert (reader.parse_expires_at(text) is not None) is valid
