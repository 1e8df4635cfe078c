"""The shared HTTP stack under `replay --serve`: CORS, bounded bodies, backlog, shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.interrupts.chat_params import INVALID_BODY_TEXT
from replay.serve.request_log import RequestLog, Result
from replay.serve.serve_options import FAST, ServeOptions
from replay.serve.served_runs import load_recording
from replay.serve.server import ReplayServer
from replay.web.cors import check_origin
from replay.web.listener import bind
from replay.web.streaming import COALESCE_BYTES, End, EventStream, StopSignal, StreamCut

NATIVE = Path(__file__).resolve().parent.parent.parent / "fixtures" / "recordings" / "native"
CASE = NATIVE / "tool-approval.approve"
RUNS = [f"{CASE}.run1.sse", f"{CASE}.run2.sse"]
ALLOWED = "http://localhost:3000"
EVIL = "http://evil.example"


def request_body(**ids: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(f"{CASE}.request.json").read_text())
    return data | ids


def start(**options: Any) -> tuple[ReplayServer, list[RequestLog]]:
    logs: list[RequestLog] = []
    opts = ServeOptions(pace=FAST)
    server = ReplayServer(load_recording(RUNS, opts), options=opts, logger=logs.append, **options)
    return server.start(), logs


def raw_exchange(port: int, data: bytes) -> bytes:
    """Send bytes on a fresh connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_cors_is_off_by_default() -> None:
    server, _ = start()
    with server, httpx.Client(base_url=server.url, timeout=5) as client:
        preflight = client.options(
            "/chat", headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"}
        )
        answer = client.post("/chat", json=request_body(), headers={"Origin": EVIL})
    assert preflight.status_code == 405
    assert "access-control-allow-origin" not in preflight.headers
    assert answer.status_code == 200
    assert "access-control-allow-origin" not in answer.headers


def test_cors_allows_the_one_named_origin() -> None:
    server, _ = start(cors=ALLOWED)
    preflight_headers = {"Access-Control-Request-Method": "POST"}
    with server, httpx.Client(base_url=server.url, timeout=5) as client:
        allowed = client.options("/chat", headers={"Origin": ALLOWED, **preflight_headers})
        refused = client.options("/chat", headers={"Origin": EVIL, **preflight_headers})
        answer = client.post("/chat", json=request_body(), headers={"Origin": ALLOWED})
        other = client.post("/chat", json=request_body(), headers={"Origin": EVIL})
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == ALLOWED
    assert "POST" in allowed.headers["access-control-allow-methods"]
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers
    assert answer.headers["access-control-allow-origin"] == ALLOWED
    assert answer.text.count("data: ") == 10
    assert "access-control-allow-origin" not in other.headers


@pytest.mark.parametrize("text", ["localhost:3000", "ftp://x", "http://", "http://a/b", "*"])
def test_bad_origins_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="invalid origin"):
        check_origin(text)


def test_an_origin_is_kept_as_the_browser_sends_it() -> None:
    assert check_origin("https://app.example:8443/") == "https://app.example:8443"
    assert check_origin("http://LocalHost:3000") == "http://localhost:3000"
    assert check_origin("http://[::1]:3000") == "http://[::1]:3000"


def test_a_body_nested_too_deep_gets_tanstacks_400() -> None:
    server, logs = start()
    deep = b'{"threadId":"t","runId":"r","messages":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with server, httpx.Client(base_url=server.url, timeout=5) as client:
        answer = client.post("/chat", content=deep)
        after = client.post("/chat", json=request_body())
    assert (answer.status_code, answer.text) == (400, INVALID_BODY_TEXT)
    assert logs[0].detail == "JSON nested too deep to parse"
    assert after.status_code == 200


def test_an_oversized_body_is_refused_before_it_is_read() -> None:
    server, logs = start()
    with server:
        head = (
            b"POST /chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 99999999999\r\nConnection: close\r\n\r\n{"
        )
        answer = raw_exchange(server.port, head)
    assert answer.startswith(b"HTTP/1.1 413")
    assert logs[0].status == 413
    assert logs[0].result is Result.INVALID


def test_a_chunked_body_over_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import replay.web.bodies

    monkeypatch.setattr(replay.web.bodies, "MAX_BODY_BYTES", 1000)
    server, _ = start()

    def pieces() -> Any:
        for _ in range(20):
            yield b" " * 100

    with server, httpx.Client(base_url=server.url, timeout=5) as client:
        answer = client.post("/chat", content=pieces())
        small = client.post("/chat", content=b"[]")
    assert answer.status_code == 413
    assert small.status_code == 400


def test_the_listen_backlog_is_large() -> None:
    # Fill the accept queue without accepting: 300 connections all complete the TCP
    # handshake (socketserver's backlog of 5 refused or dropped most of them).
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    clients = []
    try:
        for _ in range(300):
            client = socket.socket()
            client.settimeout(2)
            client.connect(("127.0.0.1", port))
            clients.append(client)
    finally:
        for client in clients:
            client.close()
        sock.close()
    assert len(clients) == 300


def test_a_keep_alive_client_reuses_its_connection() -> None:
    server, logs = start()
    with server, httpx.Client(base_url=server.url, timeout=5) as client:
        for index in range(5):
            answer = client.post("/chat", json=request_body(runId=f"R{index}"))
            assert answer.text.count("data: ") == 10
    assert [entry.run_id for entry in logs] == [f"R{index}" for index in range(5)]


@pytest.mark.skipif(os.name != "posix", reason="sends SIGTERM")
def test_sigterm_with_a_client_trickling_headers_exits_promptly() -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from cli.app import main; main()",
            "replay",
            *RUNS,
            "--serve",
            "0",
            "--pace",
            "0.001",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    slow: list[socket.socket] = []
    try:
        assert process.stderr is not None
        port = 0
        for _ in range(5):
            line = process.stderr.readline()
            if "listening on" in line:
                port = int(line.split("listening on ", 1)[1].split()[0].rsplit(":", 1)[1])
                break
        assert port
        # One client sends half a request line; another starts a request and never
        # reads the answer; a third is idle on a kept-alive connection.
        trickler = socket.create_connection(("127.0.0.1", port))
        trickler.sendall(b"POST /chat HTTP/1.1\r\nHost: x\r\n")
        slow.append(trickler)
        body = json.dumps(request_body()).encode()
        reader = socket.create_connection(("127.0.0.1", port))
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        reader.sendall(
            b"POST /chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        slow.append(reader)
        time.sleep(0.3)
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=10)
        elapsed = time.monotonic() - started
    finally:
        for sock in slow:
            sock.close()
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0
    assert elapsed < 5


def test_the_listening_socket_says_tcp_so_asyncio_turns_nagle_off() -> None:
    # With protocol 0, asyncio leaves Nagle on for accepted connections and every
    # kept-alive request waited ~40 ms for a delayed ACK.
    sock = bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()


def test_a_cancelled_stream_still_closes_its_source_and_reports_its_end() -> None:
    ends: list[End] = []
    closed: list[bool] = []
    sent: list[dict[str, Any]] = []

    async def chunks() -> AsyncIterator[bytes]:
        try:
            yield b"data: 1\n\n"
            await asyncio.Event().wait()  # an upstream that never sends again
            yield b"never"
        finally:
            closed.append(True)

    async def receive() -> dict[str, Any]:
        await asyncio.Event().wait()
        return {}

    async def send(message: Any) -> None:
        sent.append(message)

    async def scenario() -> None:
        stream = EventStream(chunks(), stopping=StopSignal(), on_end=ends.append)
        task = asyncio.ensure_future(stream({}, receive, send))
        while len(sent) < 2:
            await asyncio.sleep(0.01)
        task.cancel()  # what uvicorn does at its shutdown deadline
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert ends == [End.CUT]
    assert closed == [True]
    assert [m.get("more_body") for m in sent] == [None, True]  # no final chunk: a cut


def run_stream(
    chunks: list[bytes], pauses: list[bool], slow_send: list[bool], *, cut_at: int | None = None
) -> tuple[list[dict[str, Any]], list[End]]:
    """Drive an EventStream in memory: the source pauses (yields to the loop) where asked,
    the client's writes take a loop turn where asked; returns what was sent, and the end."""
    sent: list[dict[str, Any]] = []
    ends: list[End] = []

    async def source() -> AsyncIterator[bytes]:
        for index, chunk in enumerate(chunks):
            if cut_at == index:
                raise StreamCut
            if pauses[index % len(pauses)]:
                await asyncio.sleep(0)
            yield chunk

    async def receive() -> dict[str, Any]:
        await asyncio.Event().wait()
        return {}

    async def send(message: Any) -> None:
        if slow_send[len(sent) % len(slow_send)]:
            await asyncio.sleep(0)
        sent.append(message)

    stream = EventStream(source(), stopping=StopSignal(), on_end=ends.append)
    asyncio.run(stream({}, receive, send))
    return sent, ends


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.binary(min_size=1, max_size=40), max_size=30),
    st.lists(st.booleans(), min_size=1, max_size=8),
    st.lists(st.booleans(), min_size=1, max_size=8),
)
def test_coalesced_writes_carry_exactly_the_source_bytes(
    chunks: list[bytes], pauses: list[bool], slow_send: list[bool]
) -> None:
    """The plain twin is one write per chunk: the bytes and their order are the same."""
    sent, ends = run_stream(chunks, pauses, slow_send)
    bodies = [m["body"] for m in sent[1:]]
    assert b"".join(bodies) == b"".join(chunks)
    assert len(bodies) <= len(chunks) + 1
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert ends == [End.COMPLETE]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.binary(min_size=1, max_size=20), min_size=1, max_size=20),
    st.lists(st.booleans(), min_size=1, max_size=5),
    st.data(),
)
def test_a_cut_source_sends_what_came_before_and_no_final_chunk(
    chunks: list[bytes], pauses: list[bool], data: st.DataObject
) -> None:
    cut = data.draw(st.integers(min_value=0, max_value=len(chunks) - 1))
    sent, ends = run_stream(chunks, pauses, [False], cut_at=cut)
    body = b"".join(m.get("body", b"") for m in sent[1:])
    assert (chunks[:cut] and body == b"".join(chunks[:cut])) or not chunks[:cut]
    assert all(m.get("more_body", True) for m in sent[1:])
    assert ends == [End.CUT]


def test_the_reader_stops_reading_ahead_of_a_stalled_client() -> None:
    produced: list[int] = []
    ends: list[End] = []

    async def source() -> AsyncIterator[bytes]:
        while True:
            produced.append(1)
            await asyncio.sleep(0)
            yield b"x" * 1024

    async def receive() -> dict[str, Any]:
        await asyncio.Event().wait()
        return {}

    async def send(message: Any) -> None:
        if message.get("body"):
            await asyncio.Event().wait()  # the client never reads

    async def scenario() -> None:
        stream = EventStream(source(), stopping=StopSignal(), on_end=ends.append)
        task = asyncio.ensure_future(stream({}, receive, send))
        for _ in range(2000):
            await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    # One chunk in the stalled write, then at most COALESCE_BYTES read ahead.
    assert len(produced) <= 1 + COALESCE_BYTES // 1024 + 1
    assert ends == [End.CUT]
