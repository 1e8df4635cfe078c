"""`agui replay --serve --log FILE` never damages a recording, and a log the disk refuses
never breaks the answers.

Before, `--log` naming a recording being served appended request lines to it, and a
log that could not be written (a full disk) turned every request into a
`500 Internal Server Error`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from cli.serve import ServeRequest, run_serve
from replay.wire.errors import InvalidRequest, UnreadableInput
from tests.listening import AGUI, serving

ROOT = Path(__file__).resolve().parent.parent.parent
RUN = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"
BODY = json.loads((RUN.parent / "tool-approval.approve.request.json").read_text())
LIMIT = 2048
"""RLIMIT_FSIZE of the server process: the log cannot grow past this (EFBIG)."""
LIMITED = (
    "import resource, signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
    f"resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT})); "
    "from cli.app import main; main()"
)


@pytest.mark.parametrize("name", ["run.sse", "link.sse", "./run.sse"])
def test_a_log_naming_a_served_recording_is_refused(name: str, tmp_path: Path) -> None:
    recording = tmp_path / "run.sse"
    shutil.copy(RUN, recording)
    (tmp_path / "link.sse").symlink_to(recording)
    before = recording.read_bytes()
    log = tmp_path / name
    request = ServeRequest(recordings=(str(RUN), str(recording)), address="0", log=log)
    with pytest.raises(InvalidRequest) as refused:
        run_serve(request, on_ready=lambda server: server.shutdown())
    assert str(refused.value) == (
        f"--log: {log} is a recording being served; its requests would be appended"
        " to it: log to another file"
    )
    assert recording.read_bytes() == before


@pytest.mark.parametrize(
    ("served", "sidecar"),
    [("run.sse", "run.request.json"), ("case.run1.sse", "case.request.json")],
)
def test_a_log_naming_a_served_recordings_request_body_is_refused(
    served: str, sidecar: str, tmp_path: Path
) -> None:
    # it was accepted, and the request lines appended to the body made the recording's
    # next read fail on its sidecar
    recording = tmp_path / served
    shutil.copy(RUN, recording)
    body = tmp_path / sidecar
    body.write_text(json.dumps(BODY))
    before = body.read_bytes()
    request = ServeRequest(recordings=(str(recording),), address="0", log=body)
    with pytest.raises(InvalidRequest) as refused:
        run_serve(request, on_ready=lambda server: server.shutdown())
    assert str(refused.value) == (
        f"--log: {body} is the request body of a recording being served; its requests"
        " would be appended to it: log to another file"
    )
    assert body.read_bytes() == before


def test_a_read_only_log_is_refused_even_as_root(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    log.write_bytes(b'{"kept":true}\n')
    log.chmod(0o444)
    request = ServeRequest(recordings=(str(RUN),), address="0", log=log)
    with pytest.raises(UnreadableInput, match="cannot write the log \\(read-only file\\)"):
        run_serve(request, on_ready=lambda server: server.shutdown())
    assert log.read_bytes() == b'{"kept":true}\n'


def test_a_log_the_disk_refuses_is_dropped_with_one_warning(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    args = ["replay", str(RUN), "--serve", "0", "--log", str(log)]
    with serving(args, LIMITED) as served:
        answers = [httpx.post(served.url + "/api/chat", json=BODY, timeout=10) for _ in range(6)]
    assert [answer.status_code for answer in answers] == [200] * 6
    assert all(answer.text.count("data: ") == 10 for answer in answers)
    assert served.process.returncode == 0
    stderr = served.stderr
    warnings = [line for line in stderr.splitlines() if "--log" in line]
    assert warnings == [
        f"agui replay: warning: --log {log}: cannot write (File too large);"
        " requests are no longer logged there"
    ]
    assert stderr.count("-> served: run 1") == 6
    for line in log.read_text().splitlines():  # what made it in is whole lines
        assert json.loads(line)["status"] == 200


def test_a_log_named_dash_goes_to_stdout(tmp_path: Path) -> None:
    # `--log -` created a file named "-" in the working directory
    args = ["replay", str(RUN), "--serve", "0", "--log", "-"]
    with serving(args, cwd=tmp_path) as served:
        answers = [httpx.post(served.url + "/api/chat", json=BODY, timeout=10) for _ in range(2)]
    process, stdout = served.process, served.stdout
    assert [answer.status_code for answer in answers] == [200, 200]
    assert process.returncode == 0
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert [(line["path"], line["status"], line["result"]) for line in lines] == [
        ("/api/chat", 200, "served")
    ] * 2
    assert list(tmp_path.iterdir()) == []


def test_a_fifo_log_with_no_reader_is_refused_at_once(tmp_path: Path) -> None:
    # Before, start-up blocked forever in open(), waiting for a reader.
    fifo = tmp_path / "requests.fifo"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-c", AGUI, "replay", str(RUN), "--serve", "0", "--log", str(fifo)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"agui: {fifo}: a FIFO with no reader; start the reader first\n"


def test_a_fifo_log_with_a_reader_gets_every_request(tmp_path: Path) -> None:
    fifo = tmp_path / "requests.fifo"
    os.mkfifo(fifo)
    # A reader is there before the server starts (opened without waiting for a writer);
    # the thread's own open waits for the server's end, and reads to its close.
    present = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    received: list[bytes] = []

    def read_all() -> None:
        with fifo.open("rb", buffering=0) as reader:
            while chunk := reader.read(65536):
                received.append(chunk)

    thread = threading.Thread(target=read_all, daemon=True)
    thread.start()
    try:
        with serving(["replay", str(RUN), "--serve", "0", "--log", str(fifo)]) as served:
            answers = [
                httpx.post(served.url + "/api/chat", json=BODY, timeout=10) for _ in range(2)
            ]
    finally:
        if thread.is_alive():  # the server never opened its end: release the reader
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(15)
        os.close(present)
    assert not thread.is_alive()
    assert [answer.status_code for answer in answers] == [200, 200]
    assert served.process.returncode == 0
    lines = b"".join(received).decode().splitlines()
    assert [(json.loads(line)["status"], json.loads(line)["body"]) for line in lines] == [
        (200, BODY),
        (200, BODY),
    ]
