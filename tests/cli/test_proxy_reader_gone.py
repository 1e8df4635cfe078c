"""`agui proxy` whose stdout reader leaves while streams are in flight: every one of
them still reaches its client whole, then the proxy refuses new connections and exits
141.

Run as a separate process with a real upstream, because the defect lived between the
failed write and the server: the write that found the pipe closed asked for the same
stop as Ctrl-C, which cuts every open stream (and uvicorn's shutdown deadline cut any
that ran longer than two seconds), so clients mid-stream saw a ReadError.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest

from tests.resume_http import Route, scripted_server

STARTED = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r1"}\n\n'
FINISHED = b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r1"}\n\n'
BAD = b"data: not json\n\n"
"""An event `--check` reports at once (invalid-json), while its stream goes on."""
TRICKLE_S = 0.3
CHUNKS = 10
"""With TRICKLE_S: a stream of about 3 s, longer than the proxy's 2 s shutdown deadline."""


def text(index: int) -> bytes:
    delta = json.dumps({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": f"{index}"})
    return f"data: {delta}\n\n".encode()


def slow_answer(first: bytes) -> list[bytes]:
    return [first, *(text(index) for index in range(CHUNKS)), FINISHED]


def start_proxy(*options: str, upstream: str) -> subprocess.Popen[str]:
    args = ["proxy", *options, "--upstream", upstream, "--listen", "0"]
    return subprocess.Popen(
        [sys.executable, "-c", "from cli.app import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def listening_url(process: subprocess.Popen[str]) -> str:
    """The proxy's URL from its stderr line (every mode prints it)."""
    assert process.stderr is not None
    said = []
    for _ in range(8):
        line = process.stderr.readline()
        said.append(line)
        if "listening on " in line:
            return line.split("listening on ", 1)[1].split()[0]
    raise AssertionError(f"the proxy did not start: {said}")


class Reader(threading.Thread):
    """One client streaming a response: what it received, and whether it was cut."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.received: list[bytes] = []
        self.error: BaseException | None = None
        self.arrived = threading.Event()

    def run(self) -> None:
        try:
            with httpx.stream("POST", self.url, json={"runId": "r1"}, timeout=20) as response:
                for chunk in response.iter_raw():
                    self.received.append(chunk)
                    self.arrived.set()
        except httpx.HTTPError as error:
            self.error = error
        finally:
            self.arrived.set()


def refused_while(url: str, readers: list[Reader]) -> bool:
    """True once a new connection is refused while a reader is still streaming."""
    limit = time.monotonic() + 10
    while time.monotonic() < limit and any(reader.is_alive() for reader in readers):
        try:
            httpx.post(url + "/quick", json={"runId": "r9"}, timeout=5)
        except httpx.ConnectError:
            return any(reader.is_alive() for reader in readers)
        except httpx.HTTPError:
            pass  # accepted in the kernel's queue, then closed: not refused yet
        time.sleep(0.05)
    return False


def end_of(process: subprocess.Popen[str]) -> str:
    try:
        process.wait(timeout=20)
        assert process.stderr is not None
        return process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pipe in (process.stdout, process.stderr):
            if pipe is not None and not pipe.closed:
                pipe.close()


@pytest.mark.skipif(os.name != "posix", reason="closes a pipe")
def test_streams_in_flight_when_the_json_reader_leaves_reach_their_clients_whole() -> None:
    answer = slow_answer(STARTED)
    routes = {
        "/slow": Route(body=answer, trickle=TRICKLE_S),
        "/quick": Route(body=[STARTED, FINISHED]),
    }
    with scripted_server(routes) as upstream:
        process = start_proxy("--json", upstream=upstream.url(""))
        readers: list[Reader] = []
        try:
            url = listening_url(process)
            assert process.stdout is not None
            assert json.loads(process.stdout.readline()) == {"type": "listening", "url": url}
            readers = [Reader(url + "/slow") for _ in range(2)]
            for reader in readers:
                reader.start()
                assert reader.arrived.wait(10)
            process.stdout.close()  # the reader goes away
            # this exchange's line is the write that finds the pipe closed
            quick = httpx.post(url + "/quick", json={"runId": "r2"}, timeout=10)
            refused = refused_while(url, readers)
            for reader in readers:
                reader.join(20)
        finally:
            stderr = end_of(process)
    assert quick.content == STARTED + FINISHED
    for reader in readers:
        assert reader.error is None, reader.error
        assert b"".join(reader.received) == b"".join(answer)
    assert refused
    assert process.returncode == 141, stderr
    assert "Traceback" not in stderr


@pytest.mark.skipif(os.name != "posix", reason="closes a pipe")
def test_streams_in_flight_when_a_finding_cannot_be_written_reach_their_clients_whole() -> None:
    answer = slow_answer(STARTED + BAD)
    # the delay: both streams are in flight before the first finding is written
    slow = Route(body=answer, trickle=TRICKLE_S, delay=1.0)
    with scripted_server({"/slow": slow}) as upstream:
        process = start_proxy("--check", "--format", "json", upstream=upstream.url(""))
        readers: list[Reader] = []
        try:
            url = listening_url(process)
            assert process.stdout is not None
            process.stdout.close()  # the reader of the findings goes away
            # each stream's first chunk holds a finding: its line is the write that fails
            readers = [Reader(url + "/slow") for _ in range(2)]
            for reader in readers:
                reader.start()
            for reader in readers:
                assert reader.arrived.wait(10)
            refused = refused_while(url, readers)
            for reader in readers:
                reader.join(20)
        finally:
            stderr = end_of(process)
    for reader in readers:
        assert reader.error is None, reader.error
        assert b"".join(reader.received) == b"".join(answer)
    assert refused
    assert process.returncode == 141, stderr
    assert "Traceback" not in stderr


@pytest.mark.skipif(os.name != "posix", reason="closes a pipe")
def test_a_reader_gone_before_the_listening_line_ends_the_proxy_with_141() -> None:
    with scripted_server({"/quick": Route(body=[STARTED, FINISHED])}) as upstream:
        process = start_proxy("--json", upstream=upstream.url(""))
        assert process.stdout is not None
        process.stdout.close()  # before the proxy writes its first line
        stderr = end_of(process)
    assert process.returncode == 141, stderr
    assert "Traceback" not in stderr


@pytest.mark.skipif(os.name != "posix", reason="closes a pipe and sends signals")
def test_a_stop_during_the_wait_for_open_streams_still_stops_the_proxy() -> None:
    # The wait has no deadline (a stream may run for minutes): SIGTERM must still end
    # it, cutting the stream, as it does when the reader is there.
    routes = {
        "/endless": Route(body=[STARTED, text(0)], trickle=0.05, endless=True),
        "/quick": Route(body=[STARTED, FINISHED]),
    }
    with scripted_server(routes) as upstream:
        process = start_proxy("--json", upstream=upstream.url(""))
        reader = Reader("")
        try:
            url = listening_url(process)
            assert process.stdout is not None
            process.stdout.readline()
            reader = Reader(url + "/endless")
            reader.start()
            assert reader.arrived.wait(10)
            process.stdout.close()
            httpx.post(url + "/quick", json={"runId": "r2"}, timeout=10)
            time.sleep(0.5)
            assert process.poll() is None  # still waiting for the endless stream
            process.send_signal(signal.SIGTERM)
            stderr = end_of(process)
            reader.join(10)
        finally:
            if process.poll() is None:
                end_of(process)
    assert isinstance(reader.error, httpx.HTTPError)  # the stop cut it
    assert process.returncode == 141, stderr
    assert "agui proxy: stopped" in stderr
    assert "Traceback" not in stderr
