"""Recorded text cannot act on the terminal: the timeline shows its control characters.

A recording (or a live server's answer to `agui resume`) is untrusted; an ESC in an
assistant's text, an error message or an interrupt's message used to reach the screen as
is, where it can clear it, retitle the window or set the clipboard (OSC 52).
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cli.app import app
from tests.cli.test_usage_error_on_a_terminal import _on_a_terminal

runner = CliRunner()
HOSTILE = "hi \x1b]0;PWNED\x07 \x1b[2J\u202eright\x9b there"
SHOWN = "hi \\x1b]0;PWNED\\x07 \\x1b[2J\\u202eright\\x9b there"


def _recording(tmp_path: Path) -> Path:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": HOSTILE},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r1",
            "outcome": {
                "type": "interrupt",
                "interrupts": [{"id": "g-1", "reason": "review", "message": HOSTILE}],
            },
        },
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r2"},
        {"type": "RUN_ERROR", "message": HOSTILE},
    ]
    path = tmp_path / "hostile.sse"
    path.write_text("".join(f"data: {json.dumps(event)}\n\n" for event in events))
    return path


def test_piped_timeline_escapes_controls(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", str(_recording(tmp_path))])
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert "\x07" not in result.stdout
    assert "\u202e" not in result.stdout
    assert "\x9b" not in result.stdout
    assert f"  assistant: {SHOWN}\n" in result.stdout
    assert f"!! error: {SHOWN}\n" in result.stdout
    assert SHOWN in result.stdout.split("answered by", 1)[1]


def test_timeline_on_a_terminal_escapes_controls(tmp_path: Path) -> None:
    status, screen = _on_a_terminal(["replay", str(_recording(tmp_path))], {"NO_COLOR": "1"})
    assert status == 0, screen
    assert "\x1b]0;PWNED" not in screen
    assert "\x1b[2J" not in screen
    assert "\u202e" not in screen
    assert "PWNED\\x07" in screen
