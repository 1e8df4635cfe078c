"""Real recordings, mutated (`tests.recording_mutations`): every reader agrees and nothing
breaks.

`test_differential` draws recordings made of small invented events; these start from
TanStack's own bytes and damage a few places, so the piece reader's fast paths (the
shape check, delta templates, settled stretches) run on real runs and meet the damage
in the middle of them. The properties:

* the file read in pieces (any piece size, with a helper that works, dies or freezes)
  gives exactly the plain reader's exit code, stdout and stderr, for `replay` and
  `translate`;
* every finding's line number is the line its byte offset is on;
* `agui replay`, `agui translate` and `agui resume --from … --dry-run` end with one of
  their documented exit codes, and an exit 2 is one line on stderr, never a traceback.

The example counts keep the suite fast; run longer with
`pytest tests/replay/large/test_mutated_recordings.py --hypothesis-seed=N` and
`MUTATION_EXAMPLES=2000`.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import replay.large.read
import replay.large.translate_pieces
from cli.app import app
from tests.recording_mutations import mutated_recordings
from tests.replay.large.test_differential import HELPERS, _large_file_path

runner = CliRunner()
EXAMPLES = int(os.environ.get("MUTATION_EXAMPLES", "6"))
SOME = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REPLAY_MODES = [["--check", "--json"], ["--format", "sarif"], ["--json"], ["--check"]]


def _run(args: list[str]) -> tuple[int, bytes, str]:
    result = runner.invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.stderr
    return result.exit_code, result.stdout_bytes, result.stderr


def _plain(args: list[str]) -> tuple[int, bytes, str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(replay.large.read, "PIECES_MIN_SIZE", 1 << 62)
        patch.setattr(replay.large.translate_pieces, "translate_file", lambda *a, **k: None)
        return _run(args)


@SOME
@given(
    data=mutated_recordings(),
    piece_size=st.integers(1, 2000),
    helper=HELPERS,
    answers=st.integers(0, 3),
    mode=st.sampled_from(REPLAY_MODES),
)
def test_a_mutated_recording_in_pieces_equals_the_plain_path(
    data: bytes, piece_size: int, helper: str, answers: int, mode: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "mutated.sse"
        path.write_bytes(data)
        with _large_file_path(piece_size, helper, answers):
            in_pieces = _run(["replay", *mode, str(path)])
        assert in_pieces == _plain(["replay", *mode, str(path)])
        assert in_pieces[0] in (0, 1, 2)


@SOME
@given(data=mutated_recordings(), piece_size=st.integers(1, 2000), helper=HELPERS)
def test_a_mutated_translation_in_pieces_equals_the_plain_path(
    data: bytes, piece_size: int, helper: str
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "mutated.sse"
        path.write_bytes(data)
        with _large_file_path(piece_size, helper, 1):
            in_pieces = _run(["translate", str(path)])
        assert in_pieces == _plain(["translate", str(path)])
        assert in_pieces[0] in (0, 2)


def _line_starts(data: bytes) -> list[int]:
    """Each line's first byte offset, with the SSE rules' line breaks (LF, CRLF, CR)."""
    starts = [0]
    for found in re.finditer(rb"\r\n|\r|\n", data):
        starts.append(found.end())
    return starts


@SOME
@given(data=mutated_recordings())
def test_each_finding_names_the_line_its_offset_is_on(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "mutated.sse"
        path.write_bytes(data)
        code, out, _ = _run(["replay", "--format", "json", str(path)])
    if code == 2:
        return  # refused whole (UTF-16, a JSON array): no finding to locate
    starts = _line_starts(data)
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    for finding in json.loads(out)["findings"]:
        number, offset = finding.get("line", 0), finding.get("offset")
        if not number or offset is None:
            continue
        assert offset in starts or offset == bom, finding
        assert starts.index(offset) + 1 == number or (offset == bom and number == 1), finding


def _one_line_error(code: int, stderr: str) -> None:
    if code == 2:
        assert len(stderr.strip().splitlines()) == 1, stderr


@SOME
@given(data=mutated_recordings())
def test_commands_on_a_mutated_recording_end_with_a_documented_code(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "mutated.sse"
        path.write_bytes(data)
        code, _, err = _run(["replay", "--check", str(path)])
        assert code in (0, 1, 2)
        _one_line_error(code, err)
        code, _, err = _run(["translate", str(path)])
        assert code in (0, 2)
        _one_line_error(code, err)
        code, out, err = _run(["resume", "--from", str(path), "--approve-all", "--dry-run"])
        assert code in (0, 2), err
        if code == 0:
            json.loads(out)
