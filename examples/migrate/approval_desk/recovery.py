"""A recovery tool that replays validated resume entries after a crash."""

from __future__ import annotations

from typing import Any

from approval_desk.fake_client import FakeChatClient


def replay(client: FakeChatClient, entries: list[dict[str, Any]], run_id: str) -> bool:
    return client.resume_interrupts(entries, {"threadId": "thread-1", "runId": run_id})
