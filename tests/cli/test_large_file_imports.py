"""A large recording's `agui replay --check --json` and `agui translate` load neither
pydantic nor `ag_ui` while every event is proven valid: the shape check and the delta
templates read the generated schema table (about 25 MiB of the peak and 100 ms of
start-up otherwise). An invalid event still brings pydantic in, to decide and word it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from replay.large.read import PIECES_MIN_SIZE

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pydantic", "ag_ui", "replay.wire.event_models")


def _run(index: int, *, legacy: bool) -> list[dict[str, Any]]:
    """One run: a text message and a tool call, finished natively or the legacy way."""
    run, thread, message, call = f"r{index}", "t", f"m{index}", f"c{index}"
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": thread, "runId": run},
        {"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"},
        *(
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": f"part {n} "}
            for n in range(5)
        ),
        {"type": "TEXT_MESSAGE_END", "messageId": message},
        {"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "transfer"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": '{"amount":42}'},
        {"type": "TOOL_CALL_END", "toolCallId": call},
    ]
    if not legacy:
        return [*events, {"type": "RUN_FINISHED", "threadId": thread, "runId": run}]
    return [
        *events,
        {"type": "RUN_FINISHED", "threadId": thread, "runId": run, "finishReason": "tool_calls"},
        {
            "type": "CUSTOM",
            "name": "approval-requested",
            "value": {
                "toolCallId": call,
                "toolName": "transfer",
                "input": {"amount": 42},
                "approval": {"id": f"approval_{call}", "needsApproval": True},
            },
        },
    ]


def _recording(path: Path, *, legacy: bool, broken: bool = False) -> Path:
    """A recording just past the size read in pieces; `broken`: one invalid event."""
    frames: list[str] = []
    size = index = 0
    while size < PIECES_MIN_SIZE * 5 // 4:
        for event in _run(index, legacy=legacy):
            frame = f"data: {json.dumps(event, separators=(',', ':'))}\n\n"
            frames.append(frame)
            size += len(frame)
        index += 1
    if broken:
        middle = len(frames) // 2
        frames[middle] = 'data: {"type":"TEXT_MESSAGE_END","messageId":7}\n\n'
    path.write_text("".join(frames), encoding="utf-8")
    return path


def _loaded(arguments: list[str], cwd: Path) -> tuple[list[str], int]:
    """The heavy modules an `agui` run loaded, and its exit code."""
    code = (
        "import sys\nfrom cli.app import app\n"
        f"sys.argv = ['agui', *{arguments!r}]\n"
        "status = 0\n"
        "try:\n    app()\nexcept SystemExit as stop:\n    status = stop.code or 0\n"
        f"loaded = [name for name in {HEAVY!r} if name in sys.modules]\n"
        "sys.stderr.write(f'\\nloaded: {\",\".join(loaded)} status: {status}')\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env
    )
    tail = done.stderr.rpartition("\nloaded: ")[2]
    names, _, status = tail.partition(" status: ")
    return [name for name in names.split(",") if name], int(status)


@pytest.mark.parametrize("legacy", [False, True], ids=["native", "legacy"])
def test_a_large_valid_check_loads_neither_pydantic_nor_ag_ui(tmp_path: Path, legacy: bool) -> None:
    recording = _recording(tmp_path / "large.sse", legacy=legacy)
    loaded, status = _loaded(["replay", "--check", "--json", str(recording)], tmp_path)
    assert loaded == []
    assert status == (1 if legacy else 0)  # a legacy pause is a finding, not an invalid event


def test_a_large_translation_loads_neither_pydantic_nor_ag_ui(tmp_path: Path) -> None:
    recording = _recording(tmp_path / "large.sse", legacy=True)
    output = tmp_path / "out.sse"
    loaded, status = _loaded(["translate", str(recording), "-o", str(output)], tmp_path)
    assert (loaded, status) == ([], 0)
    assert output.stat().st_size > PIECES_MIN_SIZE


def test_an_invalid_event_in_a_large_file_is_decided_by_pydantic(tmp_path: Path) -> None:
    recording = _recording(tmp_path / "large.sse", legacy=False, broken=True)
    loaded, status = _loaded(["replay", "--check", "--json", str(recording)], tmp_path)
    assert "pydantic" in loaded
    assert "ag_ui" in loaded
    assert status == 1
