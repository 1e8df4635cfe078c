"""A client that leaves before the upstream's first byte closes the upstream request at
once, on both client paths, and the exchange is logged.

Before, the proxy waited for the upstream's answer (up to the 300 s read timeout): a
model kept thinking — and billing — for a client long gone, and the exchange was never
logged if the proxy stopped meanwhile.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest

from replay.proxy.app import ExchangeLog, ProxyOptions
from replay.proxy.server import ProxyServer


@dataclass
class SilentUpstream:
    """Reads each request, answers nothing, notes when the proxy hangs up."""

    url: str = ""
    closed: list[float] = field(default_factory=list)


def _hold(conn: socket.socket, upstream: SilentUpstream) -> None:
    with conn:
        conn.settimeout(10)
        try:
            while conn.recv(65536):
                pass
        except OSError:
            return
        upstream.closed.append(time.monotonic())


@pytest.fixture
def silent() -> Iterator[SilentUpstream]:
    upstream = SilentUpstream()
    listener = socket.create_server(("127.0.0.1", 0))
    upstream.url = f"http://127.0.0.1:{listener.getsockname()[1]}"

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=_hold, args=(conn, upstream), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield upstream
    listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() below it
    listener.close()
    thread.join(5)


@pytest.mark.parametrize("fast_path", [True, False], ids=["pipe", "httpx"])
def test_the_upstream_request_is_closed_when_the_client_leaves(
    silent: SilentUpstream, fast_path: bool
) -> None:
    logged: list[ExchangeLog] = []
    options = ProxyOptions(upstream=silent.url, fast_path=fast_path)
    with ProxyServer(options, logger=logged.append) as proxy:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(proxy.url + "/chat", json={"runId": "r1"}, timeout=0.5)
        left = time.monotonic()
        limit = left + 5
        while not (silent.closed and logged) and time.monotonic() < limit:
            time.sleep(0.02)
    assert silent.closed, "the upstream request was still open 5 s after the client left"
    assert silent.closed[0] - left < 2
    assert logged == [
        ExchangeLog(
            1,
            "POST",
            "/chat",
            499,
            "r1",
            end="disconnected",
            detail="the client left before the upstream answered",
        )
    ]


def test_a_stop_while_the_upstream_thinks_is_logged(silent: SilentUpstream) -> None:
    logged: list[ExchangeLog] = []
    statuses: list[int] = []
    proxy = ProxyServer(ProxyOptions(upstream=silent.url), logger=logged.append).start()

    def post() -> None:
        response = httpx.post(proxy.url + "/chat", json={"runId": "r1"}, timeout=10)
        statuses.append(response.status_code)

    waiting = threading.Thread(target=post)
    waiting.start()
    time.sleep(0.5)
    began = time.monotonic()
    proxy.shutdown()
    waiting.join(10)
    assert time.monotonic() - began < 3
    assert statuses == [503]
    assert [(entry.status, entry.end, entry.detail) for entry in logged] == [
        (503, "cut", "the proxy stopped before the upstream answered")
    ]
