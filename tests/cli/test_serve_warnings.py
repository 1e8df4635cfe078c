"""`agui replay --serve` says at startup what is wrong with the recording it serves.

Before, the decode problems were collected and dropped: a recording with lines that are
not JSON, invalid events or legacy approval events was served without a word, and a
client's odd behaviour looked like the client's fault.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

from rich.console import Console

from cli.serve import ServeRequest, run_serve

ROOT = Path(__file__).resolve().parent.parent.parent
BROKEN = ROOT / "examples" / "broken.sse"
RECORDINGS = ROOT / "tests" / "fixtures" / "recordings"
LEGACY = RECORDINGS / "legacy" / "tool-approval.approve.run1.sse"
NATIVE = RECORDINGS / "native" / "tool-approval.approve.run1.sse"
LEGACY_HINT = (
    "agui replay: a current client cannot resolve legacy approval events;"
    " add --native to serve them as native interrupts"
)


def startup(path: Path, *, native: bool = False) -> list[str]:
    """The stderr lines of a real server started on a free port and stopped at once."""
    text = StringIO()
    console = Console(file=text, width=300, color_system=None)
    request = ServeRequest(recordings=(str(path),), address="0", native=native)
    run_serve(request, console=console, on_ready=lambda server: server.shutdown())
    return text.getvalue().splitlines()


def test_a_recording_with_problems_is_announced_with_the_first_few() -> None:
    lines = startup(BROKEN)
    assert lines[0] == f"agui replay: serving 1 run from {BROKEN} (pace fast)"
    assert lines[1:7] == [
        "agui replay: warning: 5 problems in the recording, served as decoded"
        " (agui replay --check lists them all):",
        f"  {BROKEN}:12: event 5: invalid JSON: Unterminated string starting at [invalid-json]",
        f"  {BROKEN}:14: event 6: TOOL_CALL_ARGS: delta: Input should be a valid string"
        " [invalid-event]",
        f"  {BROKEN}:16: event 7: unknown event type 'TOOL_CALL_PROGRESS' [unknown-event]",
        "  … and 2 more",
        LEGACY_HINT,
    ]
    assert lines[7].startswith("agui replay: listening on http://127.0.0.1:")


def test_a_legacy_recording_points_at_native() -> None:
    lines = startup(LEGACY)
    assert lines[1] == (
        "agui replay: warning: 1 problem in the recording, served as decoded"
        " (agui replay --check lists them all):"
    )
    assert "[legacy-approval-event]" in lines[2]
    assert lines[3] == LEGACY_HINT


def test_translation_notices_and_clean_recordings_say_nothing_more() -> None:
    for lines in (startup(LEGACY, native=True), startup(NATIVE)):
        assert len(lines) == 2, lines
        assert lines[1].startswith("agui replay: listening on ")
