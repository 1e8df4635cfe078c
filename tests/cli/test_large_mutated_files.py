"""Whole `agui` processes on mutated multi-MiB recordings: read in pieces, with the helper
process, they give what the plain reader gives.

The in-process differential tests shrink the piece size to reach the piece reader with
small files; this one runs the real thing: a recording of the benchmark generator's
kind, over the helper's threshold, mutated in a few places (`tests.recording_mutations`),
checked (`replay --check --json`) or translated by two fresh processes — one as
shipped, one with the piece readers switched off the way the other tests do it
(`PIECES_MIN_SIZE`, `MIN_SIZE`) — and their exit codes, stdout and stderr compared
byte for byte. One example by default (two processes over 9 MB);
`LARGE_MUTATION_EXAMPLES=200` and `--hypothesis-seed=N` run it long.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.large.piece_reader import HELPER_MIN_SIZE
from tests.recording_mutations import mutated

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("LARGE_MUTATION_EXAMPLES", "1"))


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A deterministic recording just over the helper's threshold, from the benchmark
    generator (real TanStack wire format: text, tool calls, pauses, continuations)."""
    path = tmp_path_factory.mktemp("large") / "base.sse"
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import generate_recording
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    generate_recording.generate(path, HELPER_MIN_SIZE + (1 << 20))
    return path.read_bytes()


def _agui(arguments: list[str], *, plain: bool, cwd: Path) -> tuple[int, bytes, bytes]:
    plainly = (
        "import replay.large.read, replay.large.translate_pieces\n"
        "replay.large.read.PIECES_MIN_SIZE = 1 << 62\n"
        "replay.large.translate_pieces.MIN_SIZE = 1 << 62\n"
    )
    code = (
        "import sys\n"
        + (plainly if plain else "")
        + "from cli.app import main\n"
        + f"sys.argv = ['agui', *{arguments!r}]\n"
        + "main()\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, cwd=cwd, env=env, timeout=120
    )
    return done.returncode, done.stdout, done.stderr


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_a_mutated_large_file_checks_the_same_in_pieces(
    base: bytes, tmp_path: Path, data: st.DataObject
) -> None:
    recording = data.draw(mutated(base, 3))
    path = tmp_path / "large.sse"
    path.write_bytes(recording)
    command = data.draw(st.sampled_from([["replay", "--check", "--json"], ["translate"]]))
    arguments = [*command, str(path)]
    in_pieces = _agui(arguments, plain=False, cwd=tmp_path)
    plain = _agui(arguments, plain=True, cwd=tmp_path)
    assert b"Traceback" not in in_pieces[2]
    assert in_pieces[0] in (0, 1, 2)
    assert in_pieces == plain
