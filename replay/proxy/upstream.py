"""A lean HTTP/1.1 client for plain pass-through: upstream body bytes as they arrive.

Profiling the proxy at 50 concurrent streams put most of its CPU in httpx's connection
pool (every request scans every pooled connection and polls its socket) and the anyio
layers under it, not in moving bytes. When nothing needs events (no `--record`,
`--check` or `--native`), the upstream is plain `http://` and no proxy is set in the
environment, a POST goes through this client instead: an asyncio protocol, httptools'
C parser (uvicorn's, already installed), and idle connections that learn of an upstream
close by callback instead of by polling. The httpx path in `replay.proxy.app` stays the
plain twin; a randomised test proves the client sees the same bytes through both.
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import AsyncIterator, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import httptools

READ_AHEAD_BYTES: Final = 256 * 1024
"""Upstream reading pauses once this much waits for a slow client."""
IDLE_CONNECTIONS: Final = 100
"""Kept-alive upstream connections kept for reuse, as the httpx client keeps."""
PROXY_VARIABLES: Final = ("http_proxy", "all_proxy")
"""Environment variables (either case) that send httpx through a proxy: then no pipe."""


class Failure(StrEnum):
    """How an exchange with the upstream failed; `replay.proxy.failures` words it."""

    REFUSED = "refused"
    CONNECT_TIMEOUT = "connect-timeout"
    READ_TIMEOUT = "read-timeout"
    NO_ANSWER = "no-answer"
    """The connection closed (or was reset) before any answer."""
    GARBLED = "garbled"
    """What came back is not HTTP (a wrong port, a TLS server, a broken chunk)."""
    CLOSED = "closed"


class UpstreamError(Exception):
    """The upstream could not be reached, went silent, or broke the exchange."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(str(failure))
        self.failure = failure


def pipe_target(upstream: str) -> tuple[str, int, str] | None:
    """(host, port, Host header) when `upstream` can go through the pipe, else None."""
    parts = urlsplit(upstream)
    if parts.scheme != "http" or parts.hostname is None:
        return None
    if parts.username is not None or parts.password is not None:
        return None  # httpx turns `user:password@` into Basic auth; the pipe would drop it
    if any(os.environ.get(name) or os.environ.get(name.upper()) for name in PROXY_VARIABLES):
        return None
    host = parts.hostname
    port = parts.port or 80
    shown = f"[{host}]" if ":" in host else host
    return host, port, shown if port == 80 else f"{shown}:{port}"


class _Connection(asyncio.Protocol):
    """One upstream connection; it carries one exchange at a time."""

    def __init__(self, read_timeout: float) -> None:
        self.read_timeout = read_timeout
        self.transport: asyncio.Transport | None = None
        self.lost = False
        self._fresh()

    def _fresh(self) -> None:
        import httptools

        self.parser: httptools.HttpResponseParser = httptools.HttpResponseParser(self)
        self.status = 0
        self.headers: list[tuple[str, str]] = []
        self.chunks: deque[bytes] = deque()
        self.buffered = 0
        self.paused = False
        self.complete = False
        self.keep_alive = False
        self.broken = False
        self.garbled = False
        self.busy = False
        self.head: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.wake: asyncio.Future[None] | None = None
        self.waiting_since = 0.0
        self.timed_out = False
        self.watchdog: asyncio.TimerHandle | None = None

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        import httptools

        if not self.busy:  # nothing was asked: an idle connection talking is unusable
            self.broken = True
            self._close()
            return
        try:
            self.parser.feed_data(data)
        except (httptools.HttpParserError, httptools.HttpParserUpgrade):
            self.broken = True
            self.garbled = True
            self._close()
            self._signal()

    def eof_received(self) -> bool:
        return False  # close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self.busy and not self.complete and self.head.done() and self._ends_at_close():
            self.complete = True  # a body without length or chunks ends with the connection
        self._signal()

    # httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name.decode("latin-1"), value.decode("latin-1")))

    def on_headers_complete(self) -> None:
        status = self.parser.get_status_code()
        if status < 200:  # an informational answer (103): the real one follows
            self.headers = []
            return
        self.status = status
        if not self.head.done():
            self.head.set_result(None)

    def on_body(self, body: bytes) -> None:
        self.chunks.append(body)
        self.buffered += len(body)
        if self.buffered >= READ_AHEAD_BYTES and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        self._signal()

    def on_message_complete(self) -> None:
        if self.status:
            # Asked now: once the message is over the parser forgets the answer.
            self.keep_alive = self.parser.should_keep_alive()
            self.complete = True
            self._signal()

    # the exchange
    def _ends_at_close(self) -> bool:
        names = {name.lower() for name, _ in self.headers}
        return "content-length" not in names and "transfer-encoding" not in names

    def _signal(self) -> None:
        if self.wake is not None and not self.wake.done():
            self.wake.set_result(None)
        if self.busy and (self.lost or self.broken) and not self.head.done():
            failure = Failure.GARBLED if self.garbled else Failure.NO_ANSWER
            self.head.set_exception(UpstreamError(failure))

    def _close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def reusable(self) -> bool:
        return (
            not self.lost
            and not self.broken
            and self.transport is not None
            and not self.transport.is_closing()
        )

    async def body(self) -> AsyncIterator[bytes]:
        """The response body as it arrives; what arrived together comes as one piece."""
        while True:
            if self.chunks:
                chunk = self.chunks.popleft() if len(self.chunks) == 1 else b"".join(self.chunks)
                self.chunks.clear()
                self.buffered = 0
                if self.paused and self.transport is not None:
                    self.paused = False
                    self.transport.resume_reading()
                yield chunk
                continue
            if self.complete:
                return
            if self.lost or self.broken:
                raise UpstreamError(Failure.GARBLED if self.garbled else Failure.CLOSED)
            loop = asyncio.get_running_loop()
            self.wake = loop.create_future()
            self.waiting_since = loop.time()
            if self.watchdog is None:
                self.watchdog = loop.call_at(self.waiting_since + self.read_timeout, self._watch)
            try:
                await self.wake
            finally:
                self.wake = None
            if self.timed_out:
                raise UpstreamError(Failure.READ_TIMEOUT)

    def _watch(self) -> None:
        """The read timeout: one timer per exchange, re-armed only when it fires.

        A timeout per wait (`asyncio.timeout`) costs a timer per event of a paced
        stream; this one fails the exchange when the current wait has lasted too long.
        """
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self.wake is None:  # nobody waits (a slow client): look again a timeout later
            self.watchdog = loop.call_at(now + self.read_timeout, self._watch)
            return
        due = self.waiting_since + self.read_timeout
        if now < due:
            self.watchdog = loop.call_at(due, self._watch)
            return
        self.watchdog = None
        self.timed_out = True
        self._signal()

    def stop_watching(self) -> None:
        if self.watchdog is not None:
            self.watchdog.cancel()
            self.watchdog = None


class PipeResponse:
    """An upstream answer: status and headers now, the body as `chunks()` arrives."""

    def __init__(self, pipe: Pipe, connection: _Connection) -> None:
        self._pipe = pipe
        self._connection = connection
        self.status_code = connection.status
        self.headers = list(connection.headers)

    def chunks(self) -> AsyncIterator[bytes]:
        return self._connection.body()

    async def aclose(self) -> None:
        """Give a finished connection back for reuse; close an unfinished one (that
        cancels the upstream request)."""
        self._pipe.release(self._connection)


class Pipe:
    """Requests to one upstream over kept-alive connections; lives as long as the proxy."""

    def __init__(
        self, host: str, port: int, host_header: str, *, connect_timeout: float, read_timeout: float
    ) -> None:
        self.host = host
        self.port = port
        self.host_header = host_header.encode("latin-1")
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self._idle: list[_Connection] = []

    async def send(
        self, method: str, target: str, headers: Sequence[tuple[str, str]], body: bytes
    ) -> PipeResponse:
        """Send one request; returns once the answer's headers are in."""
        connection = await self._acquire()
        lines = [
            b"%s %s HTTP/1.1\r\nHost: %s\r\n"
            % (method.encode("ascii"), target.encode("latin-1"), self.host_header)
        ]
        lines += [b"%s: %s\r\n" % (k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        lines.append(b"Content-Length: %d\r\n\r\n" % len(body))
        lines.append(body)
        assert connection.transport is not None
        connection.transport.write(b"".join(lines))
        try:
            async with asyncio.timeout(self.read_timeout):
                await connection.head
        except TimeoutError:
            connection.broken = True
            self.release(connection)
            raise UpstreamError(Failure.READ_TIMEOUT) from None
        except BaseException:
            connection.broken = True
            self.release(connection)
            raise
        return PipeResponse(self, connection)

    async def _acquire(self) -> _Connection:
        while self._idle:
            connection = self._idle.pop()
            if connection.reusable():
                connection._fresh()
                connection.busy = True
                return connection
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.connect_timeout):
                _, protocol = await loop.create_connection(
                    lambda: _Connection(self.read_timeout), self.host, self.port
                )
        except TimeoutError:
            raise UpstreamError(Failure.CONNECT_TIMEOUT) from None
        except OSError:
            raise UpstreamError(Failure.REFUSED) from None
        protocol.busy = True
        return protocol

    def release(self, connection: _Connection) -> None:
        """Keep a connection whose exchange finished cleanly; close any other."""
        connection.busy = False
        connection.stop_watching()
        keep = (
            connection.complete
            and connection.reusable()
            and connection.keep_alive
            and len(self._idle) < IDLE_CONNECTIONS
        )
        if keep:
            self._idle.append(connection)
        else:
            connection.broken = True
            connection._close()

    def close(self) -> None:
        """Close every idle connection (the proxy is stopping)."""
        while self._idle:
            self._idle.pop()._close()
