"""A recording argument that is a symlink loop is refused with what is wrong with it.

`Path.exists()` answers False for a loop, so the commands that read recordings said
"no such file" about a name that is there (`ls` lists it); the error the system gives
is the one to show. One line, exit 2, for every command that reads a recording.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

runner = CliRunner()


@pytest.mark.parametrize(
    "args",
    [
        ["replay", "--check"],
        ["replay", "--json"],
        ["translate"],
        ["resume", "--approve-all", "--dry-run", "--from"],
    ],
    ids=["replay-check", "replay-json", "translate", "resume"],
)
def test_a_symlink_loop_is_named_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    (tmp_path / "loop.sse").symlink_to("loop.sse")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, [*args, "loop.sse"])
    assert result.exit_code == 2
    assert result.stderr == "agui: loop.sse: Too many levels of symbolic links\n"
    assert result.stdout == ""


def test_a_missing_recording_is_still_no_such_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "dangling.sse").symlink_to("nowhere.sse")
    monkeypatch.chdir(tmp_path)
    for name in ("nowhere.sse", "dangling.sse"):
        result = runner.invoke(app, ["replay", name])
        assert (result.exit_code, result.stderr) == (2, f"agui: {name}: no such file\n")
