"""Run every scenario against the fake client and print what was submitted."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from approval_desk import batch, events, recovery, review, state
from approval_desk.audit import record
from approval_desk.fake_client import FakeChatClient


def run_demo() -> dict[str, Any]:
    client = FakeChatClient()
    seen: dict[str, Any] = {}

    client.pause("approval_call_1")
    seen["pending"] = state.pending_count(client)
    seen["tools"] = state.pending_tools(client)
    seen["snapshot"] = state.snapshot(client)
    review.approve(client, review.Approval("approval_call_1", 12))

    client.pause("approval_call_2")
    review.reject(client, "approval_call_2")

    client.pause("approval_call_3")
    review.decide(client, review.Approval("approval_call_3", 5_000))

    client.pause("approval_call_4")
    asyncio.run(review.approve_later(client, review.Approval("approval_call_4", 3)))

    client.pause("approval_call_5")
    review.Desk(client).approve_first("approval_call_5")

    client.pause("approval_call_6")
    seen["quick"] = review.Desk(client).quick("approval_call_6")

    client.pause("approval_call_7", "approval_call_8")
    batch.approve_all(client)

    client.pause("approval_call_9", "approval_call_10")
    batch.approve_small(client, {"approval_call_9": 50, "approval_call_10": 500})

    seen["replayed"] = recovery.replay(
        client, [{"interruptId": "approval_call_11", "status": "cancelled"}], "run-11"
    )
    seen["audit"] = record(2)
    event = events.approval_event("call_12", "transfer", {"amount": 1})
    seen["legacy_event"] = events.is_approval_request(event)
    seen["submissions"] = client.submissions
    return seen


if __name__ == "__main__":
    print(json.dumps(run_demo(), indent=2, sort_keys=True))
