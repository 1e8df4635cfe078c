"""A small recording's `agui replay` (check or timeline) loads neither pydantic (nor its core) nor
`ag_ui` (the proof decides its events), nor rich (plain output on a pipe), nor the
large-file machinery (a file under `PIECES_MIN_SIZE` is read plainly): together about
two thirds of what its run used to take."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "transfer-approval.sse"
HEAVY = (
    "pydantic",
    "pydantic_core",
    "ag_ui",
    "rich",
    "replay.large.pieces",
    "replay.large.piece_reader",
)


@pytest.mark.parametrize("options", [["--check"], []], ids=["check", "timeline"])
def test_a_small_replay_loads_none_of_the_heavy_modules(options: list[str]) -> None:
    code = (
        "import sys\nfrom cli.app import app\n"
        f"sys.argv = ['agui', 'replay', *{options!r}, {str(EXAMPLE)!r}]\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        f"loaded = [name for name in {HEAVY!r} if name in sys.modules]\n"
        "sys.stdout.write('loaded: ' + ','.join(loaded))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert done.stdout.endswith("loaded: "), done.stdout
    assert "agui replay: 0 errors" in done.stderr or not options
