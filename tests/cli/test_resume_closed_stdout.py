"""`agui resume --record` whose stdout reader is gone still records the whole response.

The continuation is on the server once posted (its tools ran): the response is the only
record of what it did. A closed stdout (`agui resume … --record next.sse | true`) stops
the output, not the reading and recording; the command then ends with 141 as other Unix
tools do. Without `--record` it stops at once, with 141 as well.
"""

from __future__ import annotations

import json
import os
import shutil
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
]


def _resume_into_closed_pipe(
    tmp_path: Path, chunks: list[bytes], *extra: str, token: str | None = None
) -> tuple[subprocess.CompletedProcess[bytes], list[bytes]]:
    """Run `agui resume` with a stdout whose reader closed before the first event;
    returns the finished process and the bodies the server received."""
    env = {name: value for name, value in os.environ.items() if name != "AGUI_TOKEN"}
    if token is not None:
        env["AGUI_TOKEN"] = token
    shutil.copy(RUN1, tmp_path / "paused.sse")
    shutil.copy(REQUEST, tmp_path / "paused.request.json")
    # trickled, so the response is still arriving when the first write fails
    with scripted_server({"/chat": Route(chunks, trickle=0.02)}) as server:
        args = ["resume", "--from", str(tmp_path / "paused.sse"), "--approve", "transfer"]
        args += ["--no-input", "--url", server.url("/chat"), *extra]
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            done = subprocess.run(
                [sys.executable, "-c", "from cli.app import main; main()", *args],
                stdout=write_end,
                stderr=subprocess.PIPE,
                env=env,
                timeout=60,
            )
        finally:
            os.close(write_end)
        return done, [received.body for received in server.received]


# a token: output then goes through a console that masks it
@pytest.mark.parametrize("token", [None, "s3cret-token"], ids=["plain", "masked"])
@pytest.mark.parametrize("output", [[], ["--json"]], ids=["timeline", "json"])
def test_a_closed_stdout_still_records_the_whole_response(
    tmp_path: Path, output: list[str], token: str | None
) -> None:
    done, posted = _resume_into_closed_pipe(
        tmp_path, FRAMES, "--record", str(tmp_path / "next.sse"), *output, token=token
    )
    err = done.stderr.decode()
    assert done.returncode == 141, err[-500:]
    assert "Traceback" not in err
    assert "Broken pipe" not in err
    assert (tmp_path / "next.sse").read_bytes() == b"".join(FRAMES)
    assert len(posted) == 1
    request = json.loads((tmp_path / "next.request.json").read_text(encoding="utf-8"))
    assert request == json.loads(posted[0])
    assert f"agui: recorded {tmp_path / 'next.sse'} and" in err
    assert not (tmp_path / "next.partial.sse").exists()


@pytest.mark.parametrize("output", [[], ["--json"]], ids=["timeline", "json"])
def test_a_closed_stdout_keeps_a_response_cut_by_the_server_as_partial(
    tmp_path: Path, output: list[str]
) -> None:
    # the server ends the response in the middle of its last event
    chunks = [*FRAMES[:-1], FRAMES[-1][: len(FRAMES[-1]) // 2]]
    done, _ = _resume_into_closed_pipe(
        tmp_path, chunks, "--record", str(tmp_path / "next.sse"), *output
    )
    err = done.stderr.decode()
    assert done.returncode == 141, err[-500:]
    assert "Traceback" not in err
    assert (tmp_path / "next.partial.sse").read_bytes() == b"".join(chunks)
    assert (tmp_path / "next.partial.request.json").exists()
    assert not (tmp_path / "next.sse").exists()
    assert "the response was cut mid-event; kept what arrived as" in err


def test_without_record_a_closed_stdout_stops_at_once(tmp_path: Path) -> None:
    done, posted = _resume_into_closed_pipe(tmp_path, FRAMES)
    err = done.stderr.decode()
    assert done.returncode == 141, err[-500:]
    assert "Traceback" not in err
    assert "Broken pipe" not in err
    assert len(posted) == 1
    # stopped before the response ended: no outcome was judged or printed
    assert "finished" not in err
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "paused.request.json",
        "paused.sse",
    ]
