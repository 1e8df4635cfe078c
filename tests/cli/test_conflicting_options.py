"""Options that cannot work together are refused with one line, never silently ignored."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

ROOT = Path(__file__).resolve().parents[2]
NATIVE = str(
    ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"
)
runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["replay", "--serve", "0", "--check", NATIVE], "--check"),
        (["replay", "--serve", "0", "--json", NATIVE], "--json"),
        (["replay", "--serve", "0", "--format", "json", NATIVE], "--format"),
        (["replay", "--serve", "0", "--strict", NATIVE], "--strict"),
        (["resume", "--from", NATIVE, "--approve-all", "--dry-run", "--curl"], "--curl"),
        (
            ["resume", "--from", NATIVE, "--approve-all", "--dry-run", "--record", "x.sse"],
            "--record",
        ),
        (["migrate", "--write", "-"], "--write"),
        # a report is written once all is read: --pace was ignored without a word
        (["replay", "--pace", "2", "--check", NATIVE], "--pace"),
        (["replay", "--pace", "real", "--format", "sarif", NATIVE], "--pace"),
        (["replay", "--pace", "2", "--export", "items", NATIVE], "--pace"),
    ],
)
def test_conflicting_options_are_refused_in_one_line(args: list[str], named: str) -> None:
    result = runner.invoke(app, args, input="")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert named in result.stderr


@pytest.mark.parametrize("args", [["--check", "--json"], ["--json"], []])
def test_pace_still_paces_what_streams(args: list[str]) -> None:
    result = runner.invoke(app, ["replay", "--pace", "1000", *args, NATIVE])
    assert result.exit_code == 0, result.stderr
    assert result.stdout
