"""The pass-through pipe against its plain twin (httpx): the same bytes, whatever the chunking.

A raw-socket upstream answers each case with a randomly framed response (chunked with
random chunk sizes, Content-Length, or ended by closing), written in random pieces with
pauses between them, sometimes cut short. Two proxies in front of it, one with the pipe
and one on the httpx path only, must give the client the same status, headers and
bytes, and send the upstream the same request.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import replay.proxy.upstream
from replay.proxy.app import ProxyOptions
from replay.proxy.server import ProxyServer
from replay.proxy.upstream import Failure, Pipe, UpstreamError, pipe_target
from replay.web.listener import bind

CASES = 60
Request = tuple[str, str, list[tuple[str, str]], bytes]


def response_for(case: int) -> tuple[list[bytes], bool]:
    """The pieces upstream writes for `case`, and whether it closes after them."""
    rng = random.Random(case)
    frames = [
        f"data: {json.dumps({'type': 'TEXT_MESSAGE_CONTENT', 'delta': 'é' * rng.randrange(40)})}"
        + rng.choice(["\n\n", "\r\n\r\n"])
        for _ in range(rng.randrange(0, 25))
    ]
    if rng.random() < 0.2:
        frames.append(": comment\n\n")
    body = "".join(frames).encode()
    sse = rng.random() < 0.8
    status = rng.choice([200, 200, 200, 201, 400, 500])
    framing = rng.choice(["chunked", "length", "close"])
    cut = framing == "chunked" and sse and body and rng.random() < 0.25
    head = [
        f"HTTP/1.1 {status} Whatever",
        f"Content-Type: {'text/event-stream' if sse else 'application/json'}",
        f"X-Case: {case}",
        "Set-Cookie: a=1",
        "Set-Cookie: b=2",
        "Connection: x-hop" + (", close" if framing == "close" else ""),
        "X-Hop: dropped",
        "Keep-Alive: timeout=5",
    ]
    if framing == "length":
        head.append(f"Content-Length: {len(body)}")
        payload = body
    elif framing == "chunked":
        head.append("Transfer-Encoding: chunked")
        pieces, at = [], 0
        while at < len(body):
            size = rng.randrange(1, 300)
            pieces.append(b"%x\r\n%s\r\n" % (len(body[at : at + size]), body[at : at + size]))
            at += size
        if cut:
            payload = b"".join(pieces[: max(1, len(pieces) // 2)])[:-3]
        else:
            payload = b"".join(pieces) + b"0\r\n\r\n"
    else:
        payload = body
    whole = ("\r\n".join(head) + "\r\n\r\n").encode() + payload
    writes, at = [], 0
    while at < len(whole):
        size = rng.choice([1, 7, 64, 500, 4096])
        writes.append(whole[at : at + size])
        at += size
    return writes, framing == "close" or bool(cut)


class RawUpstream(socketserver.ThreadingTCPServer):
    """HTTP/1.1 by hand, so the framing and the write boundaries are ours to choose."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.seen: dict[int, list[Request]] = {}
        self.connections = 0
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        server: Any = self.server
        with server.lock:
            server.connections += 1
        buffer = b""
        while True:
            while b"\r\n\r\n" not in buffer:
                data = sock.recv(65536)
                if not data:
                    return
                buffer += data
            head, buffer = buffer.split(b"\r\n\r\n", 1)
            first, *lines = head.decode("latin-1").split("\r\n")
            method, target, _ = first.split(" ")
            headers = sorted(
                (name.lower(), value.strip())
                for name, value in (line.split(":", 1) for line in lines)
            )
            length = int(dict(headers).get("content-length", "0"))
            while len(buffer) < length:
                buffer += sock.recv(65536)
            body, buffer = buffer[:length], buffer[length:]
            case = int(target.rsplit("=", 1)[1])
            with server.lock:
                server.seen.setdefault(case, []).append((method, target, headers, body))
            writes, closes = response_for(case)
            for piece in writes:
                sock.sendall(piece)
                if random.random() < 0.1:
                    time.sleep(0.002)
            if closes:
                sock.shutdown(socket.SHUT_WR)
                return


@pytest.fixture
def raw_upstream(monkeypatch: pytest.MonkeyPatch) -> Iterator[RawUpstream]:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    server = RawUpstream()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def fetch(client: httpx.Client, url: str, case: int) -> tuple[int, list[tuple[str, str]], bytes]:
    rng = random.Random(-case)
    body = rng.choice([json.dumps({"runId": f"r{case}", "messages": []}).encode(), b"{bad"])
    headers = {"content-type": "application/json", "x-trace": str(case)}
    if rng.random() < 0.3:
        headers["authorization"] = "Bearer t"
    if rng.random() < 0.3:
        headers["accept-encoding"] = "identity"
    received = b""
    with client.stream("POST", f"{url}/api/chat?case={case}", content=body, headers=headers) as r:
        try:
            for chunk in r.iter_raw():
                received += chunk
        except httpx.RemoteProtocolError:
            received += b"<cut>"
    # The proxy's own RUN_ERROR carries the time it was made.
    received = re.sub(rb'"timestamp":\d+', b'"timestamp":0', received)
    return r.status_code, r.headers.multi_items(), received


def test_the_pipe_gives_what_the_httpx_path_gives(
    raw_upstream: RawUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    piped: list[str] = []
    send = replay.proxy.upstream.Pipe.send

    async def counted(self: Any, *args: Any) -> Any:
        piped.append(args[1])
        return await send(self, *args)

    monkeypatch.setattr(replay.proxy.upstream.Pipe, "send", counted)
    fast = ProxyServer(ProxyOptions(upstream=raw_upstream.url)).start()
    plain = ProxyServer(ProxyOptions(upstream=raw_upstream.url, fast_path=False)).start()
    try:
        with httpx.Client(timeout=10) as one, httpx.Client(timeout=10) as two:
            for case in range(CASES):
                assert fetch(one, fast.url, case) == fetch(two, plain.url, case), case
    finally:
        fast.shutdown()
        plain.shutdown()
    assert len(piped) == CASES  # every fast request really went through the pipe
    for case in range(CASES):
        through_pipe, through_httpx = raw_upstream.seen[case]
        assert through_pipe == through_httpx, case
    cuts = [case for case in range(CASES) if response_for(case)[1]]
    assert cuts  # the cases include streams cut short and connections closed


def test_hop_by_hop_headers_are_dropped_on_the_pipe(raw_upstream: RawUpstream) -> None:
    with (
        ProxyServer(ProxyOptions(upstream=raw_upstream.url)) as fast,
        httpx.Client(timeout=10) as client,
    ):
        _, headers, _ = fetch(client, fast.url, 0)
    names = {name for name, _ in headers}
    assert {"x-case", "set-cookie"} <= names
    assert not names & {"x-hop", "keep-alive", "connection"}
    assert [value for name, value in headers if name == "set-cookie"] == ["a=1", "b=2"]


@pytest.mark.parametrize(
    ("upstream", "target"),
    [
        ("http://127.0.0.1:8000", ("127.0.0.1", 8000, "127.0.0.1:8000")),
        ("http://example.com/api", ("example.com", 80, "example.com")),
        ("http://[::1]:9/", ("::1", 9, "[::1]:9")),
        ("https://example.com", None),
    ],
)
def test_which_upstreams_the_pipe_takes(
    upstream: str, target: tuple[str, int, str] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert pipe_target(upstream) == target
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    assert pipe_target(upstream) is None  # httpx would go through that proxy: so do we


def test_kept_alive_connections_are_reused_and_closed_ones_are_not(
    raw_upstream: RawUpstream,
) -> None:
    kept = [case for case in range(CASES) if not response_for(case)[1]][:5]
    closing = next(case for case in range(CASES) if response_for(case)[1])
    with (
        ProxyServer(ProxyOptions(upstream=raw_upstream.url)) as fast,
        httpx.Client(timeout=10) as client,
    ):
        for case in kept:
            fetch(client, fast.url, case)
        assert raw_upstream.connections == 1
        fetch(client, fast.url, closing)
        fetch(client, fast.url, kept[0])
        assert raw_upstream.connections == 2


async def _silent_upstream(answer: bytes) -> tuple[asyncio.Server, int]:
    """A server that reads the request, writes `answer`, and then says nothing."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(answer)
            await asyncio.sleep(5)
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def _failure(answer: bytes | None) -> Failure:
    async def run() -> Failure:
        if answer is None:  # nobody listening
            free = bind("127.0.0.1", 0)
            port = free.getsockname()[1]
            free.close()
            server = None
        else:
            server, port = await _silent_upstream(answer)
        pipe = Pipe("127.0.0.1", port, "h", connect_timeout=1, read_timeout=0.2)
        try:
            response = await pipe.send("POST", "/", [], b"{}")
            try:
                async for _ in response.chunks():
                    pass
            finally:
                await response.aclose()
        except UpstreamError as error:
            return error.failure
        finally:
            pipe.close()
            if server is not None:
                server.close()
                await asyncio.sleep(0)  # let the cancelled handler close its socket
        raise AssertionError("no failure")

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("answer", "failure"),
    [
        (None, Failure.REFUSED),
        (b"", Failure.READ_TIMEOUT),  # no answer at all
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
            Failure.READ_TIMEOUT,
        ),
    ],
)
def test_the_pipe_names_each_failure(answer: bytes | None, failure: Failure) -> None:
    assert _failure(answer) is failure


def test_a_slow_but_steady_upstream_never_times_out() -> None:
    # Each wait is shorter than the read timeout, the whole stream much longer.
    pieces = [b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"]
    pieces += [b"6\r\nevent\n\r\n"] * 8 + [b"0\r\n\r\n"]

    async def run() -> bytes:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await reader.readuntil(b"\r\n\r\n")
                for piece in pieces:
                    writer.write(piece)
                    await asyncio.sleep(0.08)
            finally:
                writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        pipe = Pipe(
            "127.0.0.1",
            server.sockets[0].getsockname()[1],
            "h",
            connect_timeout=1,
            read_timeout=0.2,
        )
        try:
            response = await pipe.send("POST", "/", [], b"{}")
            body = b"".join([chunk async for chunk in response.chunks()])
            await response.aclose()
            return body
        finally:
            pipe.close()
            server.close()
            await asyncio.sleep(0)

    assert asyncio.run(run()) == b"event\n" * 8
