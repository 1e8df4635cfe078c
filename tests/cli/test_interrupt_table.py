"""The interrupts table on a terminal: whole tokens at any width, names `--answer` takes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from cli.app import app
from cli.timeline import Timeline, interrupt_row

NATIVE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "recordings" / "native"
runner = CliRunner()


def descriptors(name: str) -> list[dict[str, Any]]:
    for line in (NATIVE / name).read_text().splitlines():
        if '"RUN_FINISHED"' in line:
            found: list[dict[str, Any]] = json.loads(line[len("data: ") :])["outcome"]["interrupts"]
            return found
    raise AssertionError(name)


@pytest.mark.parametrize("width", [60, 80, 100, 140, 200])
@pytest.mark.parametrize(
    "recording", ["generic-after-tools.resolved.run1.sse", "tool-approval.approve.run1.sse"]
)
def test_no_cell_is_cut_inside_a_word(width: int, recording: str) -> None:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system=None)
    items = descriptors(recording)
    Timeline(console, rich=True).interrupts(items)
    lines = out.getvalue().splitlines()
    assert all(len(line) <= width for line in lines)
    words = {word for line in lines for word in line.split()}
    for item in items:
        row = dict(
            zip(
                ("id", "kind", "reason", "message", "tool", "answered by"),
                interrupt_row(item),
                strict=True,
            )
        )
        for column in ("id", "kind", "answered by"):  # the key columns are never dropped
            for word in row[column].split():
                assert word in words, (column, word, out.getvalue())


def test_a_generic_item_shows_its_definition_id() -> None:
    (item,) = descriptors("generic-after-tools.resolved.run1.sse")
    assert interrupt_row(item)[1] == "generic review-plan"


def test_an_approval_can_be_named_by_its_tool_call_id() -> None:
    result = runner.invoke(
        app,
        [
            "resume",
            "--from",
            str(NATIVE / "tool-approval.approve.run1.sse"),
            "--approve",
            "call_transfer_1",
            "--dry-run",
        ],
    )
    assert result.exit_code == 0, result.stderr
    (entry,) = json.loads(result.stdout)["resume"]
    assert entry["interruptId"] == "approval_call_transfer_1"
    assert entry["payload"] == {"approved": True}
