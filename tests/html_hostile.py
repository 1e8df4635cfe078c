"""A recording whose recorded texts try to inject markup into the `--html` page.

Shared by the page's unit tests and its browser tests: every place a recorded string
reaches the page (ids, texts, tool names and arguments, interrupt fields, schema keys,
an unknown event type echoed in a finding) carries one of the two payloads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HOSTILE_SCRIPT = "<script>window.__aguiInjected = 'script'</script>"
HOSTILE_IMG = '"><img src=x onerror="window.__aguiInjected = \'img\'">'


def hostile_recording(tmp_path: Path) -> Path:
    """A paused run whose recorded texts try to inject markup, and its continuation."""
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "runId": "run-<b>1</b>", "threadId": HOSTILE_IMG},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": HOSTILE_SCRIPT},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": HOSTILE_IMG},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": json.dumps({"x": HOSTILE_SCRIPT})},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": HOSTILE_IMG},
        {
            "type": "RUN_FINISHED",
            "runId": "run-<b>1</b>",
            "threadId": HOSTILE_IMG,
            "outcome": {
                "type": "interrupt",
                "interrupts": [
                    {
                        "id": HOSTILE_IMG,
                        "reason": HOSTILE_SCRIPT,
                        "message": HOSTILE_SCRIPT,
                        "toolCallId": "c1",
                        "expiresAt": HOSTILE_IMG,
                        "responseSchema": {
                            "type": "object",
                            "properties": {HOSTILE_SCRIPT: {"const": HOSTILE_IMG}},
                        },
                    }
                ],
            },
        },
    ]
    path = tmp_path / "hostile.sse"
    path.write_text("".join(f"data: {json.dumps(event)}\n\n" for event in events))
    (tmp_path / "hostile.request.json").write_text(
        json.dumps({"runId": "run-<b>1</b>", "threadId": HOSTILE_IMG, "messages": []})
    )
    return path
