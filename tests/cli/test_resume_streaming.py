"""`agui resume` streams the response: bounded time, bounded memory, partial recordings marked."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from tests.resume_http import Route, scripted_server

NATIVE = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
APPROVAL_RUN1 = str(NATIVE / "tool-approval.approve.run1.sse")
APPROVAL_RUN2 = (NATIVE / "tool-approval.approve.run2.sse").read_bytes()
STARTED = b'data: {"type":"RUN_STARTED","threadId":"thread-tool-approval.approve","runId":"r2"}\n\n'
TEXT_START = b'data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n\n'
TEXT = b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"' + b"x" * 990 + b'"}\n\n'
runner = CliRunner()


def invoke(*args: str) -> object:
    return runner.invoke(
        app, ["resume", "--no-input", "--from", APPROVAL_RUN1, "--approve", "transfer", *args],
        env={},
    )  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [
        ("--timeout", "nan"),
        ("--timeout", "inf"),
        ("--timeout", "-inf"),
        ("--connect-timeout", "nan"),
        ("--connect-timeout", "inf"),
        ("--max-time", "nan"),
        ("--max-time", "inf"),
        ("--max-time", "0"),
        ("--max-time", "-1"),
    ],
)
def test_non_finite_or_non_positive_times_are_refused(args: tuple[str, ...]) -> None:
    with scripted_server({"/chat": Route(APPROVAL_RUN2)}) as server:
        result = invoke(*args, "--url", server.url("/chat"))
    assert result.exit_code == 2
    assert f"{args[0]} must be a finite number of seconds above 0" in result.stderr
    assert result.stderr.count("\n") == 1
    assert server.received == []


def test_max_time_ends_a_trickling_stream(tmp_path: Path) -> None:
    route = Route([STARTED, TEXT_START, TEXT], trickle=0.1, endless=True)
    with scripted_server({"/chat": route}) as server:
        began = time.monotonic()
        result = invoke(
            "--url", server.url("/chat"), "--max-time", "1", "--json",
            "--record", str(tmp_path / "out.sse"),
        )  # fmt: skip
        took = time.monotonic() - began
    assert result.exit_code == 2, result.stderr
    assert took < 4
    assert "gave up after --max-time 1 s" in result.stderr
    assert "the continuation was sent and is not retried" in result.stderr
    assert result.stdout.count("TEXT_MESSAGE_CONTENT") >= 3  # streamed while it arrived
    assert not (tmp_path / "out.sse").exists()
    kept = (tmp_path / "out.partial.sse").read_bytes()
    assert kept.startswith(STARTED + TEXT_START + TEXT)
    assert json.loads((tmp_path / "out.partial.request.json").read_text())["resume"]


def test_a_stream_cut_mid_frame_is_kept_as_partial(tmp_path: Path) -> None:
    cut = APPROVAL_RUN2[: APPROVAL_RUN2.rindex(b"data:") + 20]
    with scripted_server({"/chat": Route([cut], endless=True)}) as server:
        result = invoke("--url", server.url("/chat"), "--record", str(tmp_path / "out.sse"))
    assert result.exit_code == 1, result.stderr
    assert not (tmp_path / "out.sse").exists()
    assert not (tmp_path / "out.request.json").exists()
    assert (tmp_path / "out.partial.sse").read_bytes() == cut
    assert "out.partial.sse" in result.stderr
    assert "the response was cut mid-event" in result.stderr


def test_a_connection_broken_mid_response_keeps_what_arrived(tmp_path: Path) -> None:
    with scripted_server({"/chat": Route([STARTED], truncate=True)}) as server:
        result = invoke("--url", server.url("/chat"), "--record", str(tmp_path / "out.sse"))
    assert result.exit_code == 2, result.stderr
    assert "broke the connection" in result.stderr
    assert (tmp_path / "out.partial.sse").read_bytes() == STARTED
    assert not (tmp_path / "out.sse").exists()


def test_a_complete_response_is_recorded_under_its_name(tmp_path: Path) -> None:
    with scripted_server({"/chat": Route(APPROVAL_RUN2)}) as server:
        result = invoke("--url", server.url("/chat"), "--record", str(tmp_path / "out.sse"))
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "out.sse").read_bytes() == APPROVAL_RUN2
    assert not list(tmp_path.glob("*partial*"))


PEAK_RSS = """
import sys
from cli.app import app
try:
    app(sys.argv[1:])
except SystemExit:
    pass
with open("/proc/self/status") as status:
    peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
sys.stderr.write(f"\\nmaxrss={peak}\\n")
"""
"""Runs `agui` and reports its own peak RSS. VmHWM, not `ru_maxrss`: after a vfork+exec
the latter starts at the parent's peak, and this test's parent holds the whole body."""


@pytest.mark.parametrize("mode", ["--json", "--record"])
def test_memory_does_not_grow_with_the_response(mode: str, tmp_path: Path) -> None:
    megabytes = 60
    body = [STARTED, TEXT_START, TEXT * (megabytes * 1024 * 1024 // len(TEXT))]
    args = [mode] if mode == "--json" else [mode, str(tmp_path / "out.sse")]
    with scripted_server({"/chat": Route(body)}) as server:
        done = subprocess.run(
            [sys.executable, "-c", PEAK_RSS, "resume", "--no-input", "--from", APPROVAL_RUN1,
             "--approve", "transfer", "--url", server.url("/chat"), *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120,
            env={"PATH": "/usr/bin:/bin"},
        )  # fmt: skip
    peak_kb = int(done.stderr.rsplit("maxrss=", 1)[1])
    assert peak_kb < 110 * 1024, f"peak RSS {peak_kb // 1024} MB for a {megabytes} MB response"


def test_max_time_also_bounds_a_silent_server() -> None:
    with scripted_server({"/chat": Route(APPROVAL_RUN2, delay=3)}) as server:
        began = time.monotonic()
        result = invoke("--url", server.url("/chat"), "--max-time", "0.5")
        took = time.monotonic() - began
    assert result.exit_code == 2, result.stderr
    assert "gave up after --max-time 0.5 s" in result.stderr
    assert took < 2.5


def test_an_event_that_never_ends_is_cut_off_at_the_limit(tmp_path: Path) -> None:
    from dataclasses import replace

    from cli.resume_command import ResumeOptions, run_resume
    from replay.jobs.resume import ResumeJob
    from replay.resume.answers import AnswerOptions
    from replay.wire.errors import TransportFailure

    endless_frame = [STARTED, b'data: {"type":"TEXT_MESSAGE_START"', b"x" * 65536]
    with scripted_server({"/chat": Route(endless_frame, trickle=0.001, endless=True)}) as server:
        job = ResumeJob(
            sources=(APPROVAL_RUN1,), answers=AnswerOptions(approve=("transfer",)),
            url=server.url("/chat"), record=tmp_path / "out.sse",
            max_time=30,  # without the limit this would run until the deadline
        )  # fmt: skip
        options = ResumeOptions(job=replace(job, max_event_bytes=1024 * 1024), json_output=True)
        with pytest.raises(TransportFailure, match="without ending an event") as caught:
            run_resume(replace(options, interactive=False))
    assert "kept what arrived as" in str(caught.value)
    kept = (tmp_path / "out.partial.sse").stat().st_size
    assert 1024 * 1024 < kept < 2 * 1024 * 1024


def test_curl_carries_the_deadline() -> None:
    result = invoke("--curl", "--max-time", "2.5")
    assert result.exit_code == 0, result.stderr
    assert " --max-time 2.5 " in result.stdout
    assert "--max-time" not in invoke("--curl").stdout


def _with_huge_delta(stream: bytes, megabytes: int) -> bytes:
    """`stream` with its first text delta grown to `megabytes` MiB: one huge event."""
    head, marker, tail = stream.partition(b'"type":"TEXT_MESSAGE_CONTENT"')
    assert marker
    before, delta, after = tail.partition(b'"delta":"')
    _, _, rest = after.partition(b'"')
    return head + marker + before + delta + b"y" * (megabytes << 20) + b'"' + rest


def _agui(*args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    agui = Path(sys.executable).with_name("agui")
    began = time.monotonic()
    done = subprocess.run(
        [str(agui), "resume", "--no-input", *args],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )
    return time.monotonic() - began, done


def test_a_recording_with_a_50_mb_event_is_refused_in_one_line_in_linear_time(
    tmp_path: Path,
) -> None:
    took = {}
    for megabytes in (25, 50):
        recording = tmp_path / f"big{megabytes}.sse"
        recording.write_bytes(_with_huge_delta(Path(APPROVAL_RUN1).read_bytes(), megabytes))
        took[megabytes], done = _agui("--from", str(recording), "--approve-all", "--dry-run")
        assert done.returncode == 2, done.stderr
        assert done.stdout == ""
        assert done.stderr == (
            f"agui: {recording}:5: event 2: event data of {megabytes:.1f} MB is over agui's "
            "limit of 16 MB; agui resume cannot rebuild the run without it\n"
        )
    # Linear, not quadratic: twice the event, well under four times the time (the start-up
    # of a process is in both).
    assert took[50] < 3 * took[25] + 1, took


def test_a_server_answering_with_a_100_mb_event_is_cut_off_in_one_line() -> None:
    body = _with_huge_delta(APPROVAL_RUN2, 100)
    chunks = [body[start : start + (1 << 20)] for start in range(0, len(body), 1 << 20)]
    with scripted_server({"/chat": Route(chunks)}) as server:
        _, done = _agui(
            "--from", APPROVAL_RUN1, "--approve", "transfer", "--url", server.url("/chat")
        )
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if "without ending an event" in line]
    assert len(errors) == 1, done.stderr
    assert "the limit is 33,554,432" in errors[0]
    assert "Traceback" not in done.stderr
