"""The app's server side still speaks the legacy CUSTOM approval events."""

from __future__ import annotations

from typing import Any


def approval_event(tool_call_id: str, tool_name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "CUSTOM",
        "name": "approval-requested",
        "value": {
            "toolCallId": tool_call_id,
            "toolName": tool_name,
            "input": args,
            "approval": {"id": f"approval_{tool_call_id}", "needsApproval": True},
        },
    }


def is_approval_request(event: dict[str, Any]) -> bool:
    return event["name"] == "approval-requested"
