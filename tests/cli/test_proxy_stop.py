"""`agui proxy --record` stopped by a real signal while a stream is open: what arrived is
kept as a `.partial.sse` recording, and no temp file is left behind.

Run as a separate process, because the defect lived in how the main thread waited for
the server thread: on Python 3.11 a SIGTERM or Ctrl-C during `Thread.join` marked the
server thread stopped while it still ran, the shutdown did not wait for it, and the
process ended with the open recording unwritten (an empty `.agui-tmp` file left).
SIGHUP (the terminal closing) was not handled at all: the process died on the spot.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from tests.resume_http import Route, scripted_server

FIRST = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r1"}\n\n'
MORE = b'data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n\n'


def start_proxy(upstream: str, record: Path) -> tuple[subprocess.Popen[str], str]:
    process, url, _ = start_proxy_saying(upstream, record)
    return process, url


def start_proxy_saying(upstream: str, record: Path) -> tuple[subprocess.Popen[str], str, list[str]]:
    """A recording proxy, its URL and the lines it printed up to where it listens."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from cli.app import main; main()",
            "proxy",
            "--upstream",
            upstream,
            "--listen",
            "0",
            "--record",
            str(record),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    said: list[str] = []
    for _ in range(8):
        line = process.stderr.readline()
        said.append(line)
        if "listening on " in line:
            return process, line.split("listening on ", 1)[1].split()[0], said
    process.kill()
    process.communicate()
    raise AssertionError(f"the proxy did not start: {said}")


@pytest.mark.skipif(os.name != "posix", reason="sends signals")
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_stop_keeps_what_an_open_stream_had_sent(stop: signal.Signals, tmp_path: Path) -> None:
    record = tmp_path / "rec"
    endless = Route(body=[FIRST, MORE], trickle=0.05, endless=True)
    with scripted_server({"/chat": endless}) as upstream:
        process, url = start_proxy(upstream.url(""), record)
        arrived = threading.Event()
        received: list[bytes] = []
        # (the stop cuts the stream: what this test is about)
        reader = threading.Thread(target=stream_until_sent, args=(url, received, arrived))
        reader.start()
        try:
            assert arrived.wait(10)
            process.send_signal(stop)
            _, stderr = process.communicate(timeout=15)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
            reader.join(10)
    assert process.returncode == 0, stderr
    assert "agui proxy: stopped" in stderr
    names = sorted(path.name for path in record.iterdir())
    assert names == [
        "001-r1.partial.exchange.json",
        "001-r1.partial.request.json",
        "001-r1.partial.sse",
    ], names
    kept = (record / "001-r1.partial.sse").read_bytes()
    # every byte the client was sent was written first; nothing arrived is lost
    assert kept.startswith(FIRST)
    assert kept.startswith(b"".join(received))
    assert "#1 POST /chat runId=r1 -> 200 cut (recorded" in stderr
    # the cut exchange's line came after "stopped", as if it had happened later
    assert stderr.endswith("agui proxy: stopped\n")


@pytest.mark.skipif(os.name != "posix", reason="closes a pipe")
def test_a_json_reader_that_leaves_stops_the_proxy_after_a_whole_exchange(
    tmp_path: Path,
) -> None:
    # Before, every later exchange lost its final chunk (the client saw a cut stream)
    # and the proxy ran on with nobody reading.
    answer = [FIRST, b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r1"}\n\n']
    with scripted_server({"/chat": Route(body=answer)}) as upstream:
        args = ["proxy", "--json", "--upstream", upstream.url(""), "--listen", "0"]
        process = subprocess.Popen(
            [sys.executable, "-c", "from cli.app import main; main()", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            assert process.stderr is not None
            url = json.loads(process.stdout.readline())["url"]
            process.stdout.close()  # the reader goes away
            response = httpx.post(url + "/chat", json={"runId": "r1"}, timeout=10)
            process.wait(timeout=15)
            stderr = process.stderr.read()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            if process.stderr is not None:
                process.stderr.close()
    assert response.content == b"".join(answer)
    assert process.returncode == 141
    assert "Traceback" not in stderr


def stream_until_sent(url: str, received: list[bytes], arrived: threading.Event) -> None:
    try:
        with httpx.stream("POST", url + "/chat", json={"runId": "r1"}, timeout=10) as r:
            for chunk in r.iter_raw():
                received.append(chunk)
                arrived.set()
    except httpx.HTTPError:
        pass  # the proxy is stopped or killed: the stream is cut
    finally:
        arrived.set()


@pytest.mark.skipif(os.name != "posix", reason="sends signals")
def test_the_next_proxy_keeps_what_a_killed_proxy_had_recorded(tmp_path: Path) -> None:
    # SIGKILL leaves no chance to move the bytes into place: they stayed in the hidden
    # `.001.claim` for good, found by no `*.sse` glob. The next proxy recording into the
    # directory now keeps them as the partial recording they are, and says so, while a
    # live proxy's open placeholder beside it is left alone.
    record = tmp_path / "rec"
    endless = Route(body=[FIRST, MORE], trickle=0.05, endless=True)
    with scripted_server({"/chat": endless}) as upstream:
        killed, url = start_proxy(upstream.url(""), record)
        live, live_url = start_proxy(upstream.url(""), record)
        sent: dict[str, list[bytes]] = {"killed": [], "live": []}
        readers = []
        try:
            for name, where in (("killed", url), ("live", live_url)):
                arrived = threading.Event()
                reader = threading.Thread(
                    target=stream_until_sent, args=(where, sent[name], arrived)
                )
                reader.start()
                readers.append(reader)
                assert arrived.wait(10)
            killed.send_signal(signal.SIGKILL)
            killed.communicate(timeout=15)
            claims = sorted(path.name for path in record.iterdir())
            assert claims == [".001.claim", ".002.claim"], claims
            left = (record / ".001.claim").read_bytes()
            assert left.startswith(b"".join(sent["killed"]))
            after, _, said = start_proxy_saying(upstream.url(""), record)
            after.send_signal(signal.SIGTERM)
            after.communicate(timeout=15)
            live.send_signal(signal.SIGTERM)
            _, live_said = live.communicate(timeout=15)
        finally:
            for process in (killed, live):
                if process.poll() is None:
                    process.kill()
                    process.communicate()
            for reader in readers:
                reader.join(10)
    kept = record / "001-r1.partial.sse"
    assert kept.read_bytes() == left
    assert (
        f"agui proxy: kept {kept}: the {len(left)} bytes a killed proxy had recorded (its"
        " stream was cut)\n"
    ) in said
    assert not any("002" in line for line in said)  # the live proxy's is not touched
    assert "#1 POST /chat runId=r1 -> 200 cut (recorded" in live_said
    names = sorted(path.name for path in record.iterdir())
    assert names == [
        "001-r1.partial.sse",
        "002-r1.partial.exchange.json",
        "002-r1.partial.request.json",
        "002-r1.partial.sse",
    ], names


@pytest.mark.skipif(os.name != "posix", reason="sends signals")
def test_the_proxys_lines_show_a_path_as_it_is(tmp_path: Path) -> None:
    # rich turned `:smile:` into an emoji: the lines named a directory that is not there.
    record = tmp_path / "rec:smile:"
    record.mkdir()
    (record / ".001.claim").write_bytes(FIRST)  # as a killed proxy leaves it
    with scripted_server({"/chat": Route(body=[FIRST])}) as upstream:
        process, _, said = start_proxy_saying(upstream.url(""), record)
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=15)
    assert f"agui proxy: recording exchanges in {record}\n" in said
    kept = record / "001-r1.partial.sse"
    assert (
        f"agui proxy: kept {kept}: the {len(FIRST)} bytes a killed proxy had recorded (its"
        " stream was cut)\n"
    ) in said


def _restart(upstream: str, record: Path) -> list[str]:
    """Start a recording proxy, stop it, and give back what it said up to listening."""
    process, _, said = start_proxy_saying(upstream, record)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=15)
    return said


@pytest.mark.skipif(os.name != "posix", reason="sends signals")
def test_a_killed_proxys_bytes_whose_name_is_taken_get_a_new_number(tmp_path: Path) -> None:
    # The placeholder's own name, `001-r1.partial.sse`, is taken (here by the user's
    # file): the bytes stayed hidden and were warned about at every start. Now they take
    # the next free number, the usual line says where, and the start after is quiet.
    record = tmp_path / "rec"
    endless = Route(body=[FIRST, MORE], trickle=0.05, endless=True)
    with scripted_server({"/chat": endless}) as upstream:
        killed, url = start_proxy(upstream.url(""), record)
        sent: list[bytes] = []
        arrived = threading.Event()
        reader = threading.Thread(target=stream_until_sent, args=(url, sent, arrived))
        reader.start()
        try:
            assert arrived.wait(10)
            killed.send_signal(signal.SIGKILL)
            killed.communicate(timeout=15)
        finally:
            if killed.poll() is None:
                killed.kill()
                killed.communicate()
            reader.join(10)
        left = (record / ".001.claim").read_bytes()
        assert left.startswith(b"".join(sent))
        (record / "001-r1.partial.sse").write_text("the user's\n")
        said = _restart(upstream.url(""), record)
        again = _restart(upstream.url(""), record)
    kept = record / "002-r1.partial.sse"
    assert kept.read_bytes() == left
    assert (
        f"agui proxy: kept {kept}: the {len(left)} bytes a killed proxy had recorded (its"
        " stream was cut)\n"
    ) in said
    assert not any("killed proxy" in line for line in again), again
    assert (record / "001-r1.partial.sse").read_text() == "the user's\n"
    assert sorted(path.name for path in record.iterdir()) == [
        "001-r1.partial.sse",
        "002-r1.partial.sse",
    ]
