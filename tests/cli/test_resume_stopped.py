"""`agui resume --record` stopped mid-response keeps what arrived, however it is stopped.

The continuation is on the server once posted: the bytes it sent back are the only
record of the resumed run. Ctrl-C kept them as `OUT.partial.sse`; SIGTERM (`timeout`,
a cancelled CI job) and SIGHUP (the terminal closed) removed them with the temp file.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.resume_http import Route, scripted_server

NATIVE = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
RUN1 = NATIVE / "tool-approval.approve.run1.sse"
REQUEST = NATIVE / "tool-approval.approve.request.json"
FRAMES = [
    frame + b"\n\n"
    for frame in (NATIVE / "tool-approval.approve.run2.sse").read_bytes().split(b"\n\n")
    if frame
][:3]


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_stopped_resume_keeps_what_arrived_as_partial(tmp_path: Path, number: int) -> None:
    shutil.copy(RUN1, tmp_path / "paused.sse")
    shutil.copy(REQUEST, tmp_path / "paused.request.json")
    # The server sends three frames, then keeps the response open with the last one.
    with scripted_server({"/chat": Route(FRAMES, trickle=0.05, endless=True)}) as server:
        args = ["resume", "--from", str(tmp_path / "paused.sse"), "--approve", "transfer"]
        args += ["--no-input", "--json", "--url", server.url("/chat")]
        args += ["--record", str(tmp_path / "next.sse")]
        process = subprocess.Popen(
            [sys.executable, "-c", "from cli.app import main; main()", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            assert process.stdout is not None
            for _ in range(3):  # three events printed: their bytes were received
                assert process.stdout.readline()
            process.send_signal(number)
            _, err = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert process.returncode == 130, err.decode()[-500:]
    assert err.decode().splitlines()[-1] == "agui: interrupted"
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names == [
        "next.partial.request.json",
        "next.partial.sse",
        "paused.request.json",
        "paused.sse",
    ]
    assert (tmp_path / "next.partial.sse").read_bytes().startswith(b"".join(FRAMES))
