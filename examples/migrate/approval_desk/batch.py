"""Batches: approve or deny everything that is pending."""

from __future__ import annotations

from approval_desk.fake_client import FakeChatClient


def approve_all(client: FakeChatClient) -> None:
    for approval in client.pending_interrupts:
        client.add_tool_approval_response(id=approval.id, approved=True)


def approve_small(client: FakeChatClient, amounts: dict[str, int]) -> None:
    # Not one literal answer for every item: this loop needs a human.
    for approval_id, amount in amounts.items():
        client.add_tool_approval_response(id=approval_id, approved=amount < 100)
