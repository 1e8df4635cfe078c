"""Single approvals: the reviewer answers one transfer at a time."""

from __future__ import annotations

from dataclasses import dataclass

from approval_desk.fake_client import FakeChatClient

LIMIT = 1_000


@dataclass
class Approval:
    id: str
    amount: int


def approve(client: FakeChatClient, approval: Approval) -> None:
    # The reviewer clicked "approve".
    client.add_tool_approval_response({"id": approval.id, "approved": True})  # one item


def reject(client: FakeChatClient, approval_id: str) -> None:
    client.add_tool_approval_response(id=approval_id, approved=False)


def decide(client: FakeChatClient, approval: Approval) -> None:
    within_limit = approval.amount <= LIMIT
    client.add_tool_approval_response(
        id=approval.id,
        approved=within_limit,
    )


async def approve_later(chat: FakeChatClient, approval: Approval) -> None:
    await chat.add_tool_approval_response({"id": approval.id, "approved": True})


class Desk:
    """Wraps the client the way many apps do: the receiver is `self.chat_client`."""

    def __init__(self, chat_client: FakeChatClient) -> None:
        self.chat_client = chat_client

    def approve_first(self, interrupt: str) -> None:
        # `interrupt` is already a name here: the rewrite must pick a fresh one.
        self.chat_client.add_tool_approval_response(id=interrupt, approved=True)

    def quick(self, approval_id: str) -> bool:
        # An expression position: the answer's result is used, so only a TODO fits here.
        return self.chat_client.add_tool_approval_response(id=approval_id, approved=True) is not None
