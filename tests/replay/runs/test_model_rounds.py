"""A run of several model rounds, as the real `@tanstack/ai` 0.58.0 server streams it.

When the server runs a round's tools itself, it forwards the adapter's `RUN_FINISHED`
(`finishReason: "tool_calls"`, no outcome), streams the tool results and goes on with the
next round without a new `RUN_STARTED` (`tests/replay/translate/captures/rounds.0.58.0.sse`,
recorded from the interop test bed). That is one run: it checks clean, and the pause at its
end is resumed with the run's own request (its `forwardedProps`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from cli.app import app

CAPTURES = Path(__file__).resolve().parents[1] / "translate" / "captures"
runner = CliRunner()


def _copy(tmp_path: Path) -> Path:
    for suffix in (".sse", ".request.json"):
        shutil.copy(CAPTURES / f"rounds.0.58.0{suffix}", tmp_path / f"rounds{suffix}")
    return tmp_path / "rounds.sse"


def test_the_next_round_needs_no_run_started(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", "--check", str(_copy(tmp_path))], env={})
    assert result.exit_code == 0, result.stderr
    assert "missing-run-started" not in result.stderr


def test_the_pause_after_a_round_is_resumed_with_the_runs_request(tmp_path: Path) -> None:
    stream = _copy(tmp_path)
    request = json.loads((tmp_path / "rounds.request.json").read_text("utf-8"))
    flags = ["--approve-all", "--answer", "ask_user={}", "--dry-run"]
    result = runner.invoke(app, ["resume", "--no-input", "--from", str(stream), *flags], env={})
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["parentRunId"] == "run-dbg"
    assert body["forwardedProps"] == request["forwardedProps"]
