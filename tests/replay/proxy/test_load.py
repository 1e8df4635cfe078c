"""Load and shutdown behaviour of `replay --serve` and `agui proxy`, on 127.0.0.1 only.

Bounded: one burst of 500 concurrent requests, sequential requests on a kept-alive
connection (3,000 by default, a few seconds; `AGUI_LOAD_REQUESTS=10000` for the issue's
full count, about 10 s served and 30 s proxied on a shared 2-core machine), and a
SIGTERM with a slow client attached.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from replay.proxy.app import ProxyOptions
from replay.proxy.server import ProxyServer
from replay.serve.serve_options import FAST, Pace, ServeOptions
from replay.serve.served_runs import load_recording
from replay.serve.server import ReplayServer
from tests.listening import listening_url

CASE = Path(__file__).resolve().parent.parent.parent / "fixtures" / "recordings" / "native"
RUN = str(CASE / "tool-approval.approve.run1.sse")
BODY = (CASE / "tool-approval.approve.request.json").read_bytes()
TERMINAL = b'"type":"RUN_FINISHED"'
SEQUENTIAL = int(os.environ.get("AGUI_LOAD_REQUESTS", "3000"))
WARM_UP = SEQUENTIAL // 5


@pytest.fixture
def served() -> Iterator[ReplayServer]:
    opts = ServeOptions(pace=FAST)
    server = ReplayServer(load_recording([RUN], opts), options=opts).start()
    try:
        yield server
    finally:
        server.shutdown()


@pytest.fixture
def proxied(served: ReplayServer) -> Iterator[ProxyServer]:
    proxy = ProxyServer(ProxyOptions(upstream=served.url)).start()
    try:
        yield proxy
    finally:
        proxy.shutdown()


async def _one(port: int) -> tuple[bool, str]:
    """One whole request on its own connection: (ended with its terminal, error if any)."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY)
        )
        await writer.drain()
        data = await reader.read(-1)
        writer.close()
    except OSError as error:
        return False, type(error).__name__
    ended = data.startswith(b"HTTP/1.1 200") and data.endswith(b"0\r\n\r\n")
    last = data.rsplit(b"data: ", 1)[-1]
    return ended and TERMINAL in last, ""


async def _burst(port: int, count: int) -> list[tuple[bool, str]]:
    return await asyncio.wait_for(asyncio.gather(*(_one(port) for _ in range(count))), 60)


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


@pytest.mark.parametrize("target", ["served", "proxied"])
def test_500_concurrent_requests_all_complete(target: str, request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue(target)
    outcomes = asyncio.run(_burst(server.port, 500))
    failures = [error or "no terminal" for ok, error in outcomes if not ok]
    assert failures == []


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc")
@pytest.mark.parametrize("target", ["served", "proxied"])
def test_sequential_requests_leave_memory_flat(target: str, request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue(target)
    url = server.url + "/api/chat"
    with httpx.Client(timeout=10) as client:

        def post(index: int) -> None:
            answer = client.post(url, content=BODY.replace(b'"runId": "', b'"runId": "%d-' % index))
            assert answer.status_code == 200
            assert TERMINAL in answer.content

        for index in range(WARM_UP):
            post(index)
        before = _rss_mb()
        for index in range(WARM_UP, SEQUENTIAL):
            post(index)
        after = _rss_mb()
    grown = after - before
    assert grown < 8, f"RSS grew {grown:.1f} MB over {SEQUENTIAL - WARM_UP} requests"


def _start(args: list[str]) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        [sys.executable, "-c", "from cli.app import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    url = listening_url(process.stderr)
    if url is not None:
        return process, int(url.rsplit(":", 1)[1])
    process.kill()
    raise AssertionError("the server did not start")


@pytest.mark.skipif(os.name != "posix", reason="sends SIGTERM")
def test_sigterm_stops_the_proxy_with_a_slow_client_attached() -> None:
    # The upstream paces a run over minutes, so the proxied stream stays open.
    opts = ServeOptions(pace=Pace.parse("0.0001"))
    upstream = ReplayServer(load_recording([RUN], opts), options=opts).start()
    process, port = _start(["proxy", "--upstream", upstream.url, "--listen", "0"])
    clients: list[socket.socket] = []
    try:
        reader = socket.create_connection(("127.0.0.1", port))
        reader.sendall(
            b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(BODY), BODY)
        )
        clients.append(reader)
        trickler = socket.create_connection(("127.0.0.1", port))
        trickler.sendall(b"POST /api/chat HTTP/1.1\r\nHo")
        clients.append(trickler)
        reader.settimeout(5)
        assert reader.recv(4096).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=10)
        elapsed = time.monotonic() - started
    finally:
        for client in clients:
            client.close()
        if process.poll() is None:
            process.kill()
            process.communicate()
        upstream.shutdown()
    assert process.returncode == 0, stderr
    assert elapsed < 5
    assert "agui proxy: stopped" in stderr


def test_the_burst_helper_can_fail() -> None:
    """A closed port counts as a failure, so the burst test can see resets."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    outcomes: list[tuple[bool, str]] = asyncio.run(_burst(port, 3))
    assert [ok for ok, _ in outcomes] == [False] * 3


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc")
def test_slow_readers_of_a_large_run_do_not_each_hold_a_copy(tmp_path: Path) -> None:
    # An 8 MB run: the old server built each answer whole, 20 slow readers ~ 200 MB.
    delta = "x" * 150
    lines = ['data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n']
    lines.append('data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n\n')
    event = f'data: {{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{delta}"}}\n\n'
    lines += [event] * 40_000
    lines.append('data: {"type":"TEXT_MESSAGE_END","messageId":"m"}\n\n')
    lines.append('data: {"type":"RUN_FINISHED","runId":"r","threadId":"t"}\n\n')
    run = tmp_path / "large.sse"
    run.write_text("".join(lines))
    opts = ServeOptions(pace=FAST)
    server = ReplayServer(load_recording([str(run)], opts), options=opts).start()
    readers: list[socket.socket] = []
    try:
        before = _rss_mb()
        for _ in range(20):
            reader = socket.socket()
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            reader.connect(("127.0.0.1", server.port))
            reader.sendall(
                b"POST /c HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(BODY), BODY)
            )
            reader.settimeout(5)
            assert reader.recv(1024).startswith(b"HTTP/1.1 200")
            readers.append(reader)
        time.sleep(1)  # every stream is now stalled on its reader
        grown = _rss_mb() - before
    finally:
        for reader in readers:
            reader.close()
        server.shutdown()
    assert grown < 40, f"20 slow readers cost {grown:.0f} MB"
