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
    ],
)
def test_conflicting_options_are_refused_in_one_line(args: list[str], named: str) -> None:
    result = runner.invoke(app, args, input="")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert named in result.stderr
