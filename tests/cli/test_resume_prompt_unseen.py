"""`agui resume`'s questions when stderr cannot show them: the user would type blind.

stdin is a real pseudo-terminal (so the prompts run), stderr is `/dev/full` (every write
fails with ENOSPC) and the user types the answers ahead, as one does who expects the
questions. Nothing typed is read: nothing is posted, stdout gets nothing, the run ends 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.resume_http import Route, scripted_server

AGUI = Path(sys.executable).with_name("agui")
RECORDING = Path(__file__).resolve().parents[2] / "examples" / "transfer-approval.sse"
FINISHED = (
    b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r2"}\n\n'
    b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r2"}\n\n'
)

pytestmark = pytest.mark.skipif(
    not os.path.exists("/dev/full") or sys.platform == "win32",
    reason="needs /dev/full and a pty (Linux)",
)


def _typed_blind(args: list[str], keys: str) -> tuple[int, bytes]:
    """Run `agui` with a pty as stdin and `/dev/full` as stderr, `keys` typed at once;
    its exit status and its stdout."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    leader, follower = os.openpty()
    try:
        with open("/dev/full", "wb") as full:
            process = subprocess.Popen(
                [str(AGUI), *args], stdin=follower, stdout=subprocess.PIPE, stderr=full, env=env
            )
        os.close(follower)
        follower = -1
        os.write(leader, keys.encode())  # the terminal holds them until they are read
        try:
            out, _ = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    return process.returncode, out


def test_a_dry_run_prints_no_body_for_answers_typed_blind() -> None:
    code, out = _typed_blind(["resume", "--from", str(RECORDING), "--dry-run"], "a\r")
    assert (code, out) == (2, b"")


def test_nothing_is_posted_for_answers_typed_blind() -> None:
    with scripted_server({"/chat": Route(FINISHED)}) as server:
        args = ["resume", "--from", str(RECORDING), "--url", server.url("/chat")]
        code, out = _typed_blind(args, "a\ry\r")
        received = len(server.received)
    assert (code, out, received) == (2, b"", 0)


def test_answers_given_as_options_still_post_without_a_question() -> None:
    """Options answer every item: no question is asked, so a full stderr does not stop
    the post."""
    with scripted_server({"/chat": Route(FINISHED)}) as server:
        args = ["resume", "--from", str(RECORDING), "--url", server.url("/chat"), "--approve-all"]
        code, _ = _typed_blind(args, "")
        received = len(server.received)
    assert received == 1
    assert code == 2  # posted, but the user was not told everything (`cli.stderr_stream`)
