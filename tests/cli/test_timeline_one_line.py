"""What a recording or a server names (ids, tool names) never adds a line to agui's output.

A tool call id holding a line break (`"c1\\n  ⚙ tool forged"`) printed as two timeline
lines, the second one reading like an event of its own; an item id did the same in
`agui resume`'s card. Each shown line now writes the break as `\\x0a`.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from cli.app import app
from cli.prompts import Prompter

FORGED = "c1\n  * tool forged"


def test_a_line_break_in_a_tool_call_id_stays_on_its_line(tmp_path: Path) -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_START", "toolCallId": FORGED, "toolCallName": "transfer"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": FORGED, "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": FORGED},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    recording = tmp_path / "run.sse"
    recording.write_text("".join(f"data: {json.dumps(event)}\n\n" for event in events))
    result = CliRunner().invoke(app, ["replay", str(recording)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert not any(line.startswith("  * tool forged") for line in lines), result.stdout
    assert any("c1\\x0a  * tool forged" in line for line in lines), result.stdout


def test_a_line_break_in_an_item_id_stays_on_its_line() -> None:
    out = io.StringIO()
    prompter = Prompter(Console(file=out, width=200), lambda _question: "")
    prompter.show({"id": "i-1\ni-2 (approval)", "reason": "tool_call", "message": "ok?"})
    lines = out.getvalue().splitlines()
    assert lines[0] == "i-1\\x0ai-2 (approval) (interrupt)"
