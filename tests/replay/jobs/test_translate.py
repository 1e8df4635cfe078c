"""The translate job from Python: the same bytes `agui translate` writes, small or large."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import replay.large.translate_pieces
from cli.app import app
from replay.jobs.translate import open_translation
from replay.wire.errors import UnreadableInput
from replay.wire.problems import Problem

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
TOOLS = EXAMPLES / "legacy" / "tools.json"


def _translated(name: str, **options: object) -> tuple[bytes, list[str], bool]:
    with open_translation(name, **options) as translation:  # type: ignore[arg-type]
        out, notices = b"", []
        for piece in translation.pieces:
            if isinstance(piece, Problem):
                notices.append(piece.rule)
            else:
                out += piece
        return out, notices, translation.changed


@pytest.mark.parametrize(
    "name", ["tool-approval.0.42.0.sse", "mixed.0.42.0.sse", "client-tool.0.42.0.sse"]
)
def test_the_job_writes_what_the_command_writes(name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    shutil.copy(EXAMPLES / "legacy" / name, path)
    out, notices, changed = _translated(str(path))
    result = CliRunner().invoke(app, ["translate", str(path)])
    assert result.exit_code == 0
    assert out.decode() == result.stdout
    assert changed
    assert "translated" in notices


def test_pieces_and_the_plain_path_give_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (EXAMPLES / "legacy" / "tool-approval.0.42.0.sse").read_bytes()
    path = tmp_path / "big.sse"
    path.write_bytes(body * 40)
    monkeypatch.setattr(replay.large.translate_pieces, "MIN_SIZE", 0)
    monkeypatch.setattr(replay.large.translate_pieces, "PIECE_SIZE", 2000)
    original = replay.large.translate_pieces.translate_file
    used: list[bool] = []

    def noting(*args: Any) -> Any:
        result = original(*args)
        used.append(result is not None)
        return result

    monkeypatch.setattr(replay.large.translate_pieces, "translate_file", noting)
    by_pieces = _translated(str(path))
    assert used == [True]
    monkeypatch.setattr(replay.large.translate_pieces, "translate_file", lambda *a: None)
    assert _translated(str(path)) == by_pieces


def test_a_native_recording_comes_out_unchanged() -> None:
    native = EXAMPLES / "transfer-approval.sse"
    out, _, changed = _translated(str(native))
    assert out == native.read_bytes()
    assert not changed


def test_a_har_is_refused() -> None:
    with (
        pytest.raises(UnreadableInput, match="a HAR file"),
        open_translation(str(EXAMPLES / "session.har")),
    ):
        pass
