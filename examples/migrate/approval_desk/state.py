"""Reading what is pending, for the reviewer's dashboard."""

from __future__ import annotations

from approval_desk.fake_client import FakeChatClient


def pending_count(client: FakeChatClient) -> int:
    return len(client.pending_interrupts)


def pending_tools(chat: FakeChatClient) -> list[str]:
    return [item.tool_name for item in chat.get_pending_interrupts()]


def snapshot(client: FakeChatClient) -> int:
    state = client.get_interrupt_state()
    return len(client.get_interrupt_state()["pending_interrupts"]) + len(state["interrupts"])
